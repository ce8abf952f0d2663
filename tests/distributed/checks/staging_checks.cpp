#include "distributed/checks/staging_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#ifdef APSP_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace apsp::test {
namespace {

// The byte at `i` of call `call` from `root`: every call's data differs, so
// a receiver reading a half that a later call overwrote (or one not yet
// written) sees it.
std::uint8_t pattern(int call, int root, std::size_t i) {
  return static_cast<std::uint8_t>(call * 131 + root * 17 + static_cast<int>(i % 251) * 7 + static_cast<int>(i >> 16));
}

// A buffer of `capacity` bytes in host or device memory.
class Buffer {
 public:
  Buffer(Memory memory, std::size_t capacity, int device) : memory_(memory), host_(capacity) {
#ifdef APSP_WITH_CUDA
    if (memory_ == Memory::device) {
      ok_ = cudaSetDevice(device) == cudaSuccess && cudaMalloc(&device_, capacity) == cudaSuccess;
      return;
    }
#else
    (void)device;
#endif
    ok_ = memory_ == Memory::host;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
#ifdef APSP_WITH_CUDA
    if (device_) cudaFree(device_);
#endif
  }
  bool ok() const { return ok_; }
  std::vector<std::uint8_t>& host() { return host_; }
  // What the communicator gets.
  void* data() { return memory_ == Memory::device ? device_ : host_.data(); }
  // host() -> data() and back, `bytes` of them (no-ops for host memory).
  bool put(std::size_t bytes) {
#ifdef APSP_WITH_CUDA
    // cudaMemcpy from pageable memory may return before the DMA lands on the
    // device; the broadcast's copies on a non-blocking stream are not ordered
    // after it, so wait for it (on the device the test caught exactly that:
    // receivers' buffers overwritten by their own late fill).
    if (memory_ == Memory::device)
      return cudaMemcpy(device_, host_.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaDeviceSynchronize() == cudaSuccess;
#endif
    (void)bytes;
    return true;
  }
  bool get(std::size_t bytes) {
#ifdef APSP_WITH_CUDA
    if (memory_ == Memory::device)
      return cudaDeviceSynchronize() == cudaSuccess &&
             cudaMemcpy(host_.data(), device_, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
#endif
    (void)bytes;
    return true;
  }

 private:
  Memory memory_;
  std::vector<std::uint8_t> host_;
  void* device_ = nullptr;
  bool ok_ = false;
};

}  // namespace

std::int64_t check_staged_broadcasts(Communicator& comm, Memory memory, std::int64_t threshold, int back_to_back,
                                     void* stream) {
  const int p = comm.size(), r = comm.rank();
  const auto t = static_cast<std::size_t>(threshold);
  // Below, at and just above the threshold; growing (1 MiB, then 3 MiB);
  // small ones between; odd sizes.
  std::vector<std::size_t> sizes = {1000, t - 4, t, t + 1, 64 << 10, (1 << 20) + 12, 3, (3 << 20) + 4, t + 999};
  for (int k = 0; k < back_to_back; ++k)
    sizes.push_back(k % 3 == 0 ? (512 << 10) + 4 * k : k % 3 == 1 ? 2 << 20 : 8000);
  std::size_t largest = 0;
  for (const std::size_t s : sizes) largest = std::max(largest, s);
  Buffer buffer(memory, largest, comm.device() >= 0 ? comm.device() : 0);
  // Every rank's buffer, or none: a rank that cannot allocate must not
  // leave the others waiting in a broadcast.
  const bool all_ok = comm.all_reduce(std::int32_t{buffer.ok()}, ReduceOp::min) == 1;
  EXPECT_TRUE(all_ok) << "rank " << r << ": no buffer";
  if (!all_ok) return 0;
  std::int64_t large = 0;
  for (std::size_t call = 0; call < sizes.size(); ++call) {
    const std::size_t bytes = sizes[call];
    const int root = static_cast<int>((call * 5 + call / 3) % static_cast<std::size_t>(p));
    large += bytes >= t ? 1 : 0;
    std::vector<std::uint8_t>& host = buffer.host();
    for (std::size_t i = 0; i < bytes; ++i)
      host[i] = r == root ? pattern(static_cast<int>(call), root, i) : static_cast<std::uint8_t>(0xA5 ^ r);
    EXPECT_TRUE(buffer.put(bytes)) << "rank " << r << ", call " << call;
    comm.broadcast(static_cast<std::uint8_t*>(buffer.data()), bytes, root, memory, stream);
    EXPECT_TRUE(buffer.get(bytes)) << "rank " << r << ", call " << call;
    for (std::size_t i = 0; i < bytes; ++i)
      if (host[i] != pattern(static_cast<int>(call), root, i)) {
        ADD_FAILURE() << "rank " << r << ", call " << call << " (" << bytes << " bytes from rank " << root << "): byte "
                      << i << " is " << int{host[i]} << ", expected " << int{pattern(static_cast<int>(call), root, i)};
        break;
      }
  }
  return large;
}

}  // namespace apsp::test
