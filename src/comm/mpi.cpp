// The mpi communicator: one rank per process, MPI for host buffers; device
// buffers through pinned host staging, or straight to a CUDA-aware MPI.
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/features.hpp"
#include "comm/shared_staging.hpp"
#include "comm/staging.hpp"

namespace apsp {
namespace {

[[noreturn]] void throw_mpi_error(int status, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(status, text, &length) != MPI_SUCCESS) std::snprintf(text, sizeof text, "MPI error %d", status);
  throw DeviceError(call, text, file, line);
}

#define APSP_MPI_CHECK(call)                                                                           \
  do {                                                                                                 \
    const int apsp_mpi_status_ = (call);                                                               \
    if (apsp_mpi_status_ != MPI_SUCCESS) throw_mpi_error(apsp_mpi_status_, #call, __FILE__, __LINE__); \
  } while (0)

// MPI counts are int: long messages go in pieces of at most this many elements.
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;

MPI_Datatype mpi_type(DataType t) {
  switch (t) {
    case DataType::uint8: return MPI_UINT8_T;
    case DataType::int32: return MPI_INT32_T;
    case DataType::int64: return MPI_INT64_T;
    case DataType::float32: return MPI_FLOAT;
    case DataType::float64: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::sum: return MPI_SUM;
  }
  return MPI_MIN;
}

// MPI for the whole process: initialized on first use, finalized at exit
// (unless the program finalized it itself).
class Session {
 public:
  // Returns the seconds MPI's initialization took in this process (0 when
  // the program had initialized it).
  static double ensure() {
    static Session session;
    return session.init_seconds_;
  }

 private:
  Session() {
    int initialized = 0;
    APSP_MPI_CHECK(MPI_Initialized(&initialized));
    if (initialized) {
      int provided = MPI_THREAD_SINGLE;
      APSP_MPI_CHECK(MPI_Query_thread(&provided));
      require_serialized(provided);
      return;
    }
    int provided = MPI_THREAD_SINGLE;
    const auto start = std::chrono::steady_clock::now();
    APSP_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided));
    init_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    owned_ = true;
    require_serialized(provided);
  }
  ~Session() {
    int finalized = 1;
    if (owned_ && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Finalize();
  }
  // The look-ahead thread makes MPI calls while the main thread computes
  // (never two threads at once), which MPI_THREAD_SERIALIZED allows.
  static void require_serialized(int provided) {
    if (provided < MPI_THREAD_SERIALIZED)
      throw ResourceError("the MPI library gives thread level " + std::to_string(provided) +
                          "; apsp needs MPI_THREAD_SERIALIZED");
  }
  bool owned_ = false;
  double init_seconds_ = 0;
};

// Broadcasts through node-shared memory (issue 22, shm8). The staged device
// broadcast through MPI (download into pinned scratch, MPI_Bcast of the
// host copy, upload on every receiver) cost a 32 MB panel about 13 ms on
// four ranks of one node (rounds 9.24 s staged against 4.75 s through NCCL
// over 512 rounds, docs/scaling.md): MPI's shared-memory broadcast of a
// large message goes through its own bounce buffers along a tree. Here
// every rank of the node maps one segment (MPI_Win_allocate_shared) that
// is page-locked for the GPU in each rank's mapping: the root downloads
// its buffer into it, one barrier, every other rank uploads from it. The
// data crosses the host once each way, at the link's speed.
//
// Device broadcasts over CUDA IPC (issue 22, ipc9): the same protocol, the
// halves in the root's own device memory instead. Every rank allocates a
// device buffer of two halves and exports it (cudaIpcGetMemHandle), the
// handles are all-gathered once per allocation and every rank maps the
// others' (cudaIpcOpenMemHandle): the root copies its buffer into its half
// (device to device), one barrier, every other rank copies the root's half
// into its buffer over NVLink (or within the GPU, for ranks sharing one).
// No host copy at all; the shared segment is the fallback.
//
// Broadcasts below kSharedMinBytes keep MPI_Bcast: there its latency is a
// few microseconds, and the halves add a barrier and two copies for
// nothing (the win is on the tens-of-MB panels).
constexpr std::size_t kSharedMinBytes = std::size_t{256} << 10;
// A half holds at most this much; a longer broadcast goes in pieces (and
// the memory stays bounded: 512 MiB of host memory for the segment, 128 MiB
// of device memory a rank for the IPC buffers, which the rounds' memory
// plan does not count).
constexpr std::size_t kSharedMaxHalf = std::size_t{256} << 20;
constexpr std::size_t kIpcMaxHalf = std::size_t{64} << 20;

std::atomic<bool> host_broadcasts_shared{false};
std::atomic<std::size_t> max_half_for_tests{0};  // 0: each kind's own cap
std::atomic<int> ipc_failing_rank{-1};           // comm::testing::fail_ipc_staging_on_rank

std::atomic<std::int64_t> shared_broadcasts{0};
std::atomic<std::int64_t> shared_windows{0};
std::atomic<std::int64_t> ipc_broadcasts{0};
std::atomic<std::int64_t> ipc_allocations{0};

// APSP_STAGING: how the mpi communicator stages device broadcasts when
// MPI is not CUDA-aware: `ipc` (the default) through the ranks' device
// buffers over CUDA IPC, else the shared segment; `shared` through the
// node-shared segment, else MPI_Bcast; `mpi` through MPI_Bcast of a pinned
// host copy (the path before shm8, for the A/B).
enum class Staging { ipc, shared, mpi };

Staging staging_asked() {
  const char* given = std::getenv("APSP_STAGING");
  if (!given || !*given || std::string(given) == "ipc") return Staging::ipc;
  if (std::string(given) == "shared") return Staging::shared;
  if (std::string(given) == "mpi") return Staging::mpi;
  throw UsageError(std::string("APSP_STAGING must be ipc, shared or mpi, got '") + given + "'");
}

// The ranks of one communicator, for the staging's collective steps.
struct Group {
  MPI_Comm comm;
  int rank;
  int size;

  // Every rank's `ok`, the smallest.
  bool all_ok(bool ok) const {
    int value = ok ? 1 : 0;
    APSP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, comm));
    return value == 1;
  }

  // True on every rank when all of them are on one node (ranks spanning
  // nodes all see a node smaller than the communicator).
  bool one_node() const {
    MPI_Comm node = MPI_COMM_NULL;
    APSP_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int node_size = 0;
    const int sized = MPI_Comm_size(node, &node_size);
    APSP_MPI_CHECK(MPI_Comm_free(&node));
    APSP_MPI_CHECK(sized);
    return node_size == size;
  }

  // Collective teardown where every rank reaches it in the same place: not
  // while an exception unwinds this thread (a rank that failed alone, the
  // others waiting for it in a collective, would hang here instead of
  // reaching the abort that stops them; ranks that failed together all
  // skip it alike), nor once MPI is finalized. What is skipped is released
  // when the process ends.
  static bool may_tear_down() {
    int finalized = 1;
    return std::uncaught_exceptions() == 0 && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized;
  }
};

// Where a staged broadcast's two halves live (HalvesBroadcast below).
class Halves {
 public:
  virtual ~Halves() = default;
  // For the summary's startup parts: "shared segment", "ipc buffers".
  virtual const char* name() const = 0;
  // What carries the broadcasts when these halves cannot.
  virtual const char* fallback() const = 0;
  // Halves of `half` bytes each in place of the old ones. Collective;
  // false on every rank when some rank could not make them (none are left
  // then).
  virtual bool make(std::size_t half) = 0;
  // What `memory` needs before a broadcast (the segment: page-locked for
  // device buffers). Collective where it does anything; false on every
  // rank when it failed (no halves are left then).
  virtual bool ready_for(Memory) { return true; }
  // The root: `bytes` of `data` into its half `which`, complete when it
  // returns (what the others read after the barrier).
  virtual void write(int which, const void* data, std::size_t bytes, Memory memory, void* stream) = 0;
  // Any other rank: `bytes` of the root's half `which` into `data`,
  // complete when it returns.
  virtual void read(int which, int root, void* data, std::size_t bytes, Memory memory, void* stream) = 0;
};

// The protocol of the staged broadcasts, over either kind of halves: made
// at the communicator's first broadcast that can use them (every rank makes
// that call: the choice depends only on the size, the memory kind and
// settings that every rank has alike) and grown, always collectively, when
// a larger broadcast comes. The two halves take turns.
//
// One barrier a broadcast is enough (counting steps: a broadcast, or each
// piece of a longer one than a half holds): step k writes half k % 2 of its
// root (the root, before the barrier of k) and reads it (the others, after
// it). The root of step k + 2 writes its half k % 2 only after the barrier
// of step k + 1, which every rank enters only once its read of step k is
// done (its copy is waited for before the call returns), so no write
// overtakes a read. Step k + 1 in the meantime uses the other half, whose
// last readers (of k - 1) finished before the barrier of k. Whether the
// halves are one host segment that every root writes (shared) or each
// root's own device buffer (ipc) changes nothing: a root of step k + 2
// other than k's writes another buffer. Broadcasts through MPI_Bcast in
// between (small ones) touch no half.
//
// A failure making the halves on any rank is every rank's (one
// all-reduce), and they all fall back for the rest of the communicator's
// life.
class HalvesBroadcast {
 public:
  HalvesBroadcast(Group group, std::unique_ptr<Halves> halves, std::size_t cap, std::atomic<std::int64_t>& carried,
                  std::atomic<std::int64_t>& made)
      : group_(group), halves_(std::move(halves)), cap_(cap), carried_(carried), made_(made) {}
  HalvesBroadcast(const HalvesBroadcast&) = delete;
  HalvesBroadcast& operator=(const HalvesBroadcast&) = delete;

  // For the summary's startup parts: the time making and growing the halves
  // took (inside the first staged rounds), or that they could not be used;
  // nothing before a broadcast tried them.
  std::vector<std::pair<std::string, double>> parts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!tried_) return {};
    const std::string name = halves_->name();
    if (!one_node_) return {{std::string("staging: ") + halves_->fallback() + " (ranks on several nodes)", 0}};
    if (off_) return {{std::string("staging: ") + halves_->fallback() + " (no " + name + ")", setup_seconds_}};
    return {{"staging: " + name + " setup (in the rounds)", setup_seconds_}};
  }

  // True when `bytes` went from `root` to every rank through the halves;
  // false when the caller must broadcast them another way (the same answer
  // on every rank).
  bool broadcast(void* data, std::size_t bytes, int root, Memory memory, void* stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (group_.size < 2 || bytes < kSharedMinBytes || off_) return false;
    if (!tried_) {
      tried_ = true;
      one_node_ = group_.one_node();
      off_ = !one_node_;
    }
    const auto start = std::chrono::steady_clock::now();
    const std::size_t given = max_half_for_tests.load();
    const std::size_t cap = given > 0 ? given : cap_;
    if (!off_ && std::min(bytes, cap) > half_) off_ = !grow(std::min(bytes, cap), cap);
    if (!off_) off_ = !halves_->ready_for(memory);
    setup_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (off_) return false;
    auto* p = static_cast<unsigned char*>(data);
    const std::size_t piece = std::min(half_, cap);
    for (std::size_t at = 0; at < bytes; at += piece) step(p + at, std::min(piece, bytes - at), root, memory, stream);
    ++carried_;
    return true;
  }

 private:
  // Halves of `wanted` bytes (at least, doubling up to `cap`) in place of
  // the old ones. Collective.
  bool grow(std::size_t wanted, std::size_t cap) {
    constexpr std::size_t page = 4096;
    const std::size_t half = (std::min(cap, std::max(wanted, 2 * half_)) + page - 1) / page * page;
    half_ = 0;
    if (!halves_->make(half)) return false;
    half_ = half;
    ++made_;
    return true;
  }

  // One piece of at most half_ bytes through the next half.
  void step(unsigned char* data, std::size_t bytes, int root, Memory memory, void* stream) {
    const int which = next_half_ ? 1 : 0;
    next_half_ = !next_half_;
    if (group_.rank == root) halves_->write(which, data, bytes, memory, stream);
    APSP_MPI_CHECK(MPI_Barrier(group_.comm));
    if (group_.rank != root) halves_->read(which, root, data, bytes, memory, stream);
  }

  Group group_;
  std::unique_ptr<Halves> halves_;
  std::size_t cap_;
  std::atomic<std::int64_t>& carried_;  // broadcasts carried (the testing counts)
  std::atomic<std::int64_t>& made_;     // halves made
  mutable std::mutex mutex_;
  bool tried_ = false;     // one_node() asked
  bool one_node_ = false;  // its answer
  bool off_ = false;       // every broadcast another way from here on
  double setup_seconds_ = 0;
  std::size_t half_ = 0;
  bool next_half_ = false;
};

// The node-shared host segment: rank 0 allocates it, every rank maps it
// and page-locks its mapping for device buffers.
class SegmentHalves final : public Halves {
 public:
  explicit SegmentHalves(Group group) : group_(group) {}
  // Collective (MPI_Win_free) where Group::may_tear_down says so.
  ~SegmentHalves() override {
    try {
      if (pinned_) comm::unpin_host(base_);
    } catch (...) {
    }
    pinned_ = false;
    if (window_ == MPI_WIN_NULL || !Group::may_tear_down()) return;
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
  }
  const char* name() const override { return "shared segment"; }
  const char* fallback() const override { return "MPI_Bcast"; }

  bool make(std::size_t half) override {
    release();
    // Rank 0 allocates the whole segment; the others map it.
    const MPI_Aint mine = group_.rank == 0 ? static_cast<MPI_Aint>(2 * half) : 0;
    void* own = nullptr;
    MPI_Win window = MPI_WIN_NULL;
    const int made = MPI_Win_allocate_shared(mine, 1, MPI_INFO_NULL, group_.comm, &own, &window);
    // A window made on some ranks but not on others cannot be freed (that
    // is collective over all): it is left to MPI's finalization.
    if (!group_.all_ok(made == MPI_SUCCESS)) return false;
    APSP_MPI_CHECK(MPI_Win_set_errhandler(window, MPI_ERRORS_RETURN));
    MPI_Aint bytes = 0;
    int unit = 0;
    void* base = nullptr;
    APSP_MPI_CHECK(MPI_Win_shared_query(window, 0, &bytes, &unit, &base));
    // Passive target for the window's life: the loads and stores below are
    // ordered by MPI_Win_sync and the barrier (the separate memory model's
    // way for shared windows).
    APSP_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, window));
    window_ = window;
    base_ = static_cast<unsigned char*>(base);
    half_ = half;
    return true;
  }

  // Device buffers: page-locks each rank's mapping of the whole segment.
  // Collective.
  bool ready_for(Memory memory) override {
    if (memory == Memory::host || pinned_) return true;
    const bool mine = comm::pin_host(base_, 2 * half_);
    if (group_.all_ok(mine)) return pinned_ = true;
    if (mine) comm::unpin_host(base_);
    release();
    return false;
  }

  void write(int which, const void* data, std::size_t bytes, Memory memory, void* stream) override {
    unsigned char* half = base_ + (which ? half_ : 0);
    if (memory == Memory::device)
      comm::download(half, data, bytes, stream);
    else
      std::memcpy(half, data, bytes);
    APSP_MPI_CHECK(MPI_Win_sync(window_));
  }

  void read(int which, int, void* data, std::size_t bytes, Memory memory, void* stream) override {
    const unsigned char* half = base_ + (which ? half_ : 0);
    APSP_MPI_CHECK(MPI_Win_sync(window_));
    if (memory == Memory::device)
      comm::upload(data, half, bytes, stream);
    else
      std::memcpy(data, half, bytes);
  }

 private:
  // Frees the window. Collective.
  void release() {
    if (window_ == MPI_WIN_NULL) return;
    if (pinned_) comm::unpin_host(base_);
    pinned_ = false;
    APSP_MPI_CHECK(MPI_Win_unlock_all(window_));
    APSP_MPI_CHECK(MPI_Win_free(&window_));
    window_ = MPI_WIN_NULL;
    base_ = nullptr;
    half_ = 0;
  }

  Group group_;
  MPI_Win window_ = MPI_WIN_NULL;
  unsigned char* base_ = nullptr;  // this rank's mapping of the segment
  std::size_t half_ = 0;
  bool pinned_ = false;
};

// Each rank's device buffer of two halves, mapped by every other rank over
// CUDA IPC. Device buffers only.
class IpcHalves final : public Halves {
 public:
  IpcHalves(Group group, int device) : group_(group), device_(device) {}
  // This rank's mappings of the others' buffers are closed (local); its own
  // buffer is freed after a barrier, once every rank has closed its mapping
  // of it (freeing an exported buffer that another process still maps is
  // undefined), where Group::may_tear_down says so: else it is left to the
  // process's end.
  ~IpcHalves() override {
    // A mapping that fails to close (the CUDA runtime unloading at exit)
    // must not keep this rank from the barrier the others wait in.
    for (unsigned char*& peer : peers_) {
      try {
        if (peer) comm::ipc_close(peer);
      } catch (...) {
      }
      peer = nullptr;
    }
    if (!own_ || !Group::may_tear_down() || MPI_Barrier(group_.comm) != MPI_SUCCESS) return;
    try {
      comm::ipc_free(own_);
    } catch (...) {
    }
  }
  const char* name() const override { return "ipc buffers"; }
  const char* fallback() const override { return "shared segment"; }

  bool make(std::size_t half) override {
    release();
    if (device_ < 0) device_ = comm::current_device();
    comm::IpcHandle mine;
    void* own = nullptr;
    const bool failing = ipc_failing_rank.load() == group_.rank;
    const bool made = !failing && comm::ipc_allocate(2 * half, device_, &own, &mine);
    if (!group_.all_ok(made)) {
      if (own) comm::ipc_free(own);  // nobody mapped it
      return false;
    }
    own_ = static_cast<unsigned char*>(own);
    std::vector<comm::IpcHandle> handles(static_cast<std::size_t>(group_.size));
    constexpr int handle_bytes = static_cast<int>(sizeof(comm::IpcHandle));
    APSP_MPI_CHECK(MPI_Allgather(&mine, handle_bytes, MPI_BYTE, handles.data(), handle_bytes, MPI_BYTE, group_.comm));
    peers_.assign(handles.size(), nullptr);
    bool opened = true;
    for (int r = 0; r < group_.size; ++r) {
      if (r == group_.rank) continue;
      peers_[static_cast<std::size_t>(r)] = static_cast<unsigned char*>(comm::ipc_open(handles[r], device_));
      opened = opened && peers_[static_cast<std::size_t>(r)] != nullptr;
    }
    half_ = half;
    if (group_.all_ok(opened)) return true;
    release();
    return false;
  }

  void write(int which, const void* data, std::size_t bytes, Memory, void* stream) override {
    comm::ipc_copy(own_ + (which ? half_ : 0), data, bytes, stream);
  }

  void read(int which, int root, void* data, std::size_t bytes, Memory, void* stream) override {
    comm::ipc_copy(data, peers_[static_cast<std::size_t>(root)] + (which ? half_ : 0), bytes, stream);
  }

 private:
  void close_peers() {
    for (unsigned char*& peer : peers_) {
      if (peer) comm::ipc_close(peer);
      peer = nullptr;
    }
  }

  // Closes this rank's mappings, then (a barrier: every rank's are closed)
  // frees its own buffer. Collective.
  void release() {
    if (!own_) return;
    close_peers();
    APSP_MPI_CHECK(MPI_Barrier(group_.comm));
    comm::ipc_free(own_);
    own_ = nullptr;
    half_ = 0;
  }

  Group group_;
  int device_;                         // the buffers' (-1: the current one at the first make)
  unsigned char* own_ = nullptr;       // this rank's buffer, exported
  std::vector<unsigned char*> peers_;  // the others' buffers, mapped (nullptr for this rank)
  std::size_t half_ = 0;
};

bool cuda_aware_now() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(MPI_Comm comm, bool owned, int rank, int size, int device)
      : Communicator(rank, size),
        comm_(comm),
        owned_(owned),
        device_(device),
        cuda_aware_(cuda_aware_now()),
        staging_(staging_asked()),
        segment_(std::make_unique<HalvesBroadcast>(Group{comm, rank, size},
                                                   std::make_unique<SegmentHalves>(Group{comm, rank, size}),
                                                   kSharedMaxHalf, shared_broadcasts, shared_windows)),
        ipc_(std::make_unique<HalvesBroadcast>(Group{comm, rank, size},
                                               std::make_unique<IpcHalves>(Group{comm, rank, size}, device),
                                               kIpcMaxHalf, ipc_broadcasts, ipc_allocations)) {}
  ~MpiCommunicator() override {
    // The staging's halves (each with its own rule for when it frees them)
    // before the communicator.
    ipc_.reset();
    segment_.reset();
    int finalized = 1;
    if (owned_ && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Comm_free(&comm_);
  }
  const char* kind() const override { return "mpi"; }
  int device() const override { return device_; }
  std::vector<std::pair<std::string, double>> startup_parts() const override {
    std::vector<std::pair<std::string, double>> parts = ipc_->parts();
    const auto shared = segment_->parts();
    parts.insert(parts.end(), shared.begin(), shared.end());
    if (init_seconds_ >= 0) parts.insert(parts.begin(), {"mpi init", init_seconds_});
    return parts;
  }
  // The world's: how long MPI's initialization took in this process,
  // whichever call made it.
  double init_seconds_ = -1;

 protected:
  void do_broadcast(void* data, std::size_t bytes, DataType, std::size_t, int root, Memory memory,
                    void* stream) override {
    if (memory == Memory::host) {
      if (host_broadcasts_shared.load() && segment_->broadcast(data, bytes, root, memory, stream)) return;
      return bytes_broadcast(data, bytes, root, memory, stream);
    }
    if (cuda_aware_) return bytes_broadcast(data, bytes, root, memory, stream);
    // Device buffers: the IPC buffers, else the shared segment, else
    // MPI_Bcast of a pinned host copy (each falls back to the next for
    // the communicator's life; APSP_STAGING starts lower).
    if (staging_ == Staging::ipc && ipc_->broadcast(data, bytes, root, memory, stream)) return;
    if (staging_ != Staging::mpi && segment_->broadcast(data, bytes, root, memory, stream)) return;
    comm::StagedBuffer staged(data, bytes, stream, rank() == root);
    bytes_broadcast(staged.host(), bytes, root, Memory::host, stream);
    if (rank() != root) staged.store(data);
  }

  void do_send(const void* data, std::size_t bytes, int peer, Memory memory, void* stream) override {
    if (memory == Memory::host || cuda_aware_) return bytes_send(data, bytes, peer, memory, stream);
    comm::StagedBuffer staged(data, bytes, stream, true);
    bytes_send(staged.host(), bytes, peer, Memory::host, stream);
  }

  void do_receive(void* data, std::size_t bytes, int peer, Memory memory, void* stream) override {
    if (memory == Memory::host || cuda_aware_) return bytes_receive(data, bytes, peer, memory, stream);
    comm::StagedBuffer staged(data, bytes, stream, false);
    bytes_receive(staged.host(), bytes, peer, Memory::host, stream);
    staged.store(data);
  }

  void do_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op, Memory memory,
                     void* stream) override {
    if (memory == Memory::host || cuda_aware_) return typed_all_reduce(input, output, count, type, op, memory, stream);
    comm::StagedBuffer staged(input, count * data_type_bytes(type), stream, true);
    typed_all_reduce(staged.host(), staged.host(), count, type, op, Memory::host, stream);
    staged.store(output);
  }

  void do_barrier() override { APSP_MPI_CHECK(MPI_Barrier(comm_)); }

  std::unique_ptr<Communicator> do_split(int color, int key) override {
    MPI_Comm part = MPI_COMM_NULL;
    APSP_MPI_CHECK(MPI_Comm_split(comm_, color, key, &part));
    APSP_MPI_CHECK(MPI_Comm_set_errhandler(part, MPI_ERRORS_RETURN));
    int part_rank = 0, part_size = 0;
    APSP_MPI_CHECK(MPI_Comm_rank(part, &part_rank));
    APSP_MPI_CHECK(MPI_Comm_size(part, &part_size));
    return std::make_unique<MpiCommunicator>(part, true, part_rank, part_size, device_);
  }

  std::unique_ptr<SharedCounter> do_make_counter() override;

  void do_abort(int exit_code) noexcept override { MPI_Abort(MPI_COMM_WORLD, exit_code); }

 private:
  // A CUDA-aware MPI reads device memory once the stream's work is done.
  static void wait_for(Memory memory, void* stream) {
    if (memory == Memory::device) comm::wait_for_stream(stream);
  }

  void bytes_broadcast(void* data, std::size_t bytes, int root, Memory memory, void* stream) {
    wait_for(memory, stream);
    auto* p = static_cast<unsigned char*>(data);
    for (std::size_t at = 0; at < bytes; at += kMaxPiece)
      APSP_MPI_CHECK(MPI_Bcast(p + at, static_cast<int>(std::min(kMaxPiece, bytes - at)), MPI_BYTE, root, comm_));
  }

  void bytes_send(const void* data, std::size_t bytes, int peer, Memory memory, void* stream) {
    wait_for(memory, stream);
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t at = 0;
    do {
      const int piece = static_cast<int>(std::min(kMaxPiece, bytes - at));
      APSP_MPI_CHECK(MPI_Send(p + at, piece, MPI_BYTE, peer, 0, comm_));
      at += static_cast<std::size_t>(piece);
    } while (at < bytes);
  }

  void bytes_receive(void* data, std::size_t bytes, int peer, Memory memory, void* stream) {
    wait_for(memory, stream);
    auto* p = static_cast<unsigned char*>(data);
    std::size_t at = 0;
    do {
      const int piece = static_cast<int>(std::min(kMaxPiece, bytes - at));
      MPI_Status status;
      APSP_MPI_CHECK(MPI_Recv(p + at, piece, MPI_BYTE, peer, 0, comm_, &status));
      int got = 0;
      APSP_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &got));
      if (got != piece)
        throw UsageError("receive of " + std::to_string(bytes) + " bytes from rank " + std::to_string(peer) +
                         " got a message of " + std::to_string(got));
      at += static_cast<std::size_t>(piece);
    } while (at < bytes);
  }

  void typed_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op, Memory memory,
                        void* stream) {
    wait_for(memory, stream);
    const std::size_t element = data_type_bytes(type);
    for (std::size_t at = 0; at < count; at += kMaxPiece) {
      const int piece = static_cast<int>(std::min(kMaxPiece, count - at));
      void* out = static_cast<unsigned char*>(output) + at * element;
      const void* in = input == output ? MPI_IN_PLACE : static_cast<const unsigned char*>(input) + at * element;
      APSP_MPI_CHECK(MPI_Allreduce(in, out, piece, mpi_type(type), mpi_op(op), comm_));
    }
  }

  MPI_Comm comm_;
  bool owned_;
  int device_;
  bool cuda_aware_;
  Staging staging_;                           // how device broadcasts go (APSP_STAGING)
  std::unique_ptr<HalvesBroadcast> segment_;  // the node-shared host segment
  std::unique_ptr<HalvesBroadcast> ipc_;      // the ranks' device buffers over CUDA IPC
};

// The counter: one int64 in an MPI window on rank 0 that every rank updates
// with MPI_Fetch_and_op (one-sided, passive target: rank 0 need not take
// part). A lock_all epoch is open for the counter's life. Calls of one
// rank's threads are serialized (MPI_THREAD_SERIALIZED).
class MpiCounter final : public SharedCounter {
 public:
  explicit MpiCounter(MPI_Comm comm) {
    int rank = 0;
    APSP_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    const MPI_Aint bytes = rank == 0 ? static_cast<MPI_Aint>(sizeof(std::int64_t)) : 0;
    std::int64_t* base = nullptr;
    APSP_MPI_CHECK(MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, comm, &base, &window_));
    if (rank == 0) *base = 0;
    APSP_MPI_CHECK(MPI_Win_set_errhandler(window_, MPI_ERRORS_RETURN));
    // Rank 0's zero is in the window before any rank's first update.
    APSP_MPI_CHECK(MPI_Barrier(comm));
    APSP_MPI_CHECK(MPI_Win_lock_all(0, window_));
  }
  MpiCounter(const MpiCounter&) = delete;
  MpiCounter& operator=(const MpiCounter&) = delete;
  ~MpiCounter() override {
    int finalized = 1;
    if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return;
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
  }

  std::int64_t fetch_add(std::int64_t k) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::int64_t before = 0;
    APSP_MPI_CHECK(MPI_Fetch_and_op(&k, &before, MPI_INT64_T, 0, 0, MPI_SUM, window_));
    APSP_MPI_CHECK(MPI_Win_flush(0, window_));
    return before;
  }

 private:
  MPI_Win window_ = MPI_WIN_NULL;
  std::mutex mutex_;
};

std::unique_ptr<SharedCounter> MpiCommunicator::do_make_counter() { return std::make_unique<MpiCounter>(comm_); }

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator(int device) {
  const double init_seconds = Session::ensure();
  comm::use_device(device);
  APSP_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank = 0, size = 0;
  APSP_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  APSP_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  auto world = std::make_unique<MpiCommunicator>(MPI_COMM_WORLD, false, rank, size, device);
  world->init_seconds_ = init_seconds;
  return world;
}

namespace comm {

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "MPI";
  std::string version(text, static_cast<std::size_t>(std::max(0, length)));
  version = version.substr(0, version.find_first_of("\r\n"));
  const std::size_t comma = version.find(',');
  return comma == std::string::npos ? version : version.substr(0, comma);
}

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return true;
#else
  return false;
#endif
}

namespace testing {

void stage_host_broadcasts(bool on) { host_broadcasts_shared = on; }

void set_shared_staging_piece_bytes(std::int64_t bytes) {
  max_half_for_tests = bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
}

void fail_ipc_staging_on_rank(int rank) { ipc_failing_rank = rank; }

SharedStagingCounts shared_staging_counts() {
  return {shared_broadcasts.load(), shared_windows.load(), ipc_broadcasts.load(), ipc_allocations.load()};
}

std::int64_t shared_staging_min_bytes() { return static_cast<std::int64_t>(kSharedMinBytes); }

}  // namespace testing

}  // namespace comm
}  // namespace apsp
