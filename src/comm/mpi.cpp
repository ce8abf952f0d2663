// The mpi communicator: one rank per process, MPI for host buffers; device
// buffers through pinned host staging, or straight to a CUDA-aware MPI.
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <mutex>
#include <string>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/features.hpp"
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
      : Communicator(rank, size), comm_(comm), owned_(owned), device_(device), cuda_aware_(cuda_aware_now()) {}
  ~MpiCommunicator() override {
    int finalized = 1;
    if (owned_ && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Comm_free(&comm_);
  }
  const char* kind() const override { return "mpi"; }
  int device() const override { return device_; }
  std::vector<std::pair<std::string, double>> startup_parts() const override {
    if (init_seconds_ < 0) return {};
    return {{"mpi init", init_seconds_}};
  }
  // The world's: how long MPI's initialization took in this process,
  // whichever call made it.
  double init_seconds_ = -1;

 protected:
  void do_broadcast(void* data, std::size_t bytes, DataType, std::size_t, int root, Memory memory,
                    void* stream) override {
    if (memory == Memory::host || cuda_aware_) return bytes_broadcast(data, bytes, root, memory, stream);
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

}  // namespace comm
}  // namespace apsp
