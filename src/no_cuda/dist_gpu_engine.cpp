// The distributed solver's GPU engine in builds without nvcc: refused with a
// clear error (src/distributed/gpu_engine.cu is the real one).
#include "apsp/error.hpp"
#include "distributed/gpu_engine.hpp"

namespace apsp::dist {

// Any width: make_gpu_engine refuses before a tile is used.
std::int64_t gpu_tile(WeightType) { return 128; }

std::uint64_t gpu_free_bytes(int) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}

std::unique_ptr<TileEngine> make_gpu_engine(const Graph&, const ProcessGrid&, const GpuEngineOptions&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}

std::unique_ptr<TileEngine> make_gpu_engine(const GraphF32&, const ProcessGrid&, const GpuEngineOptions&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}

std::unique_ptr<TileEngine> make_gpu_engine(const GraphF64&, const ProcessGrid&, const GpuEngineOptions&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}

std::unique_ptr<TileEngine> widen_gpu_engine(std::unique_ptr<TileEngine>, const ProcessGrid&, const GpuEngineOptions&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}

int select_device(int) { throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)"); }

std::unique_ptr<TileEngine> make_gpu_ooc_engine(const Graph&, const ProcessGrid&, std::int64_t,
                                                const GpuEngineOptions&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}

std::unique_ptr<TileEngine> widen_gpu_ooc_engine(std::unique_ptr<TileEngine>, const ProcessGrid&, std::int64_t,
                                                 const GpuEngineOptions&) {
  throw ResourceError("this build of apsp has no CUDA backend (rebuild with nvcc available)");
}

}  // namespace apsp::dist
