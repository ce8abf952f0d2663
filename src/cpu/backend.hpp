// Private to the CPU backend: what every CPU algorithm receives, and the
// helpers they share (thread count, output conversion, memory, handing rows
// to the sink).
#pragma once

#include <cstdint>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/dense.hpp"
#include "apsp/graph.hpp"
#include "apsp/registry.hpp"
#include "apsp/matrix.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"
#include "core/first_error.hpp"
#include "apsp/row_split.hpp"
#include "core/weights.hpp"

namespace apsp::cpu::detail {

// One solve request, already validated: `graph` is normalized. W is the
// weight type, and the type of the distances handed to the sink.
template <class W>
struct BasicJob {
  using weight_type = W;
  static constexpr Element element = std::is_same<W, float>::value    ? Element::float32
                                     : std::is_same<W, double>::value ? Element::float64
                                                                      : Element::int32;
  const BasicGraph<W>& graph;
  BasicWeightStats<W> stats;
  // Integer weights: fits_int32_arithmetic(graph, stats), unless int64 was
  // asked for; the algorithms with an int32 mode use it exactly when this is
  // set. Real weights: false (unused).
  bool int32_arithmetic;
  bool predecessors;
  int threads;  // > 0
  const std::function<void(double)>& progress;
  // The sources whose rows to compute (SolveOptions::sources, checked to be
  // in 0..n-1); empty = every vertex. Only the per-source algorithms get a
  // non-empty list (solve() refuses it for the others).
  const std::vector<vertex_t>& sources;
  Sink& sink;            // has begun; receives every row of the result
  StageTimes& times;     // the algorithm appends its stages
  Precision& precision;  // the algorithm sets the arithmetic width it used
  // A dense view the job reads in place instead of graph.edges, or null.
  // Only for the algorithms that build an n x n working matrix (the
  // registry's Work::cubic CPU entries) and without predecessors: `graph`
  // then has the view's n and no edges, and `stats` are the view's
  // (scan_dense); the algorithm's initialize stage fills its matrix from
  // the view (core::fill_from_dense).
  const DenseView* dense = nullptr;
  // The row split this job's rows come from, shared with other consumers
  // (the ranks of a distributed row solve), or null: every row is this
  // job's, split among its own threads. Only the per-source algorithms and
  // supernodal's solve phase (deliver_rows) take one; its chunks are at
  // most block_rows(*this) rows.
  RowSplit* split = nullptr;
  // SolveOptions::cutoff: the searches that settle in order of distance stop
  // past it (unset: none).
  std::optional<double> cutoff;

  void report(double fraction) const {
    if (progress) progress(fraction);
  }
};
using Job = BasicJob<weight_t>;
using JobF32 = BasicJob<float>;
using JobF64 = BasicJob<double>;

// Infinity of each distance type. int32: kInf. int64: large enough that no
// real distance reaches half of it, small enough that two of them add safely.
// float, double: +infinity.
template <class D>
constexpr D infinity() {
  if constexpr (std::is_floating_point<D>::value)
    return kUnreachable<D>;
  else
    return std::is_same<D, std::int32_t>::value ? static_cast<D>(kInf) : static_cast<D>(std::int64_t{1} << 61);
}

// Converts a distance computed in int64 to the int32 output; throws
// OverflowError naming (from, to) when a finite value does not fit.
dist_t to_output(std::int64_t value, std::int64_t from, std::int64_t to);

[[noreturn]] void throw_out_of_memory(const char* what, std::int64_t bytes);

// Bytes of an n x n matrix of `cell_bytes`-byte cells; ResourceError naming
// `what` when that does not fit the memory available (resources::require_memory:
// asking anyway could end in the OOM killer rather than an error).
std::size_t matrix_bytes(std::int64_t n, std::size_t cell_bytes, const char* what);

// An n x n matrix of T, not initialized, or ResourceError naming `what`.
template <class T>
HostVector<T> working_matrix(std::int64_t n, const char* what) {
  const std::size_t cells = matrix_bytes(n, sizeof(T), what) / sizeof(T);
  try {
    return HostVector<T>(cells);
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(what, static_cast<std::int64_t>(cells * sizeof(T)));
  }
}

// One line of the CPU half of the algorithm registry: the public traits and
// the run function of each weight type.
struct CpuAlgorithm {
  AlgorithmInfo info;
  void (*run)(const Job&);
  void (*run_f32)(const JobF32&);
  void (*run_f64)(const JobF64&);

  void operator()(const Job& job) const { run(job); }
  void operator()(const JobF32& job) const { run_f32(job); }
  void operator()(const JobF64& job) const { run_f64(job); }
};
// Every CPU algorithm, in the order `apsp info` lists them.
const std::vector<CpuAlgorithm>& cpu_algorithm_table();
// Their traits (CpuAlgorithm::info), in the same order: what the option
// checks of core/algorithm_checks.hpp and the registry read.
const std::vector<AlgorithmInfo>& cpu_algorithm_infos();

// The algorithms, for each weight type. Each hands every row of job.graph's
// distances (and predecessors when job.predecessors) to job.sink and appends
// its stages to job.times. Real weights: a diagonal entry below
// -negative_cycle_threshold(job) is a negative cycle.
void fw_seq(const Job& job);
void fw_seq(const JobF32& job);
void fw_seq(const JobF64& job);
void fw_blocked(const Job& job);
void fw_blocked(const JobF32& job);
void fw_blocked(const JobF64& job);
// fw-ooc: fw-blocked's tile steps in the out-of-core super-round schedule
// (core/super_rounds.hpp), two tiles per super-tile: the host's model of the
// GPU's out-of-core fw, so that CI runs the schedule.
void fw_out_of_core(const Job& job);
void fw_out_of_core(const JobF32& job);
void fw_out_of_core(const JobF64& job);
void dijkstra(const Job& job);
void dijkstra(const JobF32& job);
void dijkstra(const JobF64& job);
void bellman_ford(const Job& job);
void bellman_ford(const JobF32& job);
void bellman_ford(const JobF64& job);
void johnson(const Job& job);
void johnson(const JobF32& job);
void johnson(const JobF64& job);
// src/cpu/supernodal.cpp: nested dissection and min-plus supernodal elimination.
void supernodal(const Job& job);
void supernodal(const JobF32& job);
void supernodal(const JobF64& job);

// How far below zero rounding alone may push a diagonal entry of a real-valued
// solve (core::distance_tolerance over max|w|); 0 for int32.
template <class W>
double negative_cycle_threshold(const BasicJob<W>& job) {
  return core::distance_tolerance<W>(job.graph.n, static_cast<double>(job.stats.max_abs));
}

}  // namespace apsp::cpu::detail
