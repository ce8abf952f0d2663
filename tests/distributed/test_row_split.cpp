// The row split across ranks on the thread harness (local communicators,
// one thread per rank): the shared counter, every per-source CPU algorithm
// against one process, and failures (the mpirun harness runs the same
// checks: tests/distributed/mpi/test_row_split_mpi.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "cuda/testing.hpp"
#include "distributed/checks/gpu_checks.hpp"
#include "distributed/checks/part_checks.hpp"
#include "distributed/checks/row_split_checks.hpp"

namespace apsp {
namespace {

void on_threads(int ranks, const std::function<void(Communicator&)>& body) {
  run_on_threads(make_local_communicators(ranks), body);
}

TEST(RowSplitRanks, SharedCounterHandsOutEveryValueOnce) {
  for (int ranks : {1, 2, 3, 6}) on_threads(ranks, test::check_shared_counter);
  test::check_shared_counter(*make_single_communicator());
}

class RowSplitAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(RowSplitAlgorithm, RowsMatchOneProcess) {
  for (int ranks : {1, 3})
    on_threads(ranks, [](Communicator& comm) { test::check_rows_match_one_process(comm, GetParam()); });
}

INSTANTIATE_TEST_SUITE_P(Cpu, RowSplitAlgorithm, ::testing::Values("dijkstra", "johnson", "bellman-ford", "supernodal"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

// Issue 23 across ranks: sources, targets, a cutoff and the nearest
// targets through the row split equal one process on 1 to 4 ranks.
TEST(RowSplitParts, PartsMatchOneProcess) {
  for (int ranks : {1, 2, 3, 4})
    on_threads(ranks, [](Communicator& comm) { test::check_parts_match_one_process(comm); });
}

TEST(RowSplitParts, BadPartsAreRefusedOnEveryRankBeforeAnyWork) {
  for (int ranks : {1, 3}) on_threads(ranks, test::check_part_errors);
}

// The same parts from GPU ranks sharing device 0 (sssp's rows, the targets
// gathered on the device). Skips without a CUDA device.
TEST(RowSplitGpu, PartsMatchOneGpu) {
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (int ranks : {1, 2, 3})
    run_on_threads(make_local_communicators(ranks, std::vector<int>(static_cast<std::size_t>(ranks), 0)),
                   [](Communicator& comm) { test::check_parts_match_one_process(comm, Backend::cuda); });
}

// The GPU's row solvers from ranks sharing device 0 (as --devices 0,0 runs
// them). Skips without a CUDA device.
TEST(RowSplitGpu, SsspAndSupernodalRowsFromRanksSharingOneGpu) {
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* algorithm : {"sssp", "supernodal"})
    for (int ranks : {1, 2, 3})
      run_on_threads(make_local_communicators(ranks, std::vector<int>(static_cast<std::size_t>(ranks), 0)),
                     [&](Communicator& comm) { test::check_gpu_rows_match_one_gpu(comm, algorithm); });
}

// A device budget of 97 rows (int32 distances and predecessors of n = 1501)
// cuts each rank's rows into many chunks: kept on the device, they go to the
// sink each time the budget is full and after the last chunk (flushes);
// downloaded once computed (APSP_ROW_DOWNLOAD=per-chunk's way), never kept.
// The rows and predecessors equal one GPU's either way. Skips without a
// CUDA device.
TEST(RowSplitGpu, RowsKeptOnTheDeviceOrDownloadedPerChunkMatchOneGpu) {
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device";
  cuda::testing::hooks.sparse_row_budget = 97 * 1501 * 8;
  for (bool per_chunk : {false, true})
    for (int ranks : {1, 2}) {
      SCOPED_TRACE(std::string(per_chunk ? "per chunk" : "kept") + ", " + std::to_string(ranks) + " ranks");
      const std::int64_t flushes = cuda::testing::hooks.row_split_flushes;
      run_on_threads(make_local_communicators(ranks, std::vector<int>(static_cast<std::size_t>(ranks), 0)),
                     [&](Communicator& comm) { test::check_gpu_rows_with_predecessors(comm, per_chunk); });
      const std::int64_t made = cuda::testing::hooks.row_split_flushes - flushes;
      if (per_chunk)
        EXPECT_EQ(made, 0);
      else  // 1501 rows over buffers of 97: at least 16 fills per solve, 4 solves (one GPU's own: none)
        EXPECT_GE(made, 2 * 16);
    }
  cuda::testing::hooks.sparse_row_budget = 0;
}

TEST(RowSplitGpu, AFailingRankStopsEveryRank) {
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (int ranks : {1, 2})
    run_on_threads(make_local_communicators(ranks, std::vector<int>(static_cast<std::size_t>(ranks), 0)),
                   test::check_gpu_row_split_failure);
}

TEST(RowSplitRanks, AFailingRankStopsEveryRank) {
  for (int ranks : {1, 2, 4}) on_threads(ranks, test::check_row_split_failures);
}

}  // namespace
}  // namespace apsp
