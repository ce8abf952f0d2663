// Resuming a solve into a sink that keeps the rows of a killed run
// (Sink::keeps_partial, FileSink::keep_partial): the key that proves a
// resumed run continues the same solve, and the rows it has left to compute.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "apsp/dense.hpp"
#include "apsp/graph.hpp"
#include "apsp/row_split.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"

namespace apsp::resume {

// SinkLayout::solve_key of a solve: the digest of the normalized graph (its
// order, weight type and edges, or a dense view's cells), the algorithm as
// resolved, the backend, the requested precision, predecessors and sources.
std::uint64_t solve_key(const Graph& normalized, const std::string& algorithm, Backend backend,
                        const SolveOptions& opts);
std::uint64_t solve_key(const GraphF32& normalized, const std::string& algorithm, Backend backend,
                        const SolveOptions& opts);
std::uint64_t solve_key(const GraphF64& normalized, const std::string& algorithm, Backend backend,
                        const SolveOptions& opts);
std::uint64_t solve_key(const DenseView& view, const std::string& algorithm, Backend backend, const SolveOptions& opts);

// What is left of a solve once `sink` (begun with `layout`) has said which
// rows an interrupted run left (Sink::resumed).
struct RowsLeft {
  // `run` with its sources narrowed to the rows left, where the algorithm
  // computes chosen sources; otherwise `run` as it was.
  SolveOptions run;
  // Where the solve puts its rows: null for `sink` itself (no row was kept);
  // else a sink that takes the narrowed solve's rows, or skips the kept ones
  // of a whole solve, and forwards the rest to `sink`.
  std::unique_ptr<Sink> into;
  bool nothing_left = false;  // every row was kept: compute nothing
  std::string note;           // Sink::resumed's note
  // With `row_range`: the row ranges between the kept rows (every row left,
  // and no kept row), one chunk each, handed to the solve through
  // `run.row_split` (split, counter).
  std::unique_ptr<SharedCounter> counter;
  std::unique_ptr<RowSplit> split;
  std::int64_t rows_computed = -1;  // the ranges' rows; -1: not narrowed to ranges
  std::int64_t ranges = 0;          // how many ranges
};

// `narrow_sources`: the algorithm of `run` computes rows of chosen sources
// (SolveOptions::sources), so only the rows left are computed. `row_range`:
// it takes its rows from a row split instead (the GPU's row solvers, sssp and
// supernodal), so only the range of rows left is computed.
RowsLeft rows_left(Sink& sink, const SinkLayout& layout, const SolveOptions& run, bool narrow_sources,
                   bool row_range = false);

}  // namespace apsp::resume
