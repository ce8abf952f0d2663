// CPU backend. Compiles without nvcc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/dense.hpp"
#include "apsp/solver.hpp"

namespace apsp::cpu {

// Names: fw-seq, fw-blocked, dijkstra, bellman-ford, johnson, supernodal.
std::vector<std::string> algorithms();

// Picks an algorithm for a normalized graph from density and weight signs,
// and supernodal where the graph's hop depth and symbolic analysis say its
// separators are small; the thresholds are measured (docs/perf.md). Throws InputError unless the
// graph is normalized (check_normalized).
std::string choose_algorithm(const Graph& normalized, const WeightStats& s);
std::string choose_algorithm(const GraphF32& normalized, const BasicWeightStats<float>& s);
std::string choose_algorithm(const GraphF64& normalized, const BasicWeightStats<double>& s);
// One line saying what choose_algorithm picks and why (the model's costs).
std::string choice_reason(const Graph& normalized, const WeightStats& s);
// The same model on sizes alone: n vertices, m edges, whether a weight is
// negative (what the overloads above read off a graph).
std::string choose_algorithm(std::int64_t n, std::int64_t m, bool negative);
std::string choice_reason(std::int64_t n, std::int64_t m, bool negative);

// The algorithm solve() runs for `opts` on `normalized` ("auto" resolved by
// choose_algorithm). Throws UsageError for an unknown name or bad threads.
std::string resolve_algorithm(const Graph& normalized, const SolveOptions& opts);
// The same, storing choice_reason's line in *why when "auto" chose (the
// choice is made once: it may run supernodal's symbolic analysis).
std::string resolve_algorithm(const Graph& normalized, const SolveOptions& opts, std::string* why);
std::string resolve_algorithm(const GraphF32& normalized, const SolveOptions& opts);
std::string resolve_algorithm(const GraphF64& normalized, const SolveOptions& opts);
// The same for a dense view of n vertices, from its scan (scan_dense).
std::string resolve_algorithm(std::int64_t n, const DenseScan& scan, const SolveOptions& opts);

// Whether `algorithm` (a resolved name) reads a dense view in place under
// `opts`: a CPU algorithm that builds an n x n working matrix (the
// registry's Work::cubic entries), without predecessors (their repair reads
// the edge list) or sources.
bool reads_dense(const std::string& algorithm, const SolveOptions& opts);

// Runs one named CPU algorithm on a normalized graph (InputError otherwise,
// see check_normalized), with `sink` begun with this solve's layout (n,
// distances of the graph's weight type, opts.predecessors). Hands every row to the sink as it is
// finished (the sink's commit() is the caller's), computing in the sink's
// memory where it has row_address(). Fills out.algorithm, backend and
// precision and appends its stages to out.times.
void solve(const Graph& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);
void solve(const GraphF32& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);
void solve(const GraphF64& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);
// The same for a dense view read in place (apsp/dense.hpp), given its scan:
// the algorithm (opts resolved with resolve_algorithm) must read dense views
// (reads_dense; UsageError otherwise). Runs on the scan's weight type.
void solve(const DenseView& view, const DenseScan& scan, const SolveOptions& opts, Sink& sink, SolveSummary& out);

}  // namespace apsp::cpu
