// Helpers shared by the GPU test files: the skip without a device, the GPU
// algorithms of the registry, and the options of a GPU solve.
#pragma once

#include <string>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/registry.hpp"
#include "apsp/solver.hpp"

#define SKIP_WITHOUT_GPU() \
  if (::apsp::cuda::devices().empty()) GTEST_SKIP() << "no CUDA device"

namespace apsp::test {

// The GPU algorithms this build has, in registry order.
inline std::vector<AlgorithmInfo> gpu_algorithms() {
  std::vector<AlgorithmInfo> found;
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.backend == Backend::cuda && a.available) found.push_back(a);
  return found;
}

// Options for one GPU solve with `algorithm`.
inline SolveOptions on_gpu(const std::string& algorithm, Precision precision = Precision::automatic,
                           bool predecessors = false, BlockShape block = {}) {
  SolveOptions o;
  o.backend = Backend::cuda;
  o.algorithm = algorithm;
  o.precision = precision;
  o.predecessors = predecessors;
  o.block = block;
  return o;
}

}  // namespace apsp::test
