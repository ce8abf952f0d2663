// The row split across MPI ranks: the shared counter (an MPI window), every
// per-source CPU algorithm against one process, and failures (the same
// checks as the thread harness, tests/distributed/test_row_split.cpp).
#include <gtest/gtest.h>

#include "distributed/checks/gpu_checks.hpp"
#include "distributed/checks/part_checks.hpp"
#include "distributed/checks/row_split_checks.hpp"
#include "distributed/mpi/world.hpp"

namespace apsp {
namespace {

TEST(MpiRowSplit, SharedCounterHandsOutEveryValueOnce) { test::check_shared_counter(test::world()); }

TEST(MpiRowSplit, RowsMatchOneProcess) {
  for (const char* algorithm : {"dijkstra", "johnson", "bellman-ford", "supernodal"})
    test::check_rows_match_one_process(test::world(), algorithm, 3);
}

// int32 only here (the thread harness runs float64 too): 6 ranks share the cores.
TEST(MpiRowSplit, PartsMatchOneProcess) { test::check_parts_match_one_process(test::world(), Backend::cpu, false); }

TEST(MpiRowSplit, BadPartsAreRefusedOnEveryRankBeforeAnyWork) { test::check_part_errors(test::world()); }

TEST(MpiRowSplit, AFailingRankStopsEveryRank) { test::check_row_split_failures(test::world()); }

// The GPU's row solvers on MPI ranks, each on the device the world
// communicator was opened with (device 0 when the ranks share one). Skips
// without a CUDA device.
TEST(MpiRowSplitGpu, SsspAndSupernodalRowsMatchOneGpu) {
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* algorithm : {"sssp", "supernodal"}) test::check_gpu_rows_match_one_gpu(test::world(), algorithm);
}

// Sources, targets, a cutoff and the nearest targets from GPU ranks. Skips
// without a CUDA device.
TEST(MpiRowSplitGpu, PartsMatchOneGpu) {
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device";
  test::check_parts_match_one_process(test::world(), Backend::cuda);
}

}  // namespace
}  // namespace apsp
