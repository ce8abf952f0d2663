// The distributed GPU solver and device buffers in process: local groups of
// 1, 2 and 4 threads sharing device 0 (device buffers staged through host
// memory). Every test skips without a CUDA device; the lead runs them on the
// GPU machine (tests/distributed/mpi has the same checks on MPI ranks).
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "apsp/comm.hpp"
#include "distributed/checks/dist_checks.hpp"
#include "distributed/checks/gpu_checks.hpp"
#include "distributed/checks/late_transport.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device"

void on_gpu_threads(int ranks, const std::function<void(Communicator&)>& body) {
  run_on_threads(make_local_communicators(ranks, std::vector<int>(static_cast<std::size_t>(ranks), 0)), body);
}

TEST(DistributedGpu, DeviceBuffersOnLocalGroupsSharingOneGpu) {
  SKIP_WITHOUT_GPU();
  for (int ranks : {1, 2, 4}) on_gpu_threads(ranks, test::check_device_collectives);
}

TEST(DistributedGpu, TileAndStandardCasesMatchFwBlocked) {
  SKIP_WITHOUT_GPU();
  std::vector<test::Case> cases = test::tile_cases();
  const std::vector<test::Case> standard = test::standard_cases();
  for (std::size_t i = 0; i < standard.size(); i += 4) cases.push_back(standard[i]);
  for (int ranks : {1, 2, 4})
    for (const test::DistConfig& config : test::configs_for(ranks))
      on_gpu_threads(ranks, [&](Communicator& comm) {
        for (const test::Case& c : cases) test::check_gpu_matches_fw_blocked(comm, c, config);
      });
}

// The output range is checked while the rows are converted for delivery:
// every rank still throws the same error and the sink is discarded.
TEST(DistributedGpu, DistancesBeyondInt32AreRefusedOnEveryRank) {
  SKIP_WITHOUT_GPU();
  for (int ranks : {1, 2, 4})
    for (const test::DistConfig& config : test::configs_for(ranks))
      on_gpu_threads(ranks, [&](Communicator& comm) { test::check_gpu_output_range(comm, config); });
}

// Integer rows are converted on the device by default; the host's pass
// (APSP_OUTPUT_CONVERT=host, kept for an A/B) must deliver the same rows
// and refuse the same out-of-range distances.
TEST(DistributedGpu, TheHostsConversionStillMatchesFwBlocked) {
  SKIP_WITHOUT_GPU();
  setenv("APSP_OUTPUT_CONVERT", "host", 1);
  struct Unset {
    ~Unset() { unsetenv("APSP_OUTPUT_CONVERT"); }
  } unset;
  const std::vector<test::Case> cases = test::tile_cases();
  for (int ranks : {1, 2, 4})
    for (const test::DistConfig& config : test::configs_for(ranks))
      on_gpu_threads(ranks, [&](Communicator& comm) {
        for (const test::Case& c : cases) test::check_gpu_matches_fw_blocked(comm, c, config);
        test::check_gpu_output_range(comm, config);
      });
}

// With several process columns the parts of the gathered tile rows move on
// an exchange stream of their own by default; APSP_OUTPUT_EXCHANGE=panel
// (the one-stream path before, kept for an A/B) must deliver the same rows,
// through either conversion, and refuse the same out-of-range distances.
TEST(DistributedGpu, TheOneStreamExchangeStillMatchesFwBlocked) {
  SKIP_WITHOUT_GPU();
  setenv("APSP_OUTPUT_EXCHANGE", "panel", 1);
  struct Unset {
    ~Unset() {
      unsetenv("APSP_OUTPUT_EXCHANGE");
      unsetenv("APSP_OUTPUT_CONVERT");
    }
  } unset;
  const std::vector<test::Case> cases = test::tile_cases();
  for (const char* convert : {"device", "host"}) {
    setenv("APSP_OUTPUT_CONVERT", convert, 1);
    for (int ranks : {2, 4})
      for (const test::DistConfig& config : test::configs_for(ranks))
        on_gpu_threads(ranks, [&](Communicator& comm) {
          for (const test::Case& c : cases) test::check_gpu_matches_fw_blocked(comm, c, config);
          test::check_gpu_output_range(comm, config);
        });
  }
}

// Early device calls on GPU ranks sharing device 0: device panels staged
// through the host until a late transport's switch, then the other way
// (tests/distributed/checks/late_transport.hpp); one GPU's results.
TEST(DistributedGpu, EarlyTransportSwitchesAtTheSameRoundOnEveryRank) {
  SKIP_WITHOUT_GPU();
  for (int ranks : {2, 4})
    on_gpu_threads(ranks, [](Communicator& comm) { test::check_late_transport_switch(comm, Backend::cuda); });
}

TEST(DistributedGpu, MatchesTheSingleGpuSolverAt2048And1999) {
  SKIP_WITHOUT_GPU();
  for (std::int64_t n : {2048, 1999})
    for (const test::DistConfig& config :
         {test::DistConfig{Distribution::rows, 0, 0, true}, test::DistConfig{Distribution::grid, 2, 2, false}}) {
      const int ranks = config.distribution == Distribution::rows ? 2 : 4;
      on_gpu_threads(ranks, [&](Communicator& comm) { test::check_gpu_matches_single_gpu(comm, n, config); });
    }
}

// int16 as on one GPU: certified where the distances fit (automatic and
// forced), rerun in int32 where they pass the int16 infinity (forced; the
// automatic estimate goes straight to int32). n = 1537: 13 tile columns, so
// the 1 x 2 and 2 x 2 grids have odd local column counts (a padding tile
// column in int16).
TEST(DistributedGpu, Int16AttemptsAreCertifiedOrRerunInInt32) {
  SKIP_WITHOUT_GPU();
  const Graph friendly = test::int16_friendly_graph(1500), overflowing = test::int16_overflowing_graph(700);
  for (int ranks : {1, 2, 4})
    for (const test::DistConfig& config : test::configs_for(ranks))
      on_gpu_threads(ranks, [&](Communicator& comm) {
        test::check_gpu_precision(comm, "friendly", friendly, config, Precision::automatic, Precision::int16);
        test::check_gpu_precision(comm, "friendly", friendly, config, Precision::int16, Precision::int16);
        test::check_gpu_precision(comm, "overflowing", overflowing, config, Precision::int16, Precision::int32);
        test::check_gpu_precision(comm, "overflowing", overflowing, config, Precision::automatic, Precision::int32);
      });
}

TEST(DistributedGpu, PredecessorsAreTightEdgeTrees) {
  SKIP_WITHOUT_GPU();
  std::vector<test::Case> cases = test::tile_cases();
  const std::vector<test::Case> standard = test::standard_cases();
  for (std::size_t i = 0; i < standard.size(); i += 4) cases.push_back(standard[i]);
  cases.push_back(test::Case{"int16_friendly", test::int16_friendly_graph(700)});
  for (int ranks : {1, 2, 4})
    for (const test::DistConfig& config : test::configs_for(ranks))
      on_gpu_threads(ranks, [&](Communicator& comm) {
        for (const test::Case& c : cases) test::check_gpu_predecessors(comm, c, config, Precision::automatic);
        test::check_gpu_predecessors(comm, cases.back(), config, Precision::int32);
      });
}

// float32 and float64 on the GPU engine (issue 22; float64 on the one-GPU
// float64 kernels' 64-wide tiles), 1, 2 and 4 ranks sharing device 0:
// within the tolerance of the long-double reference, predecessors
// tight-edge trees, negative cycles refused on every rank.
TEST(DistributedGpu, RealWeightsMatchTheReference) {
  SKIP_WITHOUT_GPU();
  for (int ranks : {1, 2, 4})
    for (const test::DistConfig& config : test::configs_for(ranks))
      on_gpu_threads(ranks, [&](Communicator& comm) {
        test::check_real_weights(comm, config, Backend::cuda);
        test::check_real_negative_cycles(comm, config, Backend::cuda);
      });
}

// GPU ranks out of core per rank (issue 24; src/distributed/gpu_ooc_engine.cu):
// forced by a super width, the rows layout (look-ahead on and off) on 1, 2
// and 3 ranks, and a 1 x 2 grid (the pivot travels along the process row),
// at widths 128, 256 and 384 (not dividing most n).
std::vector<test::DistConfig> gpu_out_of_core_configs(int ranks) {
  std::vector<test::DistConfig> out{test::DistConfig{Distribution::rows, 0, 0, true, 128},
                                    test::DistConfig{Distribution::rows, 0, 0, false, 384},
                                    test::DistConfig{Distribution::rows, 0, 0, true, 256}};
  if (ranks == 2) out.push_back(test::DistConfig{Distribution::grid, 1, 2, true, 128});
  return out;
}

TEST(DistributedGpuOutOfCore, TileCasesMatchFwBlocked) {
  SKIP_WITHOUT_GPU();
  std::vector<test::Case> cases = test::tile_cases();
  cases.push_back(test::Case{"random_n1000", test::generated(GraphKind::random, 1000, 6000, 1, 40, 17)});
  for (int ranks : {1, 2, 3})
    for (const test::DistConfig& config : gpu_out_of_core_configs(ranks))
      on_gpu_threads(ranks, [&](Communicator& comm) {
        for (const test::Case& c : cases) test::check_gpu_matches_fw_blocked(comm, c, config);
      });
}

// Every row equal to the single-GPU fw's (R-MAT, negative weights), and to
// in-core distributed fw's by transitivity (MatchesTheSingleGpuSolverAt2048And1999).
TEST(DistributedGpuOutOfCore, MatchesTheSingleGpuSolver) {
  SKIP_WITHOUT_GPU();
  for (int ranks : {2, 3})
    for (const std::int64_t width : {256, 384})
      on_gpu_threads(ranks, [&](Communicator& comm) {
        test::check_gpu_matches_single_gpu(comm, 1999, test::DistConfig{Distribution::rows, 0, 0, true, width});
      });
}

// int16 attempts out of core (widths a multiple of 256): certified where the
// distances fit, rerun in int32 (widen_gpu_ooc_engine) where they do not.
TEST(DistributedGpuOutOfCore, Int16AttemptsAreCertifiedOrRerunInInt32) {
  SKIP_WITHOUT_GPU();
  const Graph friendly = test::int16_friendly_graph(1500), overflowing = test::int16_overflowing_graph(700);
  for (int ranks : {1, 2, 3})
    for (const std::int64_t width : {256, 512})
      on_gpu_threads(ranks, [&](Communicator& comm) {
        const test::DistConfig config{Distribution::rows, 0, 0, width == 256, width};
        test::check_gpu_precision(comm, "friendly", friendly, config, Precision::automatic, Precision::int16);
        test::check_gpu_precision(comm, "friendly", friendly, config, Precision::int16, Precision::int16);
        test::check_gpu_precision(comm, "overflowing", overflowing, config, Precision::int16, Precision::int32);
      });
}

TEST(DistributedGpuOutOfCore, PredecessorsAreTightEdgeTrees) {
  SKIP_WITHOUT_GPU();
  std::vector<test::Case> cases = test::tile_cases();
  cases.push_back(test::Case{"int16_friendly", test::int16_friendly_graph(700)});
  for (int ranks : {1, 2, 3})
    for (const test::DistConfig& config : gpu_out_of_core_configs(ranks))
      on_gpu_threads(ranks, [&](Communicator& comm) {
        for (const test::Case& c : cases) test::check_gpu_predecessors(comm, c, config, Precision::automatic);
        test::check_gpu_predecessors(comm, cases.back(), config, Precision::int32);
      });
}

// Distances beyond int32 are refused on every rank out of core too.
TEST(DistributedGpuOutOfCore, DistancesBeyondInt32AreRefusedOnEveryRank) {
  SKIP_WITHOUT_GPU();
  for (int ranks : {1, 2, 3})
    on_gpu_threads(ranks, [&](Communicator& comm) {
      test::check_gpu_output_range(comm, test::DistConfig{Distribution::rows, 0, 0, true, 128});
    });
}

}  // namespace
}  // namespace apsp
