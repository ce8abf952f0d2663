// Private to the CPU backend: what every CPU algorithm receives, and the
// helpers they share (thread count, output conversion, memory).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/registry.hpp"
#include "apsp/solver.hpp"

namespace apsp::cpu::detail {

// One solve request, already validated: `graph` is normalized.
struct Job {
  const Graph& graph;
  WeightStats stats;
  // fits_int32_arithmetic(graph, stats), unless int64 was asked for. The
  // algorithms with an int32 mode use it exactly when this is set; each sets
  // SolveResult::precision to the width it used.
  bool int32_arithmetic;
  bool predecessors;
  int threads;  // > 0
  const std::function<void(double)>& progress;

  void report(double fraction) const {
    if (progress) progress(fraction);
  }
};

// Infinity of each distance type. int32: kInf. int64: large enough that no
// real distance reaches half of it, small enough that two of them add safely.
template <class D>
constexpr D infinity() {
  return std::is_same<D, std::int32_t>::value ? static_cast<D>(kInf) : static_cast<D>(std::int64_t{1} << 61);
}

// Converts a distance computed in int64 to the int32 output; throws
// OverflowError naming (from, to) when a finite value does not fit.
dist_t to_output(std::int64_t value, std::int64_t from, std::int64_t to);

[[noreturn]] void throw_out_of_memory(const char* what, std::int64_t bytes);

// Bytes of an n x n matrix of `cell_bytes`-byte cells; ResourceError naming
// `what` when that exceeds the machine's RAM plus swap (asking anyway could
// end in the OOM killer rather than an error).
std::size_t matrix_bytes(std::int64_t n, std::size_t cell_bytes, const char* what);

// An n x n matrix of T filled with `fill`, or ResourceError naming `what`.
template <class T>
std::vector<T> square_matrix(std::int64_t n, T fill, const char* what) {
  const std::size_t cells = matrix_bytes(n, sizeof(T), what) / sizeof(T);
  try {
    return std::vector<T>(cells, fill);
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(what, static_cast<std::int64_t>(cells * sizeof(T)));
  }
}

// Empties `m` and reserves n x n entries without touching them (no memory is
// committed until rows are appended), or throws ResourceError naming `what`.
template <class T>
void reserve_square_matrix(std::vector<T>& m, std::int64_t n, const char* what) {
  const std::size_t cells = matrix_bytes(n, sizeof(T), what) / sizeof(T);
  m.clear();
  try {
    m.reserve(cells);
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(what, static_cast<std::int64_t>(cells * sizeof(T)));
  }
}

// Keeps the first exception thrown inside an OpenMP region (where exceptions
// must not escape) and tells the other threads to stop.
class FirstError {
 public:
  template <class F>
  void run(F&& body) noexcept {
    try {
      body();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      stop_.store(true, std::memory_order_relaxed);
    }
  }
  bool stopped() const { return stop_.load(std::memory_order_relaxed); }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
};

// One line of the CPU half of the algorithm registry: the public traits and
// the run function.
struct CpuAlgorithm {
  AlgorithmInfo info;
  void (*run)(const Job&, SolveResult&);
};
// Every CPU algorithm, in the order `apsp info` lists them.
const std::vector<CpuAlgorithm>& cpu_algorithm_table();

// The algorithms. Each fills out.dist (and out.pred when job.predecessors).
void fw_seq(const Job& job, SolveResult& out);
void fw_blocked(const Job& job, SolveResult& out);
void dijkstra(const Job& job, SolveResult& out);
void bellman_ford(const Job& job, SolveResult& out);
void johnson(const Job& job, SolveResult& out);

}  // namespace apsp::cpu::detail
