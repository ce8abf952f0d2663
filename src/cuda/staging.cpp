#include "staging.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>

#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda {

// A set's buffers are page-locked on their first use, not all at once: a
// download of a few MiB (a part of sources x targets) uses one, and
// page-locking the six (192 MiB) held the first such download for about
// 0.1 s (docs/perf.md, "A part's fixed costs").
struct StagingLease::Set {
  std::mutex in_use;
  // Guards `buffers` alone, apart from in_use: the warm-up thread
  // (prepare_staging) page-locks buffers without waiting for a download that
  // holds in_use, so a rank thread that holds a lease while it waits on
  // another rank never waits on that rank's warm-up in turn.
  std::mutex allocation;
  std::array<std::unique_ptr<PinnedBuffer<std::byte>>, StagingTraits::kBuffers> buffers;
  // Slot's buffer, page-locked now if it was not yet.
  void* buffer(int slot) {
    const std::lock_guard<std::mutex> hold(allocation);
    std::unique_ptr<PinnedBuffer<std::byte>>& b = buffers[static_cast<std::size_t>(slot)];
    if (!b) b = std::make_unique<PinnedBuffer<std::byte>>(StagingTraits::kBufferBytes);
    return b->get();
  }
  PinnedBuffer<unsigned long long> overflow_words{StagingTraits::kBuffers};
  std::array<Stream, StagingTraits::kStreams> streams;
  std::array<Event, StagingTraits::kBuffers> events;
  std::unique_ptr<std::int32_t[]> widen;  // not zero-filled: every use overwrites what it reads
};

namespace {

std::mutex registry_mutex;

// Sets by device ordinal. Deliberately never destroyed at exit: the CUDA
// runtime may already be unloading then; the process exit frees them.
std::map<int, std::unique_ptr<StagingLease::Set>>& registry() {
  static auto* sets = new std::map<int, std::unique_ptr<StagingLease::Set>>;
  return *sets;
}

StagingLease::Set& set_of_current_device() {
  int device = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(registry_mutex);
  std::unique_ptr<StagingLease::Set>& set = registry()[device];
  if (!set) set = std::make_unique<StagingLease::Set>();
  return *set;
}

}  // namespace

StagingLease::StagingLease() : set_(&set_of_current_device()), hold_(set_->in_use) {}

StagingLease::~StagingLease() {
  // Errors are left for the next checked call to report; a destructor cannot throw.
  for (const Stream& s : set_->streams) cudaStreamSynchronize(s.get());
}

void* StagingLease::buffer(int slot) const { return set_->buffer(slot); }
unsigned long long* StagingLease::overflow_word(int slot) const { return set_->overflow_words.get() + slot; }
cudaStream_t StagingLease::stream(int s) const { return set_->streams[static_cast<std::size_t>(s)].get(); }
cudaEvent_t StagingLease::event(int slot) const { return set_->events[static_cast<std::size_t>(slot)].get(); }

std::int32_t* StagingLease::widen_buffer() {
  if (!set_->widen) set_->widen.reset(new std::int32_t[2 * StagingTraits::kBufferBytes / sizeof(std::int32_t)]);
  return set_->widen.get();
}

int staging_buffers_for(std::uint64_t bytes) {
  const std::uint64_t buffers = (bytes + StagingTraits::kBufferBytes - 1) / StagingTraits::kBufferBytes;
  return static_cast<int>(std::clamp<std::uint64_t>(buffers, 1, StagingTraits::kBuffers));
}

void prepare_staging(std::uint64_t bytes) {
  StagingLease::Set& set = set_of_current_device();
  for (int slot = 0; slot < staging_buffers_for(bytes); ++slot) set.buffer(slot);
}

void release_staging() {
  const std::lock_guard<std::mutex> lock(registry_mutex);
  registry().clear();
}

}  // namespace apsp::cuda
