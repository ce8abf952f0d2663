// The GPU's "auto" choice between the dense solver (fw), the batched
// single-source solver (sssp) and the supernodal solver, a cost model over core::GraphProbe
// (core/graph_probe.hpp). Host-only, built with and without CUDA, so the
// rule is unit-tested everywhere.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apsp/solver.hpp"
#include "core/graph_probe.hpp"

namespace apsp::choice {

// Both backends' gate for supernodal: a graph whose breadth-first hop depth
// (core::GraphProbe::hop_depth) is at least kPlanarDepthPerLog2 * log2(n) may
// have small separators and is worth a symbolic analysis. Grids and
// geometric graphs measure 5.3-32 times log2(n) at n = 1024-65536; R-MAT,
// scale-free and uniform random graphs (expanders, separators of order n)
// at most 2.
inline constexpr double kPlanarDepthPerLog2 = 3;
bool separators_may_be_small(std::int64_t n, std::int64_t hop_depth);

// The symbolic analysis's figures that supernodal's estimate reads
// (supernodal::Symbolic's probes: min-plus multiply-adds of the factor and of
// one source's row, the largest root supernode's columns).
struct SeparatorFigures {
  double factor_ops = 0;
  double solve_ops_per_source = 0;
  std::int64_t top_separator = 0;
};

// Runs the symbolic analysis (METIS ordering and all) of the probed graph and
// returns its figures. The caller keeps the analysis for the solver
// (supernodal::AnalysisReuse), so that when supernodal is picked it costs
// nothing extra.
using AnalyseSeparators = std::function<SeparatorFigures()>;

// The GPU cost model's verdict: the algorithm, the estimates (seconds of
// compute on the device) and one line saying why.
struct GpuChoice {
  // "fw", "sssp", "sssp-nearfar" (where rounds, not edges, dominate) or
  // "supernodal"; "fw-ooc" past device memory (prefer_out_of_core)
  std::string algorithm;
  double fw_seconds = 0;            // fw's fixed cost included (fw_fixed_seconds)
  double fw_fixed_seconds = 0;      // of which: module loading and the int16 attempt
  double sssp_seconds = 0;          // the production sssp (v3)
  double sssp_nearfar_seconds = 0;  // its v2
  // supernodal: the analysis's estimate (ordering and symbolic on the host,
  // from m), and the factor and solve's estimate from the analysis's op
  // counts; both < 0 where supernodal was not considered, the second < 0
  // where the analysis did not run.
  double supernodal_analysis_seconds = -1;
  double supernodal_seconds = -1;
  bool analysed = false;  // the analysis ran (analyse was called once)
  std::string why;
};

// "auto" on the GPU. fw when an option only fw honours is set (int16, a
// block shape); else the smallest estimate of the model in auto_choice.cpp,
// for the probe's weight type (real weights: fw's float32 / float64 rates).
// supernodal is considered only with `analyse`, on graphs deep enough for
// small separators; the analysis runs only when its own estimated time and
// supernodal's least solve time (no op counts yet) leave a margin below the
// best other estimate, and supernodal is then picked when its factor and
// solve (the analysis is spent by then) beat the others.
// The rows a solve of `sources` computes (its distinct entries; n when empty).
std::int64_t rows_asked(std::int64_t n, const std::vector<vertex_t>& sources);

// opts.sources counts: sssp's and supernodal's estimates are for those rows
// (supernodal's factor and fixed solve part whatever their number), fw's for
// every row (it computes the whole matrix), so a few sources go to sssp
// where supernodal wins the whole matrix only through its many rows.
GpuChoice choose_gpu_algorithm(const core::GraphProbe& probe, const SolveOptions& opts,
                               const AnalyseSeparators& analyse = nullptr);

// "auto" past device memory: a choice of fw becomes fw-ooc (the matrix in
// host memory, streamed through the device) when `shortfall`
// (cuda::fw_device_shortfall: why fw's matrix does not fit) is not empty and
// the weights are int32 (fw-ooc's, with or without predecessors: shortfall
// counts the predecessor matrix when they are asked for); the reason joins
// c.why. Otherwise c is unchanged (fw then refuses as before).
void prefer_out_of_core(GpuChoice& c, const std::string& shortfall, WeightType weights);

}  // namespace apsp::choice
