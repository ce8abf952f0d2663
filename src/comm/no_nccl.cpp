// Builds without NCCL: local groups stage device buffers through host memory
// and the nccl communicator is refused (communicator.cpp checks the version).
#include "apsp/error.hpp"
#include "comm/features.hpp"
#include "comm/transport.hpp"

namespace apsp::comm {

std::string nccl_version() { return {}; }

std::vector<std::unique_ptr<DeviceTransport>> make_local_nccl_transports(const std::vector<int>&) { return {}; }

std::unique_ptr<Communicator> make_nccl_over(std::unique_ptr<Communicator>, int, DeviceCalls) {
  throw ResourceError("the nccl communicator needs NCCL; this build of apsp has none");
}

}  // namespace apsp::comm
