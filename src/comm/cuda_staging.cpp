// Device buffers through host memory, with the CUDA runtime (see staging.hpp).
#include <cuda_runtime.h>

#include <cstring>
#include <memory>

#include "comm/staging.hpp"
#include "core/cuda_check.hpp"

namespace apsp::comm {
namespace {

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

// Copies `bytes` in `stream` order and waits for them: the staged
// broadcasts' host and peer copies, each complete before the caller's
// barrier.
void copy_and_wait(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind, void* stream) {
  if (bytes == 0) return;
  APSP_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, kind, as_stream(stream)));
  APSP_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
}

// One page-locked buffer per thread: every rank of a local group is its own
// thread, so ranks never share one.
struct PinnedScratch {
  void* data = nullptr;
  std::size_t bytes = 0;
  ~PinnedScratch() {
    if (data) cudaFreeHost(data);
  }
  void* reserve(std::size_t wanted) {
    if (wanted <= bytes) return data;
    if (data) APSP_CUDA_CHECK(cudaFreeHost(data));
    data = nullptr;
    bytes = 0;
    APSP_CUDA_CHECK(cudaMallocHost(&data, wanted));
    bytes = wanted;
    return data;
  }
};

thread_local PinnedScratch scratch;

}  // namespace

void use_device(int device) {
  if (device >= 0) APSP_CUDA_CHECK(cudaSetDevice(device));
}

void wait_for_stream(void* stream) { APSP_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream))); }

void copy_device_to_device(void* to, const void* from, std::size_t bytes, void* stream) {
  if (bytes > 0 && to != from)
    APSP_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, as_stream(stream)));
}

bool pin_host(void* host, std::size_t bytes) {
  const cudaError_t status = cudaHostRegister(host, bytes, cudaHostRegisterPortable);
  if (status == cudaSuccess) return true;
  // Checked: the failure is the answer (the caller stages another way);
  // cleared so that later calls do not see it.
  cudaGetLastError();
  return false;
}

void unpin_host(void* host) { APSP_CUDA_CHECK(cudaHostUnregister(host)); }

void download(void* host, const void* device_data, std::size_t bytes, void* stream) {
  copy_and_wait(host, device_data, bytes, cudaMemcpyDeviceToHost, stream);
}

void upload(void* device_data, const void* host, std::size_t bytes, void* stream) {
  copy_and_wait(device_data, host, bytes, cudaMemcpyHostToDevice, stream);
}

int current_device() {
  int device = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

static_assert(sizeof(IpcHandle::bytes) == sizeof(cudaIpcMemHandle_t), "an IPC handle's bytes");

bool ipc_allocate(std::size_t bytes, int device, void** data, IpcHandle* handle) {
  use_device(device);
  *data = nullptr;
  // Checked: a failure is the answer (the caller falls back for every
  // rank), cleared so that later calls do not see it.
  if (cudaMalloc(data, bytes) != cudaSuccess) {
    cudaGetLastError();
    *data = nullptr;
    return false;
  }
  cudaIpcMemHandle_t made;
  if (cudaIpcGetMemHandle(&made, *data) != cudaSuccess) {
    cudaGetLastError();
    APSP_CUDA_CHECK(cudaFree(*data));
    *data = nullptr;
    return false;
  }
  std::memcpy(handle->bytes, &made, sizeof made);
  return true;
}

void ipc_free(void* data) { APSP_CUDA_CHECK(cudaFree(data)); }

void* ipc_open(const IpcHandle& handle, int device) {
  use_device(device);
  cudaIpcMemHandle_t given;
  std::memcpy(&given, handle.bytes, sizeof given);
  void* mapped = nullptr;
  if (cudaIpcOpenMemHandle(&mapped, given, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess) return mapped;
  cudaGetLastError();  // checked: the caller falls back
  return nullptr;
}

void ipc_close(void* mapped) { APSP_CUDA_CHECK(cudaIpcCloseMemHandle(mapped)); }

void ipc_copy(void* to, const void* from, std::size_t bytes, void* stream) {
  copy_and_wait(to, from, bytes, cudaMemcpyDefault, stream);
}

StagedBuffer::StagedBuffer(const void* device_data, std::size_t bytes, void* stream, bool load)
    : host_(scratch.reserve(bytes > 0 ? bytes : 1)), bytes_(bytes), stream_(stream) {
  APSP_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
  if (load && bytes > 0) APSP_CUDA_CHECK(cudaMemcpy(host_, device_data, bytes, cudaMemcpyDeviceToHost));
}

void StagedBuffer::store(void* device_data) const {
  if (bytes_ == 0) return;
  APSP_CUDA_CHECK(cudaMemcpyAsync(device_data, host_, bytes_, cudaMemcpyHostToDevice, as_stream(stream_)));
  APSP_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream_)));
}

}  // namespace apsp::comm
