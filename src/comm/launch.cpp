// Launch and placement of distributed runs (apsp/comm.hpp): the launcher's
// environment, the rank -> device map, the per-rank thread split and the
// choice of communicator.
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"

namespace apsp {
namespace {

// An integer from the first of these environment variables that is set, else `otherwise`.
int from_environment(std::initializer_list<const char*> names, int otherwise) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value && *value) return std::atoi(value);
  }
  return otherwise;
}

}  // namespace

NodePlace node_place() {
  NodePlace p;
  p.local_rank = from_environment({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}, 0);
  p.local_size = from_environment({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}, 1);
  return p;
}

std::vector<int> parse_device_list(const std::string& text) {
  static const std::regex list("[0-9]{1,4}(,[0-9]{1,4})*");
  if (!std::regex_match(text, list))
    throw UsageError("'" + text + "' is not a list of device numbers (e.g. 0,1)", "devices");
  std::vector<int> out;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(std::stoi(text.substr(at, comma - at)));
    at = comma + 1;
  }
  return out;
}

int rank_device(const std::vector<int>& listed, const std::vector<int>& node_devices, int local_rank) {
  const std::vector<int>& devices = listed.empty() ? node_devices : listed;
  if (devices.empty()) throw ResourceError("the distributed GPU solver found no CUDA device");
  return devices[static_cast<std::size_t>(std::max(0, local_rank)) % devices.size()];
}

int rank_threads(int ranks_sharing, bool same_process) {
  const int available = omp_get_max_threads();
  if (std::getenv("OMP_NUM_THREADS") || ranks_sharing <= 1) return available;
  const bool unbound = available >= static_cast<int>(std::thread::hardware_concurrency());
  if (!same_process && !unbound) return available;
  return std::max(1, available / ranks_sharing);
}

CommChoice parse_comm_choice(const std::string& text) {
  if (text == "auto") return CommChoice::automatic;
  if (text == "mpi") return CommChoice::mpi;
  if (text == "nccl") return CommChoice::nccl;
  throw UsageError("unknown communicator '" + text + "' (expected auto, mpi or nccl)", "comm");
}

std::unique_ptr<Communicator> make_launch_communicator(CommChoice choice, int device, int node_gpus) {
  if (!launched_by_mpi()) {
    if (choice != CommChoice::automatic)
      throw UsageError(std::string("the ") + (choice == CommChoice::mpi ? "mpi" : "nccl") +
                           " communicator needs an MPI launch (mpirun)",
                       "comm");
    return make_single_communicator(device);
  }
  const bool own_gpu = device >= 0 && node_place().local_size <= node_gpus;
  if (choice == CommChoice::nccl || (choice == CommChoice::automatic && own_gpu && comm_support().nccl))
    return make_nccl_communicator(device);
  return make_mpi_communicator(device);
}

}  // namespace apsp
