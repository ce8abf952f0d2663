// The CPU backend's entry for the solve layer: runs one named CPU algorithm.
// "auto" is resolved above, in the solve layer (solve/cpu_choice.cpp), which
// also defines the public apsp::cpu::solve on top of these.
#pragma once

#include "apsp/dense.hpp"
#include "apsp/solver.hpp"

namespace apsp::cpu::detail {

// Runs opts.algorithm, a name of cpu_algorithm_table() (UsageError naming
// the CPU's algorithms otherwise; "auto" is not one), on `normalized`, whose
// normalization and options the caller has checked (check_normalized,
// require_options_honoured), into `sink` begun with this solve's layout.
// Fills out as apsp::cpu::solve documents. W: weight_t, float or double
// (instantiated in cpu.cpp).
template <class W>
void run_named(const BasicGraph<W>& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);
// The same on a dense view read in place: opts.algorithm must read dense
// views (reads_dense; UsageError otherwise). Runs on the scan's weight type.
void run_named(const DenseView& view, const DenseScan& scan, const SolveOptions& opts, Sink& sink, SolveSummary& out);

}  // namespace apsp::cpu::detail
