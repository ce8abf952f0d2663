// CUDA backend, host-safe declarations. Compiles without nvcc; when the
// project is built without CUDA these throw ResourceError / report no devices.
#pragma once

#include <string>
#include <vector>

#include "apsp/solver.hpp"

namespace apsp::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int sm_major = 0;
  int sm_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0;
  std::size_t free_memory = 0;
};

bool compiled_in();
// Devices visible now; empty without CUDA or without a GPU (never throws for "no device").
std::vector<DeviceInfo> devices();

// Kernel names selectable with --backend cuda --algo NAME (without "auto").
std::vector<std::string> algorithms();

// Runs a named GPU algorithm ("auto" = the production solver "fw").
// `g` must be normalized. Fills dist/pred, algorithm, precision and times.
void solve(const Graph& normalized, const SolveOptions& opts, SolveResult& out);

}  // namespace apsp::cuda
