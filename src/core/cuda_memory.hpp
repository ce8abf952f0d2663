// RAII owners for device memory, pinned host memory, streams and events.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"

namespace apsp::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) APSP_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// A device copy of `host`, queued on `stream`; at least one element, so that
// an empty list still has an address.
template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer<T> device(host.size() > 0 ? host.size() : 1);
  if (!host.empty())
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(device.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return device;
}

// Page-locked host memory, so copies run asynchronously at full PCIe rate.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count > 0) APSP_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// A stream's scheduling priority: `highest` is the current device's greatest
// (cudaDeviceGetStreamPriorityRange): the block scheduler starts its waiting
// blocks ahead of those of `normal` streams (it does not preempt running
// ones).
enum class StreamPriority { normal, highest };

class Stream {
 public:
  explicit Stream(StreamPriority priority = StreamPriority::normal) {
    int least = 0, greatest = 0;
    APSP_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    APSP_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking,
                                                 priority == StreamPriority::highest ? greatest : least));
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }
  void synchronize() const { APSP_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { APSP_CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t s) const { APSP_CUDA_CHECK(cudaEventRecord(event_, s)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// Milliseconds between two recorded events (synchronizes on `end`).
inline float elapsed_ms(const Event& begin, const Event& end) {
  APSP_CUDA_CHECK(cudaEventSynchronize(end.get()));
  float ms = 0;
  APSP_CUDA_CHECK(cudaEventElapsedTime(&ms, begin.get(), end.get()));
  return ms;
}

// Throws ResourceError naming the need when `bytes` more device memory cannot fit.
inline void require_device_memory(std::size_t bytes, const std::string& what) {
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > free_bytes) {
    const double gib = 1024.0 * 1024.0 * 1024.0;
    throw ResourceError(what + " needs " + std::to_string(bytes / gib).substr(0, 6) + " GiB of device memory; " +
                        std::to_string(free_bytes / gib).substr(0, 6) + " GiB free of " +
                        std::to_string(total_bytes / gib).substr(0, 6) + " GiB");
  }
}

}  // namespace apsp::cuda
