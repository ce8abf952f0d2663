#include "cuda/device_checkpoints.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <utility>

#include "core/cuda_check.hpp"

namespace apsp::cuda {
namespace {

cudaStream_t stream_of(CUstream_st* s) { return s; }
cudaEvent_t event_of(void* e) { return static_cast<cudaEvent_t>(e); }

}  // namespace

DeviceRoundCheckpoints::DeviceRoundCheckpoints(RoundCheckpoints* checkpoints, std::string layout, std::int64_t rounds,
                                               std::vector<Plane> planes, CUstream_st* stream)
    : checkpoints_(checkpoints), planes_(std::move(planes)), stream_(stream) {
  state_.layout = std::move(layout);
  state_.rounds = rounds;
  if (checkpoints_ == nullptr) return;
  APSP_CUDA_CHECK(cudaGetDevice(&device_));
  cudaEvent_t event = nullptr;
  APSP_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  copied_ = event;
}

DeviceRoundCheckpoints::~DeviceRoundCheckpoints() {
  if (writer_.joinable()) writer_.join();
  if (host_ != nullptr) cudaFreeHost(host_);
  if (copied_ != nullptr) cudaEventDestroy(event_of(copied_));
}

std::int64_t DeviceRoundCheckpoints::restore() {
  if (checkpoints_ == nullptr) return 0;
  std::size_t total = 0;
  for (const Plane& p : planes_) total += p.bytes;
  // Pageable and untouched unless a checkpoint is read into it: a fresh
  // solve pays nothing for it.
  const std::unique_ptr<char[]> host(new char[total]);
  RoundState state = state_;
  std::size_t offset = 0;
  for (const Plane& p : planes_) {
    state.planes.push_back({host.get() + offset, p.bytes});
    offset += p.bytes;
  }
  const std::int64_t round = checkpoints_->restore(state);
  if (round <= 0) return 0;
  offset = 0;
  for (const Plane& p : planes_) {
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(p.device, host.get() + offset, p.bytes, cudaMemcpyHostToDevice, stream_of(stream_)));
    offset += p.bytes;
  }
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_of(stream_)));
  return round;
}

void DeviceRoundCheckpoints::host_buffer() {
  if (host_ != nullptr) return;
  for (const Plane& p : planes_) host_bytes_ += p.bytes;
  APSP_CUDA_CHECK(cudaMallocHost(&host_, host_bytes_));
}

void DeviceRoundCheckpoints::round_done(std::int64_t rounds_done) {
  if (checkpoints_ == nullptr) return;
  if (writer_.joinable()) {
    if (!written_.load()) return;  // the previous save is still being written: skip this boundary
    join();
  }
  if (!checkpoints_->due(rounds_done, state_.rounds)) return;
  host_buffer();
  // The copies queue behind the round's kernels on the compute stream, and
  // the next round's kernels behind them: the planes are the round's result.
  state_.round = rounds_done;
  state_.planes.clear();
  std::size_t offset = 0;
  for (const Plane& p : planes_) {
    char* to = static_cast<char*>(host_) + offset;
    APSP_CUDA_CHECK(cudaMemcpyAsync(to, p.device, p.bytes, cudaMemcpyDeviceToHost, stream_of(stream_)));
    state_.planes.push_back({to, p.bytes});
    offset += p.bytes;
  }
  APSP_CUDA_CHECK(cudaEventRecord(event_of(copied_), stream_of(stream_)));
  written_ = false;
  writer_ = std::thread([this] {
    try {
      APSP_CUDA_CHECK(cudaSetDevice(device_));
      APSP_CUDA_CHECK(cudaEventSynchronize(event_of(copied_)));
      checkpoints_->round_done(state_);
      ++saves_;
    } catch (...) {
      failure_ = std::current_exception();
    }
    written_ = true;
  });
}

void DeviceRoundCheckpoints::join() {
  if (writer_.joinable()) writer_.join();
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void DeviceRoundCheckpoints::finish() { join(); }

}  // namespace apsp::cuda
