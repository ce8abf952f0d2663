// Helpers shared by the GPU test files: the skip without a device, the GPU
// algorithms of the registry, the options of a GPU solve, and the checks of
// real-valued GPU solves (fw and sssp): against the long-double reference,
// negative cycles, rounding near zero, zero-weight ties.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "apsp/registry.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "apsp/verify.hpp"
#include "support/cases.hpp"

#define SKIP_WITHOUT_GPU() \
  if (::apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device"

namespace apsp::test {

// The GPU algorithms this build has, in registry order.
inline std::vector<AlgorithmInfo> gpu_algorithms() {
  std::vector<AlgorithmInfo> found;
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.backend == Backend::cuda && a.available) found.push_back(a);
  return found;
}

// Sets an integer testing hook (cuda/testing.hpp) for the lifetime of the
// object, then restores the value it had: a hook whose default is not 0
// (supernodal_squaring_closure's 640) keeps it for the tests that follow.
class IntHook {
 public:
  IntHook(std::atomic<std::int64_t>& hook, std::int64_t value) : hook_(hook), before_(hook.load()) { hook_ = value; }
  IntHook(const IntHook&) = delete;
  IntHook& operator=(const IntHook&) = delete;
  ~IntHook() { hook_ = before_; }

 private:
  std::atomic<std::int64_t>& hook_;
  std::int64_t before_;
};

// Sets a boolean testing hook for a scope and puts its previous value back.
class BoolHook {
 public:
  BoolHook(std::atomic<bool>& hook, bool value) : hook_(hook), before_(hook.load()) { hook_ = value; }
  BoolHook(const BoolHook&) = delete;
  BoolHook& operator=(const BoolHook&) = delete;
  ~BoolHook() { hook_ = before_; }

 private:
  std::atomic<bool>& hook_;
  bool before_;
};

// Whether this build has the CPU solver `algorithm` to compare with.
inline bool cpu_algorithm_available(const std::string& algorithm) {
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.name == algorithm && a.backend == Backend::cpu && a.available) return true;
  return false;
}

// Options for one GPU solve with `algorithm`.
inline SolveOptions on_gpu(const std::string& algorithm, Precision precision = Precision::automatic,
                           bool predecessors = false, BlockShape block = {}) {
  SolveOptions o;
  o.backend = Backend::cuda;
  o.algorithm = algorithm;
  o.precision = precision;
  o.predecessors = predecessors;
  o.block = block;
  return o;
}

// A case with real weights (test::with_real_weights) in W, the same weights
// widened to double (exactly), and the reference distances of those.
template <class W>
struct RealCase {
  std::string name;
  BasicGraph<W> graph;  // what is solved (not normalized)
  GraphF64 exact;
  std::vector<double> reference;
};

template <class W>
RealCase<W> real_case(const Case& c) {
  RealCase<W> r;
  r.name = c.name;
  const GraphF64 real = with_real_weights(c.graph);
  if constexpr (std::is_same<W, float>::value) {
    r.graph = to_float32(real);
    r.exact = to_float64(r.graph);
  } else {
    r.graph = real;
    r.exact = real;
  }
  r.reference = reference_distances(r.exact);
  return r;
}

// Solves rc.graph with `o` (a GPU algorithm by name) and checks the summary
// (algorithm, backend, weight type, verified), the distances within the
// tests' tolerance of W against the reference, a zero diagonal, finite and
// unreachable entries (n >= 2 and 3: every case has both), and with
// o.predecessors trees whose paths weigh the distances.
template <class W>
void expect_real_matches_reference(const RealCase<W>& rc, const SolveOptions& o) {
  SCOPED_TRACE(rc.name + " algo=" + o.algorithm + " " + to_string(weight_type_of<W>) +
               (o.predecessors ? " with predecessors" : "") + (o.verify ? " verified" : ""));
  const BasicSolveResult<W> r = solve(rc.graph, o);
  EXPECT_EQ(r.algorithm, o.algorithm);
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(r.weights, weight_type_of<W>);
  EXPECT_EQ(r.verified, o.verify);
  const std::int64_t n = rc.graph.n;
  const std::vector<double> d(r.dist.begin(), r.dist.end());
  const double rel = test_relative_tolerance<W>(n);
  EXPECT_EQ(first_real_difference(rc.reference, d, n, max_abs_weight(rc.exact), rel), "");
  const EntryCounts counts = count_entries(d, n);
  if (n >= 2) EXPECT_GT(counts.finite_off_diagonal, 0);
  if (n >= 3) EXPECT_GT(counts.unreachable, 0);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(d[static_cast<std::size_t>(i * n + i)], 0.0);
  if (o.predecessors) {
    double scale = max_abs_weight(rc.exact);
    for (const double x : rc.reference)
      if (x != std::numeric_limits<double>::infinity()) scale = std::max(scale, std::abs(x));
    EXPECT_EQ(check_predecessors(rc.exact, d, r.pred, rel * scale), "");
  }
}

// The real-weighted negative-cycle case of n vertices through `algorithm`,
// in float32 without and float64 with predecessors: NegativeCycleError
// naming a vertex on a negative cycle.
inline void expect_negative_cycle_reported(std::int64_t n, const std::string& algorithm) {
  const Case c = negative_cycle_case(n, 7);
  const GraphF64 g = with_real_weights(c.graph);
  for (const bool single : {true, false}) {
    try {
      if (single)
        solve(to_float32(g), on_gpu(algorithm));
      else
        solve(g, on_gpu(algorithm, Precision::automatic, true));
      ADD_FAILURE() << algorithm << ": no negative cycle reported for n = " << n;
    } catch (const NegativeCycleError& e) {
      EXPECT_TRUE(lies_on_negative_cycle(c.graph, static_cast<vertex_t>(e.vertex()))) << algorithm << ": " << e.what();
    }
  }
}

// 0.3 - 0.1 - 0.2 is not 0 in binary: through `algorithm` (with
// predecessors) the cycle is no negative cycle, the diagonal comes out as
// 0, and the result verifies, in float64 and float32.
inline void expect_rounding_near_zero_cycle_is_no_negative_cycle(const std::string& algorithm) {
  GraphF64 g;
  g.n = 4;
  g.edges = {{0, 1, 0.3}, {1, 2, -0.1}, {2, 0, -0.2}, {2, 3, 1.5}, {3, 2, -1.5}};
  const SolveResultF64 r = solve(g, on_gpu(algorithm, Precision::automatic, true));
  EXPECT_NEAR(r.dist[0 * 4 + 3], 0.3 - 0.1 + 1.5, 1e-12) << algorithm;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.dist[i * 4 + i], 0.0) << algorithm;
  EXPECT_TRUE(verify(g, r.dist).ok) << algorithm;
  EXPECT_TRUE(verify_predecessors(g, r.dist, r.pred).ok) << verify_predecessors(g, r.dist, r.pred).first_violation;
  const SolveResultF32 f = solve(to_float32(g), on_gpu(algorithm, Precision::automatic, true));
  EXPECT_NEAR(f.dist[0 * 4 + 3], 1.7, 1e-5) << algorithm;
}

// Zero-weight cycles tie every path around them (n vertices, two zero
// out-edges each): through `algorithm` every predecessor row, float64 and
// float32, is a tree of exact paths (rows the device leaves looping are
// rebuilt on the host).
inline void expect_zero_weight_cycles_give_trees(std::int64_t n, const std::string& algorithm) {
  GraphF64 g;
  g.n = n;
  for (std::int64_t v = 0; v < n; ++v) {
    g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>((v + 1) % n), 0.0});
    g.edges.push_back({static_cast<vertex_t>(v), static_cast<vertex_t>((v * 7 + 3) % n), 0.0});
  }
  SCOPED_TRACE(algorithm + ", zero-weight cycles, n = " + std::to_string(n));
  const SolveResultF64 r = solve(g, on_gpu(algorithm, Precision::automatic, true));
  EXPECT_EQ(r.algorithm, algorithm);
  EXPECT_EQ(check_predecessors(g, r.dist, r.pred, 0.0), "");
  const SolveResultF32 f = solve(to_float32(g), on_gpu(algorithm, Precision::automatic, true));
  EXPECT_EQ(check_predecessors(g, widened(f.dist), f.pred, 0.0), "");
}

// g through `algorithm` with predecessors and verify into files at
// distances_path and predecessors_path (a .bin and a .npy), then the null
// sink: the summary says verified, the files hold `expected` and trees of
// its paths.
inline void expect_verified_rows_in_files(const Graph& g, const std::string& algorithm,
                                          const std::vector<dist_t>& expected, const std::string& distances_path,
                                          const std::string& predecessors_path) {
  SolveOptions o = on_gpu(algorithm, Precision::automatic, true);
  o.verify = true;
  FileSink files(MatrixFileTarget{distances_path}, MatrixFileTarget{predecessors_path});
  const SolveSummary s = solve(g, o, files);
  EXPECT_TRUE(s.verified);
  std::int64_t n = 0;
  const std::vector<dist_t> d = io::read_matrix(distances_path, n);
  EXPECT_EQ(n, g.n);
  EXPECT_EQ(first_difference(expected, d, n), "");
  EXPECT_EQ(check_predecessors(g, d, io::read_matrix(predecessors_path, n)), "");

  NullSink nothing;
  EXPECT_NO_THROW(solve(g, on_gpu(algorithm), nothing));
}

}  // namespace apsp::test
