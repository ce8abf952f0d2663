// Private to src/comm: device-buffer collectives of one rank, as NCCL gives
// them. The nccl communicator and a local group on distinct GPUs use one;
// the other kinds stage device buffers through host memory instead.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "apsp/comm.hpp"

namespace apsp::comm {

class DeviceTransport {
 public:
  virtual ~DeviceTransport() = default;
  // All enqueue on `stream` (a cudaStream_t) and return.
  virtual void broadcast(void* data, std::size_t count, DataType type, int root, void* stream) = 0;
  virtual void send(const void* data, std::size_t bytes, int peer, void* stream) = 0;
  virtual void receive(void* data, std::size_t bytes, int peer, void* stream) = 0;
  virtual void all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op,
                          void* stream) = 0;
  // Collective over the transport's ranks, like Communicator::split.
  virtual std::unique_ptr<DeviceTransport> split(int color, int key) = 0;
  // Stops pending and later operations (ncclCommAbort); never throws.
  virtual void abort() noexcept = 0;
};

// One transport per device of one process (ncclCommInitAll), for the ranks of
// a local group; the devices must be distinct. Empty when the build has no NCCL.
std::vector<std::unique_ptr<DeviceTransport>> make_local_nccl_transports(const std::vector<int>& devices);

// The nccl communicator (declared in apsp/comm.hpp) is built in nccl.cpp from
// an MPI world communicator and this rank's device.
std::unique_ptr<Communicator> make_nccl_over(std::unique_ptr<Communicator> host_world, int device, DeviceCalls calls);

// How the nccl communicator's world makes its device calls (nccl.cpp):
// `wait` for NCCL's init; `early`: staged until NCCL, made beside the
// startup, is ready; `never`: staged, NCCL not started (a split makes it);
// `later`: as never until Communicator::plan_device_calls decides.
enum class EarlyCalls { wait, early, never, later };
// The way for APSP_NCCL_EARLY's value `env` (nullptr when unset): wait,
// never, or early for any other value (mpi, mpi:R); unset, on one node
// (`one_node`: the world's ranks all on this node) never for
// DeviceCalls::unsplit and later for DeviceCalls::later, else early
// (apsp/comm.hpp's DeviceCalls says why).
EarlyCalls early_calls(const char* env, DeviceCalls calls, bool one_node);

}  // namespace apsp::comm
