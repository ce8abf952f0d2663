// The mpi communicator under mpirun: the collective checks the local groups
// pass (tests/distributed/checks), on the job's ranks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "comm/shared_staging.hpp"
#include "distributed/checks/comm_checks.hpp"
#include "distributed/checks/staging_checks.hpp"
#include "distributed/mpi/world.hpp"

namespace apsp {
namespace {

TEST(MpiCommunicator, IsTheWorld) {
  EXPECT_STREQ(test::world().kind(), "mpi");
  EXPECT_TRUE(launched_by_mpi());
}
TEST(MpiCommunicator, Broadcast) { test::check_broadcast(test::world()); }
TEST(MpiCommunicator, AllReduce) { test::check_all_reduce(test::world()); }
TEST(MpiCommunicator, SendReceive) { test::check_send_receive(test::world()); }
TEST(MpiCommunicator, Split) { test::check_split(test::world()); }
TEST(MpiCommunicator, BroadcastGraph) { test::check_broadcast_graph(test::world()); }
TEST(MpiCommunicator, AgreeFrom) { test::check_agree_from(test::world()); }
TEST(MpiCommunicator, BadArguments) { test::check_bad_arguments(test::world()); }

// The node-shared staging of broadcasts (src/comm/mpi.cpp), which device
// broadcasts take, on host buffers (the testing hook): every byte of a long
// sequence arrives, and every broadcast of at least the threshold went
// through the segment (ranks of one node: the harness's), the segment
// grown along the way. With one rank nothing is staged.
TEST(MpiCommunicator, BroadcastsThroughNodeSharedMemory) {
  Communicator& world = test::world();
  const comm::testing::SharedStagingCounts before = comm::testing::shared_staging_counts();
  comm::testing::stage_host_broadcasts(true);
  const std::int64_t large =
      test::check_staged_broadcasts(world, Memory::host, comm::testing::shared_staging_min_bytes(), 60);
  comm::testing::stage_host_broadcasts(false);
  const comm::testing::SharedStagingCounts after = comm::testing::shared_staging_counts();
  EXPECT_GT(large, 20);
  EXPECT_EQ(after.broadcasts - before.broadcasts, world.size() > 1 ? large : 0);
  if (world.size() > 1) EXPECT_GE(after.windows - before.windows, 1);
  // Long broadcasts in pieces (an odd piece size: 1 MiB and 100 bytes; the
  // 3 MiB ones go in 3), the halves taking turns piece after piece.
  comm::testing::set_shared_staging_piece_bytes((1 << 20) + 100);
  comm::testing::stage_host_broadcasts(true);
  const std::int64_t pieced =
      test::check_staged_broadcasts(world, Memory::host, comm::testing::shared_staging_min_bytes(), 30);
  comm::testing::stage_host_broadcasts(false);
  comm::testing::set_shared_staging_piece_bytes(0);
  EXPECT_EQ(comm::testing::shared_staging_counts().broadcasts - after.broadcasts, world.size() > 1 ? pieced : 0);
  // Split communicators have segments of their own.
  const std::unique_ptr<Communicator> half = world.split(world.rank() % 2, world.rank());
  comm::testing::stage_host_broadcasts(true);
  test::check_staged_broadcasts(*half, Memory::host, comm::testing::shared_staging_min_bytes(), 6);
  comm::testing::stage_host_broadcasts(false);
  world.barrier();
}

// APSP_STAGING names how device broadcasts are staged (ipc, shared, mpi);
// another value is refused when a communicator is made, on every rank.
TEST(MpiCommunicator, AnUnknownStagingIsAUsageError) {
  const char* given = std::getenv("APSP_STAGING");
  const std::string before = given ? given : "";
  setenv("APSP_STAGING", "nvlink", 1);
  EXPECT_THROW(test::world().split(0, test::world().rank()), UsageError);
  for (const char* known : {"ipc", "shared", "mpi"}) {
    setenv("APSP_STAGING", known, 1);
    EXPECT_NO_THROW(test::world().split(0, test::world().rank())) << known;
  }
  if (given)
    setenv("APSP_STAGING", before.c_str(), 1);
  else
    unsetenv("APSP_STAGING");
}

}  // namespace
}  // namespace apsp
