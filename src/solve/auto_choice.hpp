// The GPU's "auto" choice between the dense solver (fw) and the batched
// single-source solver (sssp), a cost model over core::GraphProbe
// (core/graph_probe.hpp). Host-only, built with and without CUDA, so the
// rule is unit-tested everywhere.
#pragma once

#include <string>

#include "apsp/solver.hpp"
#include "core/graph_probe.hpp"

namespace apsp::choice {

// The GPU cost model's verdict: the algorithm, the estimates (seconds of
// compute on the device) and one line saying why.
struct GpuChoice {
  std::string
      algorithm;  // "fw", "sssp" or "sssp-nearfar" (where rounds, not edges, dominate); "fw-ooc" past device memory
  double fw_seconds = 0;
  double sssp_seconds = 0;          // the production sssp (v3)
  double sssp_nearfar_seconds = 0;  // its v2
  std::string why;
};

// "auto" on the GPU. fw when an option only fw honours is set (int16, a
// block shape); else the smaller estimate of the model in auto_choice.cpp,
// for the probe's weight type (real weights: fw's float32 / float64 rates).
GpuChoice choose_gpu_algorithm(const core::GraphProbe& probe, const SolveOptions& opts);

// "auto" past device memory: a choice of fw becomes fw-ooc (the matrix in
// host memory, streamed through the device) when `shortfall`
// (cuda::fw_device_shortfall: why fw's matrix does not fit) is not empty and
// the options are ones fw-ooc honours (int32 weights, no predecessors); the
// reason joins c.why. Otherwise c is unchanged (fw then refuses as before).
void prefer_out_of_core(GpuChoice& c, const std::string& shortfall, WeightType weights, const SolveOptions& opts);

}  // namespace apsp::choice
