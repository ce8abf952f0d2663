// The distributed GPU solver and device buffers on MPI ranks, all ranks on
// their node's GPUs in turn (one GPU: every rank shares device 0, device
// buffers staged through pinned host memory), and the nccl communicator when
// the job has one rank. Every test skips without a CUDA device.
//   tests/distributed/run-mpi mpirun P build/tests/apsp_dist_mpi_tests --gtest_filter='MpiGpu*:NcclGpu*'
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#ifdef APSP_WITH_CUDA
#include <cuda_runtime.h>
#endif

#include "apsp/comm.hpp"
#include "apsp/cuda.hpp"
#include "comm/shared_staging.hpp"
#include "distributed/checks/dist_checks.hpp"
#include "distributed/checks/gpu_checks.hpp"
#include "distributed/checks/late_transport.hpp"
#include "distributed/checks/staging_checks.hpp"
#include "distributed/mpi/world.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device"

#ifdef APSP_WITH_CUDA
// A stream of this test's own, or the legacy default one (nullptr).
struct TestStream {
  explicit TestStream(bool own) {
    if (own) EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  ~TestStream() {
    if (stream) cudaStreamDestroy(stream);
  }
  cudaStream_t stream = nullptr;
};
#endif

TEST(MpiGpu, DeviceBuffers) {
  SKIP_WITHOUT_GPU();
  test::check_device_collectives(test::world());
}

TEST(MpiGpu, TileCasesMatchFwBlocked) {
  SKIP_WITHOUT_GPU();
  const std::vector<test::Case> cases = test::tile_cases();
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    for (const test::Case& c : cases) test::check_gpu_matches_fw_blocked(test::world(), c, config);
}

TEST(MpiGpu, MatchesTheSingleGpuSolverAt8192AndAnOddSize) {
  SKIP_WITHOUT_GPU();
  for (std::int64_t n : {8192, 5001})
    for (const test::DistConfig& config : test::configs_for(test::world().size()))
      if (config.lookahead || n == 5001) test::check_gpu_matches_single_gpu(test::world(), n, config);
}

TEST(MpiGpu, DistancesBeyondInt32AreRefusedOnEveryRank) {
  SKIP_WITHOUT_GPU();
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    test::check_gpu_output_range(test::world(), config);
}

TEST(MpiGpu, Int16AttemptsAreCertifiedOrRerunInInt32) {
  SKIP_WITHOUT_GPU();
  const Graph friendly = test::int16_friendly_graph(1500), overflowing = test::int16_overflowing_graph(700);
  for (const test::DistConfig& config : test::configs_for(test::world().size())) {
    test::check_gpu_precision(test::world(), "friendly", friendly, config, Precision::automatic, Precision::int16);
    test::check_gpu_precision(test::world(), "overflowing", overflowing, config, Precision::int16, Precision::int32);
  }
}

TEST(MpiGpu, PredecessorsAreTightEdgeTrees) {
  SKIP_WITHOUT_GPU();
  std::vector<test::Case> cases = test::tile_cases();
  cases.push_back(test::Case{"int16_friendly", test::int16_friendly_graph(700)});
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    for (const test::Case& c : cases) test::check_gpu_predecessors(test::world(), c, config, Precision::automatic);
}

TEST(MpiGpu, RealWeightsMatchTheReference) {
  SKIP_WITHOUT_GPU();
  for (const test::DistConfig& config : test::configs_for(test::world().size())) {
    test::check_real_weights(test::world(), config, Backend::cuda);
    test::check_real_negative_cycles(test::world(), config, Backend::cuda);
  }
}

// What make() returns with the environment variable `name` set to `value`
// (nullptr: unset; read when a communicator is made); the environment is left as it was.
template <class F>
auto made_with(const char* name, const char* value, F&& make) {
  const char* given = std::getenv(name);
  const std::string before = given ? given : "";
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  auto made = make();
  if (given)
    setenv(name, before.c_str(), 1);
  else
    unsetenv(name);
  return made;
}

#ifdef APSP_WITH_CUDA
// A communicator of the world's ranks (a split, in rank order) whose device
// broadcasts are staged the `staging` way (APSP_STAGING).
std::unique_ptr<Communicator> staged_world(const char* staging) {
  return made_with("APSP_STAGING", staging, [] { return test::world().split(0, test::world().rank()); });
}

// What a sequence of device broadcasts (check_staged_broadcasts, every byte
// checked) on GPU 0 did: the calls of at least the threshold, and those the
// shared segment and the IPC buffers carried.
struct StagedRun {
  std::int64_t large = 0, shared = 0, ipc = 0;
};

StagedRun staged_run(Communicator& comm, bool own_stream, int back_to_back) {
  SCOPED_TRACE(own_stream ? "own stream" : "default stream");
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);  // not ASSERT: every rank goes on to the broadcasts
  const TestStream stream(own_stream);
  const comm::testing::SharedStagingCounts before = comm::testing::shared_staging_counts();
  StagedRun run;
  run.large = test::check_staged_broadcasts(comm, Memory::device, comm::testing::shared_staging_min_bytes(),
                                            back_to_back, stream.stream);
  const comm::testing::SharedStagingCounts after = comm::testing::shared_staging_counts();
  run.shared = after.broadcasts - before.broadcasts;
  run.ipc = after.ipc_broadcasts - before.ipc_broadcasts;
  if (comm.rank() == 0)
    std::printf("[ staged ] %s: %lld large device broadcasts, %lld through the shared segment, %lld over IPC\n",
                own_stream ? "own stream" : "default stream", static_cast<long long>(run.large),
                static_cast<long long>(run.shared), static_cast<long long>(run.ipc));
  return run;
}
#endif

// The node-shared staging of device broadcasts (src/comm/mpi.cpp,
// APSP_STAGING=shared), ranks sharing GPU 0: every byte of a long sequence
// of sizes and roots (the segment grown, the halves taking turns back to
// back) on the legacy default stream and on a non-blocking stream of the
// test's own; each broadcast of at least the threshold went through the
// segment (unless the MPI is CUDA-aware: then MPI carries them, checked
// all the same).
TEST(MpiGpu, DeviceBroadcastsThroughNodeSharedMemory) {
  SKIP_WITHOUT_GPU();
#ifdef APSP_WITH_CUDA
  const std::unique_ptr<Communicator> comm = staged_world("shared");
  const bool staged = !comm_support().cuda_aware_mpi && comm->size() > 1;
  for (const bool own : {false, true}) {
    const StagedRun run = staged_run(*comm, own, 40);
    EXPECT_EQ(run.shared, staged ? run.large : 0);
    EXPECT_EQ(run.ipc, 0);
  }
#endif
}

// Device broadcasts over CUDA IPC (APSP_STAGING=ipc, the default; issue 22
// ipc9), ranks sharing GPU 0 (IPC between processes on one device): the
// same sequence on both streams, every large one carried by the IPC
// buffers (grown along the way); then in pieces of 1 MiB and 100 bytes
// (the 2 and 3 MiB ones in 2 and 3 pieces, the halves taking turns piece
// after piece).
TEST(MpiGpu, DeviceBroadcastsOverIpc) {
  SKIP_WITHOUT_GPU();
#ifdef APSP_WITH_CUDA
  const std::unique_ptr<Communicator> comm = staged_world("ipc");
  const bool staged = !comm_support().cuda_aware_mpi && comm->size() > 1;
  for (const bool own : {false, true}) {
    const StagedRun run = staged_run(*comm, own, 40);
    EXPECT_EQ(run.ipc, staged ? run.large : 0) << "the IPC buffers did not carry them (fell back?)";
    EXPECT_EQ(run.shared, 0);
  }
  comm::testing::set_shared_staging_piece_bytes((1 << 20) + 100);
  const StagedRun pieced = staged_run(*comm, true, 30);
  comm::testing::set_shared_staging_piece_bytes(0);
  EXPECT_EQ(pieced.ipc, staged ? pieced.large : 0);
  if (comm->rank() == 0)
    for (const auto& [name, seconds] : comm->startup_parts())
      std::printf("[ staged ] %s %.6f s\n", name.c_str(), seconds);
#endif
}

// The IPC buffers failing on one rank (the last: comm::testing::
// fail_ipc_staging_on_rank, as if its allocation failed): every rank falls
// back to the shared segment alike, for the communicator's life, and every
// byte still arrives.
TEST(MpiGpu, IpcStagingFallsBackToTheSharedSegmentOnEveryRank) {
  SKIP_WITHOUT_GPU();
#ifdef APSP_WITH_CUDA
  comm::testing::fail_ipc_staging_on_rank(test::world().size() - 1);
  const std::unique_ptr<Communicator> comm = staged_world("ipc");
  const bool staged = !comm_support().cuda_aware_mpi && comm->size() > 1;
  const StagedRun first = staged_run(*comm, false, 10);
  comm::testing::fail_ipc_staging_on_rank(-1);
  const StagedRun later = staged_run(*comm, true, 10);  // still the segment: the fallback is kept
  for (const StagedRun& run : {first, later}) {
    EXPECT_EQ(run.ipc, 0);
    EXPECT_EQ(run.shared, staged ? run.large : 0);
  }
  if (staged) {
    bool said = false;
    for (const auto& part : comm->startup_parts())
      said = said || part.first == "staging: shared segment (no ipc buffers)";
    EXPECT_TRUE(said) << "the summary does not say that the IPC buffers fell back";
  }
#endif
}

// APSP_NCCL_EARLY=never (ipc9): the nccl communicator never starts NCCL,
// so ranks may share a GPU (the node's GPUs in turn; one GPU: all on GPU
// 0, where NCCL itself refuses two ranks): every round's panels staged
// (over IPC by default), no switch, and the rows layout's distances equal
// to one GPU's, byte for byte, look-ahead on and off.
TEST(MpiGpu, NeverNcclSolveMatchesTheSingleGpuSolver) {
  SKIP_WITHOUT_GPU();
  if (!comm_support().nccl) GTEST_SKIP() << "this build has no NCCL";
  const int gpus = static_cast<int>(cuda::devices().size());
  const std::unique_ptr<Communicator> nccl =
      made_with("APSP_NCCL_EARLY", "never", [&] { return make_nccl_communicator(test::world().rank() % gpus); });
  EXPECT_TRUE(nccl->stages_until_ready());
  EXPECT_FALSE(nccl->switches_transport());
  const comm::testing::SharedStagingCounts counts = comm::testing::shared_staging_counts();
  for (const auto& [n, lookahead] : {std::pair<std::int64_t, bool>{8192, true}, {2000, false}})
    test::check_gpu_matches_single_gpu(*nccl, n, test::DistConfig{Distribution::rows, 0, 0, lookahead});
  nccl->wait_ready();  // nothing to wait for
  EXPECT_EQ(nccl->transport_switch_round(), -1);
  EXPECT_FALSE(nccl->switches_transport());
  const comm::testing::SharedStagingCounts after = comm::testing::shared_staging_counts();
  const std::int64_t staged = after.ipc_broadcasts - counts.ipc_broadcasts + after.broadcasts - counts.broadcasts;
  if (nccl->size() > 1 && !comm_support().cuda_aware_mpi) EXPECT_GT(staged, 0);
  if (test::world().rank() == 0)
    std::printf("[ never ] %lld panels over IPC, %lld through the shared segment; no NCCL\n",
                static_cast<long long>(after.ipc_broadcasts - counts.ipc_broadcasts),
                static_cast<long long>(after.broadcasts - counts.broadcasts));
}

// The default for a world that no split will need (DeviceCalls::unsplit:
// the rows layout, a row split) with APSP_NCCL_EARLY unset, every rank on
// this node: NCCL is not started, as with APSP_NCCL_EARLY=never (so ranks
// may share a GPU here too), and the rows layout's distances are one GPU's.
// Made the default way (DeviceCalls::unknown) it would start NCCL, which
// two ranks on one GPU refuse: Launch.EarlyCallsFollowTheEnvironmentThenTheLayout
// checks that choice on the CPU.
TEST(MpiGpu, UnsplitWorldOnOneNodeDoesNotStartNccl) {
  SKIP_WITHOUT_GPU();
  if (!comm_support().nccl) GTEST_SKIP() << "this build has no NCCL";
  if (node_place().local_size != test::world().size()) GTEST_SKIP() << "the ranks are on more than one node";
  const int gpus = static_cast<int>(cuda::devices().size());
  const std::unique_ptr<Communicator> nccl = made_with("APSP_NCCL_EARLY", nullptr, [&] {
    return make_nccl_communicator(test::world().rank() % gpus, DeviceCalls::unsplit);
  });
  EXPECT_TRUE(nccl->stages_until_ready());
  EXPECT_FALSE(nccl->switches_transport());
  test::check_gpu_matches_single_gpu(*nccl, 2000, test::DistConfig{Distribution::rows, 0, 0, true});
  nccl->wait_ready();  // nothing to wait for
  EXPECT_EQ(nccl->transport_switch_round(), -1);
  EXPECT_FALSE(nccl->switches_transport());
}

// DeviceCalls::later (distributed auto, its layout chosen after the read)
// with APSP_NCCL_EARLY unset, every rank on this node: nothing started at
// the communicator's making; planned `unsplit` it stays never (ranks may
// share a GPU), and the rows layout's distances are one GPU's.
TEST(MpiGpu, LaterWorldPlannedUnsplitDoesNotStartNccl) {
  SKIP_WITHOUT_GPU();
  if (!comm_support().nccl) GTEST_SKIP() << "this build has no NCCL";
  if (node_place().local_size != test::world().size()) GTEST_SKIP() << "the ranks are on more than one node";
  const int gpus = static_cast<int>(cuda::devices().size());
  const std::unique_ptr<Communicator> nccl = made_with("APSP_NCCL_EARLY", nullptr, [&] {
    return make_nccl_communicator(test::world().rank() % gpus, DeviceCalls::later);
  });
  EXPECT_FALSE(nccl->switches_transport());
  nccl->plan_device_calls(DeviceCalls::unsplit);
  nccl->plan_device_calls(DeviceCalls::unknown);  // planned once: ignored
  EXPECT_TRUE(nccl->stages_until_ready());
  EXPECT_FALSE(nccl->switches_transport());
  test::check_gpu_matches_single_gpu(*nccl, 2000, test::DistConfig{Distribution::rows, 0, 0, true});
  nccl->wait_ready();
  EXPECT_EQ(nccl->transport_switch_round(), -1);
}

// Early device calls on MPI ranks (sharing the node's GPUs in turn): device
// panels staged through MPI until a late transport's switch
// (tests/distributed/checks/late_transport.hpp); one GPU's results.
TEST(MpiGpu, EarlyTransportSwitchesAtTheSameRoundOnEveryRank) {
  SKIP_WITHOUT_GPU();
  test::check_late_transport_switch(test::world(), Backend::cuda);
}

// The nccl communicator on one GPU per rank (-np up to the node's GPUs),
// its device calls early (through MPI until every rank's NCCL is ready,
// the default) and waiting for NCCL (APSP_NCCL_EARLY=wait): one GPU's
// results, and every rank switched at the same round.
TEST(NcclGpu, EarlyAndWaitingDeviceCallsMatchTheSingleGpuSolver) {
  SKIP_WITHOUT_GPU();
  if (!comm_support().nccl) GTEST_SKIP() << "this build has no NCCL";
  const int gpus = static_cast<int>(cuda::devices().size());
  if (test::world().size() > gpus) GTEST_SKIP() << "the nccl communicator needs one GPU per rank";
  for (const std::string early : {"mpi", "wait"}) {
    SCOPED_TRACE("APSP_NCCL_EARLY=" + early);
    setenv("APSP_NCCL_EARLY", early.c_str(), 1);
    const std::unique_ptr<Communicator> nccl = make_nccl_communicator(test::world().rank());
    unsetenv("APSP_NCCL_EARLY");
    EXPECT_EQ(nccl->stages_until_ready(), early == "mpi");
    for (std::int64_t n : {8192, 5001})
      test::check_gpu_matches_single_gpu(*nccl, n, test::DistConfig{Distribution::rows, 0, 0, n == 8192});
    const std::int64_t round = nccl->transport_switch_round();
    EXPECT_EQ(test::world().all_reduce(round, ReduceOp::min), test::world().all_reduce(round, ReduceOp::max));
    if (early == "wait") EXPECT_EQ(round, -1);
    if (test::world().rank() == 0 && early == "mpi")
      std::printf("[ early ] nccl from round %lld of the first solve's rounds\n", static_cast<long long>(round));
    nccl->wait_ready();
  }
}

// DeviceCalls::later planned `unknown` (auto chose a layout that may split
// the world), one GPU per rank: NCCL's init starts at the plan, the rounds
// are staged until every rank's is ready and then switch at one round on
// every rank; one GPU's results, rows and 2d (whose split takes NCCL).
TEST(NcclGpu, LaterWorldPlannedUnknownStartsNcclAndSwitches) {
  SKIP_WITHOUT_GPU();
  if (!comm_support().nccl) GTEST_SKIP() << "this build has no NCCL";
  const int gpus = static_cast<int>(cuda::devices().size());
  if (test::world().size() > gpus) GTEST_SKIP() << "the nccl communicator needs one GPU per rank";
  if (node_place().local_size != test::world().size()) GTEST_SKIP() << "the ranks are on more than one node";
  const std::unique_ptr<Communicator> nccl = made_with("APSP_NCCL_EARLY", nullptr, [&] {
    return make_nccl_communicator(test::world().rank(), DeviceCalls::later);
  });
  nccl->plan_device_calls(DeviceCalls::unknown);
  EXPECT_TRUE(nccl->stages_until_ready());
  EXPECT_TRUE(nccl->switches_transport());
  test::check_gpu_matches_single_gpu(*nccl, 8192, test::DistConfig{Distribution::rows, 0, 0, true});
  const std::int64_t round = nccl->transport_switch_round();
  EXPECT_EQ(test::world().all_reduce(round, ReduceOp::min), test::world().all_reduce(round, ReduceOp::max));
  if (test::world().size() > 1)
    test::check_gpu_matches_single_gpu(*nccl, 2000,
                                       test::DistConfig{Distribution::grid, 1, test::world().size(), true});
  nccl->wait_ready();
}

// A switch inside the rounds onto a ready NCCL: each rank waits (2 s) so
// that its NCCL is made, and APSP_NCCL_EARLY=mpi:20
// stages the first 20 of n = 8192's 64 rounds; then NCCL carries the rest,
// look-ahead on and off. One GPU's results.
TEST(NcclGpu, SwitchInsideTheRoundsMatchesTheSingleGpuSolver) {
  SKIP_WITHOUT_GPU();
  if (!comm_support().nccl) GTEST_SKIP() << "this build has no NCCL";
  const int gpus = static_cast<int>(cuda::devices().size());
  if (test::world().size() > gpus) GTEST_SKIP() << "the nccl communicator needs one GPU per rank";
  for (const bool lookahead : {true, false}) {
    setenv("APSP_NCCL_EARLY", "mpi:20", 1);
    const std::unique_ptr<Communicator> nccl = make_nccl_communicator(test::world().rank());
    unsetenv("APSP_NCCL_EARLY");
    std::this_thread::sleep_for(std::chrono::seconds(2));
    test::check_gpu_matches_single_gpu(*nccl, 8192, test::DistConfig{Distribution::rows, 0, 0, lookahead});
    // 20 once NCCL is made (the sleep makes it so but for a very slow
    // init: later then, or never), the same on every rank.
    const std::int64_t round = nccl->transport_switch_round();
    EXPECT_TRUE(round == -1 || round >= 20) << round;
    EXPECT_EQ(test::world().all_reduce(round, ReduceOp::min), test::world().all_reduce(round, ReduceOp::max));
    if (test::world().rank() == 0) std::printf("[ early ] nccl from round %lld\n", static_cast<long long>(round));
  }
}

// NCCL needs one GPU per rank: with one GPU, one rank.
TEST(NcclGpu, OneRankMatchesTheSingleGpuSolver) {
  SKIP_WITHOUT_GPU();
  if (test::world().size() != 1) GTEST_SKIP() << "the nccl communicator needs one GPU per rank; run with -np 1";
  if (!comm_support().nccl) GTEST_SKIP() << "this build has no NCCL";
  const std::unique_ptr<Communicator> nccl = make_nccl_communicator(0);
  EXPECT_STREQ(nccl->kind(), "nccl");
  test::check_device_collectives(*nccl);
  for (std::int64_t n : {8192, 5001})
    test::check_gpu_matches_single_gpu(*nccl, n, test::DistConfig{Distribution::rows, 0, 0, true});
}

}  // namespace
}  // namespace apsp
