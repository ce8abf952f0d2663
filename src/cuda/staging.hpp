// Reusable download resources, one set per device: page-locked staging
// buffers, two copy streams and one event per buffer. Page-locking memory
// costs far more than the copies it serves (tens of ms per hundred MiB), so
// a set is allocated on a device's first download and kept for the process;
// the total is bounded by StagingTraits. Host-only (no device code).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace apsp::cuda {

struct StagingTraits {
  // One pinned buffer holds one row block in transit.
  static constexpr std::size_t kBufferBytes = std::size_t{32} << 20;
  // Buffers in flight: copies queue on the copy engine while the host puts
  // the oldest finished block into the sink.
  static constexpr int kBuffers = 6;
  // Consecutive blocks alternate streams, so a block's device-side widening
  // or un-reweighting overlaps the previous block's copy.
  static constexpr int kStreams = 2;

  static_assert(kBufferBytes % 4096 == 0, "buffers are whole pages");
  static_assert(kBufferBytes >= (std::size_t{1} << 20), "a buffer must hold at least one row of a large matrix");
  static_assert(kStreams == 2, "the download alternates two streams");
  static_assert(kBuffers >= 2 * kStreams, "each stream keeps at least two copies in flight");
  static_assert(kBuffers * kBufferBytes <= (std::size_t{512} << 20), "pinned staging stays bounded");
};

// Exclusive use of the current device's staging set for one download.
// Construction waits while another thread's download on the same device
// holds it, and creates the set (streams, events) on first use; buffer()
// page-locks a slot's buffer on its first use (throws ResourceError when
// page-locked memory cannot be had). Destruction waits for both streams, so
// the buffers are idle when the next holder gets them, even after an error.
class StagingLease {
 public:
  StagingLease();
  StagingLease(const StagingLease&) = delete;
  StagingLease& operator=(const StagingLease&) = delete;
  ~StagingLease();

  // kBufferBytes of page-locked host memory (page-locked on the slot's first use).
  void* buffer(int slot) const;
  // A page-locked word per buffer for the block's overflow report.
  unsigned long long* overflow_word(int slot) const;
  cudaStream_t stream(int s) const;
  cudaEvent_t event(int slot) const;
  // 2 * kBufferBytes of ordinary host memory for widening int16 blocks when
  // the sink has no memory of its own to widen into; allocated on first call.
  std::int32_t* widen_buffer();

  struct Set;

 private:
  Set* set_;
  std::unique_lock<std::mutex> hold_;
};

// The staging buffers a download of `bytes` link bytes uses: one per
// kBufferBytes, at least 1 and at most kBuffers.
int staging_buffers_for(std::uint64_t bytes);

// Allocates the current device's staging set now, with the buffers that a
// download of `bytes` link bytes uses (staging_buffers_for; idempotent, and
// the default is every buffer), e.g. from a host thread while the device
// computes, so the first download does not pay for page-locking. A download
// page-locks any other buffer it uses on first use.
void prepare_staging(std::uint64_t bytes = std::uint64_t{StagingTraits::kBuffers} * StagingTraits::kBufferBytes);

// Frees every device's staging set (for leak checkers and benchmarks that
// time the first allocation). No download may be running.
void release_staging();

}  // namespace apsp::cuda
