#include "staging.hpp"

#include <array>
#include <map>
#include <memory>

#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda {

struct StagingLease::Set {
  Set() {
    for (auto& b : buffers) b = std::make_unique<PinnedBuffer<std::byte>>(StagingTraits::kBufferBytes);
  }
  std::mutex in_use;
  std::array<std::unique_ptr<PinnedBuffer<std::byte>>, StagingTraits::kBuffers> buffers;
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

void* StagingLease::buffer(int slot) const { return set_->buffers[static_cast<std::size_t>(slot)]->get(); }
unsigned long long* StagingLease::overflow_word(int slot) const { return set_->overflow_words.get() + slot; }
cudaStream_t StagingLease::stream(int s) const { return set_->streams[static_cast<std::size_t>(s)].get(); }
cudaEvent_t StagingLease::event(int slot) const { return set_->events[static_cast<std::size_t>(slot)].get(); }

std::int32_t* StagingLease::widen_buffer() {
  if (!set_->widen) set_->widen.reset(new std::int32_t[2 * StagingTraits::kBufferBytes / sizeof(std::int32_t)]);
  return set_->widen.get();
}

void prepare_staging() { set_of_current_device(); }

void release_staging() {
  const std::lock_guard<std::mutex> lock(registry_mutex);
  registry().clear();
}

}  // namespace apsp::cuda
