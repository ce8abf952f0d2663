// The CUDA backend's entry points for builds without nvcc: no devices, and a
// clear error if a GPU algorithm is asked for.
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"

namespace apsp::cuda {
namespace {

constexpr const char* kNoCudaBackend =
    "this build of apsp has no CUDA backend: nvcc was not found when it was built, or it was configured with "
    "-DAPSP_ENABLE_CUDA=OFF (rebuild with the CUDA toolkit's nvcc on PATH)";

}  // namespace

bool compiled_in() { return false; }
const std::vector<DeviceInfo>& devices() {
  static const std::vector<DeviceInfo> none;
  return none;
}

void create_context(int) {}

std::vector<std::string> algorithms() { return {}; }

std::string fw_device_shortfall(std::int64_t, const SolveOptions&) { return {}; }

void solve(const Graph&, const SolveOptions&, Sink&, SolveSummary&) { throw ResourceError(kNoCudaBackend); }
void solve(const GraphF32&, const SolveOptions&, Sink&, SolveSummary&) { throw ResourceError(kNoCudaBackend); }
void solve(const GraphF64&, const SolveOptions&, Sink&, SolveSummary&) { throw ResourceError(kNoCudaBackend); }

}  // namespace apsp::cuda
