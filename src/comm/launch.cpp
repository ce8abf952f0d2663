// Launch and placement of distributed runs (apsp/comm.hpp): the launcher's
// environment, the rank -> device map, the per-rank thread split and the
// choice of communicator.
#include <dirent.h>
#include <omp.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <initializer_list>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/transport.hpp"

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

namespace {

// The node's GPUs as CUDA would number them, without starting CUDA: the
// entries of CUDA_VISIBLE_DEVICES when set, else "0" .. "N-1" for the N
// device files /dev/nvidia<minor> (a container may hold any minors; CUDA
// numbers what it sees from 0).
std::vector<std::string> node_gpu_names() {
  std::vector<std::string> names;
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::stringstream list(visible);
    for (std::string entry; std::getline(list, entry, ',');)
      if (!entry.empty()) names.push_back(entry);
    return names;
  }
  static const std::regex device_file("nvidia[0-9]+");
  int count = 0;
  if (DIR* dev = opendir("/dev")) {
    while (const dirent* entry = readdir(dev))
      if (std::regex_match(entry->d_name, device_file)) ++count;
    closedir(dev);
  }
  for (int d = 0; d < count; ++d) names.push_back(std::to_string(d));
  return names;
}

}  // namespace

int narrow_to_rank_gpu(const std::vector<int>& listed, int local_rank) {
  const char* asked = std::getenv("APSP_RANK_GPU_ONLY");
  if (!asked || std::string(asked) != "1" || !launched_by_mpi()) return 0;
  const std::vector<std::string> names = node_gpu_names();
  if (names.empty()) return 0;
  std::vector<int> all;
  for (int d = 0; d < static_cast<int>(names.size()); ++d) all.push_back(d);
  const int device = rank_device(listed, all, local_rank);
  if (device < 0 || device >= static_cast<int>(names.size()))
    throw UsageError("CUDA device " + std::to_string(device) + " does not exist (found " +
                         std::to_string(names.size()) + ")",
                     "devices");
  setenv("CUDA_VISIBLE_DEVICES", names[static_cast<std::size_t>(device)].c_str(), 1);
  return static_cast<int>(names.size());
}

int rank_threads(int ranks_sharing, bool same_process) {
  const int available = omp_get_max_threads();
  if (std::getenv("OMP_NUM_THREADS") || ranks_sharing <= 1) return available;
  const bool unbound = available >= static_cast<int>(std::thread::hardware_concurrency());
  if (!same_process && !unbound) return available;
  return std::max(1, available / ranks_sharing);
}

double seconds_since_process_start() {
  std::ifstream file("/proc/self/stat");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // The command name (field 2) may hold spaces: fields count from its ')'.
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(text.substr(close + 1));
  std::string skipped;
  for (int field = 3; field < 22; ++field) fields >> skipped;  // state ... itrealvalue
  unsigned long long start_ticks = 0;
  if (!(fields >> start_ticks)) return -1;
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  timespec now{};
  if (ticks_per_second <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  const double since_boot = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
  return since_boot - static_cast<double>(start_ticks) / static_cast<double>(ticks_per_second);
}

CommChoice parse_comm_choice(const std::string& text) {
  if (text == "auto") return CommChoice::automatic;
  if (text == "mpi") return CommChoice::mpi;
  if (text == "nccl") return CommChoice::nccl;
  throw UsageError("unknown communicator '" + text + "' (expected auto, mpi or nccl)", "comm");
}

std::unique_ptr<Communicator> make_launch_communicator(CommChoice choice, int device, int node_gpus,
                                                       DeviceCalls calls) {
  if (!launched_by_mpi()) {
    if (choice != CommChoice::automatic)
      throw UsageError(std::string("the ") + (choice == CommChoice::mpi ? "mpi" : "nccl") +
                           " communicator needs an MPI launch (mpirun)",
                       "comm");
    return make_single_communicator(device);
  }
  const bool own_gpu = device >= 0 && node_place().local_size <= node_gpus;
  if (choice == CommChoice::nccl || (choice == CommChoice::automatic && own_gpu && comm_support().nccl))
    return make_nccl_communicator(device, calls);
  return make_mpi_communicator(device);
}

namespace comm {

EarlyCalls early_calls(const char* env, DeviceCalls calls, bool one_node) {
  if (env != nullptr) {
    const std::string way(env);
    if (way == "wait") return EarlyCalls::wait;
    if (way == "never") return EarlyCalls::never;
    return EarlyCalls::early;
  }
  if (!one_node || calls == DeviceCalls::unknown) return EarlyCalls::early;
  return calls == DeviceCalls::unsplit ? EarlyCalls::never : EarlyCalls::later;
}

}  // namespace comm
}  // namespace apsp
