// CPU backend. Compiles without nvcc.
#pragma once

#include <string>
#include <vector>

#include "apsp/solver.hpp"

namespace apsp::cpu {

// Names: fw-seq, fw-blocked, dijkstra, bellman-ford, johnson.
std::vector<std::string> algorithms();

// Picks an algorithm for a normalized graph from density and weight signs;
// the thresholds are measured (docs/perf.md). Throws InputError unless the
// graph is normalized (check_normalized).
std::string choose_algorithm(const Graph& normalized, const WeightStats& s);
std::string choose_algorithm(const GraphF32& normalized, const BasicWeightStats<float>& s);
std::string choose_algorithm(const GraphF64& normalized, const BasicWeightStats<double>& s);

// The algorithm solve() runs for `opts` on `normalized` ("auto" resolved by
// choose_algorithm). Throws UsageError for an unknown name or bad threads.
std::string resolve_algorithm(const Graph& normalized, const SolveOptions& opts);
std::string resolve_algorithm(const GraphF32& normalized, const SolveOptions& opts);
std::string resolve_algorithm(const GraphF64& normalized, const SolveOptions& opts);

// Runs one named CPU algorithm on a normalized graph (InputError otherwise,
// see check_normalized), with `sink` begun with this solve's layout (n,
// distances of the graph's weight type, opts.predecessors). Hands every row to the sink as it is
// finished (the sink's commit() is the caller's), computing in the sink's
// memory where it has row_address(). Fills out.algorithm, backend and
// precision and appends its stages to out.times.
void solve(const Graph& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);
void solve(const GraphF32& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);
void solve(const GraphF64& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);

}  // namespace apsp::cpu
