// The communicator interface: argument checks and call timing shared by every
// kind, the element types, and the process-level helpers (launch detection,
// what this build has, running a local group on threads).
#include "apsp/comm.hpp"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

#include "apsp/error.hpp"
#include "comm/features.hpp"
#include "comm/transport.hpp"

namespace apsp {

std::size_t data_type_bytes(DataType t) {
  switch (t) {
    case DataType::uint8: return 1;
    case DataType::int32: return 4;
    case DataType::int64: return 8;
    case DataType::float32: return 4;
    case DataType::float64: return 8;
  }
  return 1;
}

const char* to_string(DataType t) {
  switch (t) {
    case DataType::uint8: return "uint8";
    case DataType::int32: return "int32";
    case DataType::int64: return "int64";
    case DataType::float32: return "float32";
    case DataType::float64: return "float64";
  }
  return "?";
}

namespace {

std::size_t byte_count(std::size_t count, DataType type) {
  const std::size_t element = data_type_bytes(type);
  if (count > std::numeric_limits<std::size_t>::max() / element)
    throw UsageError("a message of " + std::to_string(count) + " " + to_string(type) + " elements is too large");
  return count * element;
}

}  // namespace

template <class F>
void Communicator::timed(F&& call) {
  const auto start = std::chrono::steady_clock::now();
  struct Account {
    std::atomic<std::int64_t>& total;
    std::chrono::steady_clock::time_point start;
    ~Account() {
      total += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    }
  } account{nanoseconds_in_calls_, start};
  call();
}

void Communicator::check_rank(int r, const char* role) const {
  if (r < 0 || r >= size_)
    throw UsageError(std::string(role) + " rank " + std::to_string(r) + " is outside this " + kind() +
                     " communicator of " + std::to_string(size_) + " ranks");
}

void Communicator::check_memory(Memory memory) const {
#if !APSP_WITH_CUDA
  // The build's CUDA switch (a compile definition), not cuda::compiled_in():
  // comm sits below the CUDA backend and does not call it.
  if (memory == Memory::device)
    throw ResourceError(std::string("a device buffer was passed to the ") + kind() +
                        " communicator, but this build of apsp has no CUDA");
#else
  (void)memory;
#endif
}

void Communicator::broadcast(void* data, std::size_t count, DataType type, int root, Memory memory, void* stream) {
  check_rank(root, "broadcast root");
  check_memory(memory);
  const std::size_t bytes = byte_count(count, type);
  timed([&] { do_broadcast(data, bytes, type, count, root, memory, stream); });
}

void Communicator::send(const void* data, std::size_t count, DataType type, int peer, Memory memory, void* stream) {
  check_rank(peer, "send destination");
  check_memory(memory);
  const std::size_t bytes = byte_count(count, type);
  timed([&] { do_send(data, bytes, peer, memory, stream); });
}

void Communicator::receive(void* data, std::size_t count, DataType type, int peer, Memory memory, void* stream) {
  check_rank(peer, "receive source");
  check_memory(memory);
  const std::size_t bytes = byte_count(count, type);
  timed([&] { do_receive(data, bytes, peer, memory, stream); });
}

void Communicator::all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op,
                              Memory memory, void* stream) {
  check_memory(memory);
  byte_count(count, type);
  timed([&] { do_all_reduce(input, output, count, type, op, memory, stream); });
}

void Communicator::barrier() {
  timed([&] { do_barrier(); });
}

std::unique_ptr<Communicator> Communicator::split(int color, int key) {
  if (color < 0) throw UsageError("split color must be >= 0, got " + std::to_string(color));
  std::unique_ptr<Communicator> part;
  timed([&] { part = do_split(color, key); });
  return part;
}

std::unique_ptr<SharedCounter> Communicator::make_counter() {
  std::unique_ptr<SharedCounter> counter;
  timed([&] { counter = do_make_counter(); });
  return counter;
}

void Communicator::abort(int exit_code) noexcept { do_abort(exit_code); }

bool Communicator::advance_transport(std::int64_t round) {
  if (round < 0) throw UsageError("advance_transport: round " + std::to_string(round) + " is negative");
  if (switch_round_.load() >= 0 || !do_stages_until_ready()) return true;
  if (!do_switches_transport()) return false;
  bool switched = false;
  timed([&] {
    // Every rank's answer, the smallest: 1 once all are ready. Then every
    // rank switches at this same call.
    std::int64_t ready = do_transport_ready() ? 1 : 0;
    do_all_reduce(&ready, &ready, 1, DataType::int64, ReduceOp::min, Memory::host, nullptr);
    if (ready == 0) return;
    do_switch_transport();
    switch_round_.store(round);
    switched = true;
  });
  return switched;
}

CommSupport comm_support() {
  CommSupport s;
  s.mpi_library = comm::mpi_library_version();
  s.mpi = !s.mpi_library.empty();
  s.cuda_aware_mpi = s.mpi && comm::mpi_is_cuda_aware();
  s.nccl_version = comm::nccl_version();
  s.nccl = !s.nccl_version.empty();
  return s;
}

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    const char* value = std::getenv(name);
    if (value && *value) return true;
  }
  return false;
}

std::unique_ptr<Communicator> make_nccl_communicator(int device, DeviceCalls calls) {
  if (comm::nccl_version().empty())
    throw ResourceError("the nccl communicator needs NCCL; this build of apsp has none");
  if (device < 0)
    throw UsageError("the nccl communicator needs a CUDA device, got " + std::to_string(device), "device");
  return comm::make_nccl_over(make_mpi_communicator(), device, calls);
}

void run_on_threads(const std::vector<std::unique_ptr<Communicator>>& group,
                    const std::function<void(Communicator&)>& body) {
  std::mutex mutex;
  std::exception_ptr first;          // the first failure of a body
  std::exception_ptr first_aborted;  // a body that failed only because another aborted
  std::vector<std::thread> threads;
  threads.reserve(group.size());
  for (const auto& comm : group)
    threads.emplace_back([&, c = comm.get()] {
      try {
        body(*c);
      } catch (const CommAborted&) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!first_aborted) first_aborted = std::current_exception();
      } catch (...) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (!first) first = std::current_exception();
        }
        c->abort(1);
      }
    });
  for (std::thread& t : threads) t.join();
  if (first) std::rethrow_exception(first);
  if (first_aborted) std::rethrow_exception(first_aborted);
}

}  // namespace apsp
