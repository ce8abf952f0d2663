// Seeded graph cases shared by the CPU, CLI and GPU tests, and matrix checks
// that print the failing parameters. Matrices are views (apsp::Span): pass a
// std::vector, a SolveResult's HostVector or a mapped file.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "apsp/solver.hpp"

namespace apsp::test {

struct Case {
  std::string name;  // kind, n, weights, seed: enough to rebuild it
  Graph graph;       // not normalized: may hold duplicates and self-loops
};

// Every generator kind x n in {0,1,2,63,64,65,127,200,257} x weights
// {positive, with zeros, negative without negative cycles}, plus duplicate
// edges, self-loops and a vertex no other vertex reaches (so every case with
// n >= 2 has unreachable pairs) and an edge 0->1 (so it has finite ones).
std::vector<Case> standard_cases();

// A few larger or tile-straddling sizes for the GPU kernels: tile-1, tile,
// tile+1 for tiles 32, 64, 128, 256 and some primes.
std::vector<Case> tile_cases();

// The graph `apsp gen KIND -n N -m M --weights LO:HI --seed S [--density D]` writes
// (m = -1: the kind's default; density: the dense kind's edge probability).
Graph generated(GraphKind kind, std::int64_t n, std::int64_t m, weight_t lo, weight_t hi, std::uint64_t seed,
                double density = 0.5);

// A case with a negative cycle, and the vertices on it.
Case negative_cycle_case(std::int64_t n, std::uint64_t seed);

// True when some closed walk through v of at most n edges has negative
// weight, i.e. v lies on a negative cycle (Bellman-Ford rounds from v).
bool lies_on_negative_cycle(const Graph& g, vertex_t v);

// Reference distances by the textbook triple loop in int64 (independent of the
// library's algorithms), converted to int32 with kInf.
std::vector<dist_t> reference_distances(const Graph& g);

// Empty string when equal; else the first differing (i, j) and both values.
std::string first_difference(Span<const dist_t> expected, Span<const dist_t> actual, std::int64_t n);

// Counts of finite off-diagonal and unreachable entries.
struct EntryCounts {
  std::int64_t finite_off_diagonal = 0;
  std::int64_t unreachable = 0;
};
EntryCounts count_entries(Span<const dist_t> d, std::int64_t n);

// Empty string when the fractions a solve reported through
// SolveOptions::progress are non-empty, non-decreasing, start above 0 and
// end at exactly 1; else what is wrong.
std::string check_progress(const std::vector<double>& fractions);

// Empty string when every pred path i->j has weight d[i][j]; else the problem.
std::string check_predecessors(const Graph& g, Span<const dist_t> d, Span<const vertex_t> pred);

// Real-valued weights. A case's graph with every weight w replaced by
// w * kRealScale: a factor that is no binary fraction, so sums round; zero
// stays zero and every cycle keeps its sign. Duplicates, self-loops and the
// unreachable vertex stay as they were.
inline constexpr double kRealScale = 0.37;
GraphF64 with_real_weights(const Graph& g);
GraphF32 to_float32(const GraphF64& g);
// The same graph with float weights promoted to double (exactly).
GraphF64 to_float64(const GraphF32& g);

// Reference distances of a real-valued graph by the textbook triple loop in
// long double (independent of the library), +inf for unreachable.
std::vector<double> reference_distances(const GraphF64& g);

// Empty string when `actual` matches `expected` within
// rel * max(max|w|, max finite |expected|) per entry, with unreachable
// (+inf) exactly where expected has it; else the first differing (i, j),
// both values and the tolerance. Never compares finite values with ==.
std::string first_real_difference(Span<const double> expected, Span<const double> actual, std::int64_t n,
                                  double max_abs_weight, double rel);
// The widening of a float32 result, for first_real_difference.
std::vector<double> widened(Span<const float> d);

// The largest |w| over the graph's edges (0 for none).
double max_abs_weight(const GraphF64& g);
// The tests' own relative tolerance for W-valued results, 4 * n * epsilon(W):
// looser than the library's n * epsilon, so a test checks the answer rather
// than the library's bound.
template <class W>
double test_relative_tolerance(std::int64_t n) {
  return 4.0 * static_cast<double>(n > 1 ? n : 1) * std::numeric_limits<W>::epsilon();
}

// Counts of finite off-diagonal and unreachable (+inf) entries.
EntryCounts count_entries(Span<const double> d, std::int64_t n);

// Empty string when every pred chain i->j reaches i without a loop over
// edges of `g` and its weight (summed in long double) is d[i][j] within
// `tolerance`; pred -1 exactly for i == j and unreachable entries.
std::string check_predecessors(const GraphF64& g, Span<const double> d, Span<const vertex_t> pred, double tolerance);

// A cycle negative by its own edges (core::cycle_is_negative: below
// -k * u * sum|w| over its k edges) whatever n is: 500, 500, -1000.0000000001
// (-1e-10) in float64 and 512, 512, -1024.0009765625 (-9.8e-4, 8 ulps) in
// float32, at n = 3 and with 997 isolated vertices added (the old
// n * epsilon * max|w| tolerance hid both). "" when `options` (algorithm
// and backend) throws NegativeCycleError naming vertex 0, 1 or 2 each
// time, else what happened.
std::string check_small_negative_cycles_reported(const SolveOptions& options);

}  // namespace apsp::test
