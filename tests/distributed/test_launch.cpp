// Launch and placement of distributed runs (apsp/comm.hpp): the launcher's
// environment, the rank -> device map, the per-rank thread split and the
// communicator a process opens without a launcher. Launches under mpirun are
// covered by the mpirun harness and tests/distributed/test_dist_cli.cpp.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/transport.hpp"

namespace apsp {
namespace {

// Sets (or, with nullptr, clears) one environment variable for a scope and
// puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

// The variables of every launcher node_place() and launched_by_mpi() read,
// cleared: this process as if started by hand.
struct NoLauncher {
  ScopedEnv vars[8] = {{"OMPI_COMM_WORLD_LOCAL_RANK", nullptr},
                       {"MPI_LOCALRANKID", nullptr},
                       {"SLURM_LOCALID", nullptr},
                       {"OMPI_COMM_WORLD_LOCAL_SIZE", nullptr},
                       {"MPI_LOCALNRANKS", nullptr},
                       {"OMPI_COMM_WORLD_SIZE", nullptr},
                       {"PMI_SIZE", nullptr},
                       {"PMIX_RANK", nullptr}};
};

void expect_usage_error(const std::function<void()>& f, const std::string& option, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), option) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Launch, NodePlaceComesFromTheLauncher) {
  NoLauncher clean;
  EXPECT_EQ(node_place().local_rank, 0);
  EXPECT_EQ(node_place().local_size, 1);
  {
    ScopedEnv rank("OMPI_COMM_WORLD_LOCAL_RANK", "3"), size("OMPI_COMM_WORLD_LOCAL_SIZE", "4");
    EXPECT_EQ(node_place().local_rank, 3);
    EXPECT_EQ(node_place().local_size, 4);
  }
  {
    ScopedEnv rank("MPI_LOCALRANKID", "1"), size("MPI_LOCALNRANKS", "2");  // MPICH / Intel MPI
    EXPECT_EQ(node_place().local_rank, 1);
    EXPECT_EQ(node_place().local_size, 2);
  }
  ScopedEnv slurm("SLURM_LOCALID", "5");
  EXPECT_EQ(node_place().local_rank, 5);
}

TEST(Launch, DeviceListsAreParsedOrRefused) {
  EXPECT_EQ(parse_device_list("0"), std::vector<int>{0});
  EXPECT_EQ(parse_device_list("0,1,3"), (std::vector<int>{0, 1, 3}));
  for (const char* bad : {"", "a", "0,", ",1", "0;1", "-1", "12345"})
    expect_usage_error([&] { parse_device_list(bad); }, "devices", "is not a list of device numbers");
}

TEST(Launch, RanksTakeTheListedDevicesElseTheNodesInTurn) {
  EXPECT_EQ(rank_device({2, 5}, {0, 1, 2, 3}, 0), 2);
  EXPECT_EQ(rank_device({2, 5}, {0, 1, 2, 3}, 1), 5);
  EXPECT_EQ(rank_device({2, 5}, {0, 1, 2, 3}, 2), 2);
  EXPECT_EQ(rank_device({}, {0, 1, 2}, 4), 1);
  EXPECT_EQ(rank_device({7}, {}, 3), 7);
  EXPECT_THROW(rank_device({}, {}, 0), ResourceError);
}

// APSP_RANK_GPU_ONLY=1 under a launcher: CUDA_VISIBLE_DEVICES narrowed to
// the GPU rank_device gives the rank, counted without CUDA (here from
// CUDA_VISIBLE_DEVICES itself); otherwise nothing changes.
TEST(Launch, ARankMaySeeItsOwnGpuAlone) {
  NoLauncher clean;
  ScopedEnv visible("CUDA_VISIBLE_DEVICES", "3,5,7");
  {
    ScopedEnv launched("OMPI_COMM_WORLD_SIZE", "2");
    ScopedEnv not_asked("APSP_RANK_GPU_ONLY", nullptr);
    EXPECT_EQ(narrow_to_rank_gpu({}, 1), 0);
    EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "3,5,7");
  }
  ScopedEnv asked("APSP_RANK_GPU_ONLY", "1");
  EXPECT_EQ(narrow_to_rank_gpu({}, 1), 0);  // not launched: one process sees every GPU
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "3,5,7");
  ScopedEnv launched("OMPI_COMM_WORLD_SIZE", "2");
  EXPECT_EQ(narrow_to_rank_gpu({}, 1), 3);  // the node's second GPU, as CUDA numbers them
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "5");
  setenv("CUDA_VISIBLE_DEVICES", "3,5,7", 1);
  EXPECT_EQ(narrow_to_rank_gpu({2, 0}, 2), 3);  // the listed devices in turn
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "7");
  setenv("CUDA_VISIBLE_DEVICES", "3,5,7", 1);
  expect_usage_error([] { narrow_to_rank_gpu({4}, 0); }, "devices", "CUDA device 4 does not exist (found 3)");
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "3,5,7");
}

TEST(Launch, TheProcessClockStartsAtExec) {
  const double since = seconds_since_process_start();
  ASSERT_GE(since, 0.0);          // Linux says when this process began
  EXPECT_LT(since, 24 * 3600.0);  // the test binary began before this test, and not days ago
  // The start is fixed and now is read anew: two reads differ by no more
  // than a steady clock bracketing them (however long the machine's load
  // makes that), and never go back.
  const auto before = std::chrono::steady_clock::now();
  const double first = seconds_since_process_start();
  const double second = seconds_since_process_start();
  const double bracket = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
  EXPECT_GE(second, first);
  EXPECT_LE(second - first, bracket + 1e-6);
}

TEST(Launch, RanksSplitTheCpusTheyShare) {
  ScopedEnv no_omp_setting("OMP_NUM_THREADS", nullptr);
  const int available = omp_get_max_threads();
  EXPECT_EQ(rank_threads(1, true), available);
  EXPECT_EQ(rank_threads(0, false), available);
  // Ranks of one process always share its CPUs.
  EXPECT_EQ(rank_threads(2, true), std::max(1, available / 2));
  EXPECT_EQ(rank_threads(available * 4, true), 1);
  // Ranks of a launch share only when each was left every CPU.
  const bool unbound = available >= static_cast<int>(std::thread::hardware_concurrency());
  EXPECT_EQ(rank_threads(2, false), unbound ? std::max(1, available / 2) : available);
  // OMP_NUM_THREADS is the user's word for every rank.
  ScopedEnv omp("OMP_NUM_THREADS", "3");
  EXPECT_EQ(rank_threads(2, true), available);
}

TEST(Launch, CommunicatorChoices) {
  EXPECT_EQ(parse_comm_choice("auto"), CommChoice::automatic);
  EXPECT_EQ(parse_comm_choice("mpi"), CommChoice::mpi);
  EXPECT_EQ(parse_comm_choice("nccl"), CommChoice::nccl);
  expect_usage_error([] { parse_comm_choice("gloo"); }, "comm", "unknown communicator 'gloo'");
}

// The nccl communicator's way with early device calls (comm::early_calls):
// APSP_NCCL_EARLY's value first (wait, never, anything else early), then,
// unset, on one node, never for a world no split will need (staged
// broadcasts there are as fast as NCCL's rounds) and later for one whose
// layout is chosen after the read; else early.
TEST(Launch, EarlyCallsFollowTheEnvironmentThenTheLayout) {
  using comm::early_calls;
  using comm::EarlyCalls;
  for (const DeviceCalls calls : {DeviceCalls::unknown, DeviceCalls::unsplit, DeviceCalls::later})
    for (const bool one_node : {false, true}) {
      EXPECT_EQ(early_calls("wait", calls, one_node), EarlyCalls::wait);
      EXPECT_EQ(early_calls("never", calls, one_node), EarlyCalls::never);
      EXPECT_EQ(early_calls("mpi", calls, one_node), EarlyCalls::early);
      EXPECT_EQ(early_calls("mpi:20", calls, one_node), EarlyCalls::early);
    }
  EXPECT_EQ(early_calls(nullptr, DeviceCalls::unsplit, true), EarlyCalls::never);
  EXPECT_EQ(early_calls(nullptr, DeviceCalls::unsplit, false), EarlyCalls::early);
  EXPECT_EQ(early_calls(nullptr, DeviceCalls::unknown, true), EarlyCalls::early);
  EXPECT_EQ(early_calls(nullptr, DeviceCalls::unknown, false), EarlyCalls::early);
  EXPECT_EQ(early_calls(nullptr, DeviceCalls::later, true), EarlyCalls::later);
  EXPECT_EQ(early_calls(nullptr, DeviceCalls::later, false), EarlyCalls::early);
}

TEST(Launch, WithoutALauncherAProcessIsOneRank) {
  NoLauncher clean;
  ASSERT_FALSE(launched_by_mpi());
  const std::unique_ptr<Communicator> comm = make_launch_communicator(CommChoice::automatic, -1, 0);
  EXPECT_EQ(comm->size(), 1);
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(std::string(comm->kind()), std::string(make_single_communicator()->kind()));
  for (CommChoice asked : {CommChoice::mpi, CommChoice::nccl})
    expect_usage_error([&] { make_launch_communicator(asked, -1, 0); }, "comm", "needs an MPI launch (mpirun)");
}

}  // namespace
}  // namespace apsp
