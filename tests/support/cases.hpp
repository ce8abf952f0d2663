// Seeded graph cases shared by the CPU, CLI and GPU tests, and matrix checks
// that print the failing parameters. Matrices are views (apsp::Span): pass a
// std::vector, a SolveResult's HostVector or a mapped file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

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

// The graph `apsp gen KIND -n N -m M --weights LO:HI --seed S` writes.
Graph generated(GraphKind kind, std::int64_t n, std::int64_t m, weight_t lo, weight_t hi, std::uint64_t seed);

// A case with a negative cycle, and the vertices on it.
Case negative_cycle_case(std::int64_t n, std::uint64_t seed);

// True when some closed walk through v of at most n edges has negative
// weight, i.e. v lies on a negative cycle (Bellman-Ford rounds from v).
bool lies_on_negative_cycle(const Graph& g, vertex_t v);

// Reference distances by the textbook triple loop in int64 (independent of the
// library's algorithms), converted to int32 with kInf.
std::vector<dist_t> reference_distances(const Graph& g);

// Empty string when equal; else the first differing (i, j) and both values.
std::string first_difference(Span<const dist_t> expected, Span<const dist_t> actual,
                             std::int64_t n);

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

}  // namespace apsp::test
