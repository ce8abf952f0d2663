// The mpi communicator under mpirun: the collective checks the local groups
// pass (tests/distributed/checks), on the job's ranks.
#include <gtest/gtest.h>

#include "distributed/checks/comm_checks.hpp"
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

}  // namespace
}  // namespace apsp
