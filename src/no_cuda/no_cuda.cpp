// The CUDA backend's entry points for builds without nvcc: no devices, and a
// clear error if a GPU algorithm is asked for.
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"

namespace apsp::cuda {

bool compiled_in() { return false; }
const std::vector<DeviceInfo>& devices() {
  static const std::vector<DeviceInfo> none;
  return none;
}

void create_context(int) {}

std::vector<std::string> algorithms() { return {}; }

void solve(const Graph&, const SolveOptions&, Sink&, SolveSummary&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}
void solve(const GraphF32&, const SolveOptions&, Sink&, SolveSummary&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}
void solve(const GraphF64&, const SolveOptions&, Sink&, SolveSummary&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}

}  // namespace apsp::cuda
