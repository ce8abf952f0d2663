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

// The node-shared staging of device broadcasts (src/comm/mpi.cpp; the
// default, APSP_STAGING=shared), ranks sharing GPU 0: every byte of a long
// sequence of sizes and roots (the segment grown, the halves taking turns
// back to back) on the legacy default stream and on a non-blocking stream
// of the test's own; each broadcast of at least the threshold went through
// the segment (unless the MPI is CUDA-aware or APSP_STAGING=mpi: then
// MPI carries them, checked all the same).
TEST(MpiGpu, DeviceBroadcastsThroughNodeSharedMemory) {
  SKIP_WITHOUT_GPU();
#ifdef APSP_WITH_CUDA
  Communicator& world = test::world();
  const char* staging = std::getenv("APSP_STAGING");
  const bool shared = !comm_support().cuda_aware_mpi && !(staging && std::string(staging) == "mpi");
  for (const bool own : {false, true}) {
    SCOPED_TRACE(own ? "own stream" : "default stream");
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);  // not ASSERT: every rank goes on to the broadcasts
    const TestStream stream(own);
    const comm::testing::SharedStagingCounts before = comm::testing::shared_staging_counts();
    const std::int64_t large = test::check_staged_broadcasts(
        world, Memory::device, comm::testing::shared_staging_min_bytes(), 40, stream.stream);
    const comm::testing::SharedStagingCounts after = comm::testing::shared_staging_counts();
    if (shared) EXPECT_EQ(after.broadcasts - before.broadcasts, world.size() > 1 ? large : 0);
    if (world.rank() == 0)
      std::printf("[ staged ] %lld of %lld large device broadcasts through the shared segment, %lld window(s)\n",
                  static_cast<long long>(after.broadcasts - before.broadcasts), static_cast<long long>(large),
                  static_cast<long long>(after.windows));
  }
#endif
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
