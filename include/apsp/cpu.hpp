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

// Runs one named CPU algorithm on a normalized graph (InputError otherwise,
// see check_normalized). Fills dist (and pred when opts.predecessors),
// algorithm, precision and times.compute.
void solve(const Graph& normalized, const SolveOptions& opts, SolveResult& out);

}  // namespace apsp::cpu
