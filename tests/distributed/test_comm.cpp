// The single and local communicators, in process: the same collective checks
// the mpirun harness runs, on 1 to 6 threads, plus abort behaviour.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "apsp/comm.hpp"
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "distributed/checks/comm_checks.hpp"

namespace apsp {
namespace {

void on_local_group(int ranks, const std::function<void(Communicator&)>& body) {
  run_on_threads(make_local_communicators(ranks), body);
}

class LocalGroup : public ::testing::TestWithParam<int> {};

TEST_P(LocalGroup, Broadcast) { on_local_group(GetParam(), test::check_broadcast); }
TEST_P(LocalGroup, AllReduce) { on_local_group(GetParam(), test::check_all_reduce); }
TEST_P(LocalGroup, SendReceive) { on_local_group(GetParam(), test::check_send_receive); }
TEST_P(LocalGroup, Split) { on_local_group(GetParam(), test::check_split); }
TEST_P(LocalGroup, BadArguments) { on_local_group(GetParam(), test::check_bad_arguments); }
TEST_P(LocalGroup, BroadcastGraph) { on_local_group(GetParam(), test::check_broadcast_graph); }
TEST_P(LocalGroup, AgreeFrom) { on_local_group(GetParam(), test::check_agree_from); }

INSTANTIATE_TEST_SUITE_P(Ranks, LocalGroup, ::testing::Values(1, 2, 3, 4, 6),
                         [](const auto& info) { return "P" + std::to_string(info.param); });

TEST(SingleCommunicator, PassesTheCollectiveChecks) {
  auto comm = make_single_communicator();
  EXPECT_STREQ(comm->kind(), "single");
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  test::check_broadcast(*comm);
  test::check_all_reduce(*comm);
  test::check_send_receive(*comm);
  test::check_split(*comm);
  test::check_bad_arguments(*comm);
}

TEST(SingleCommunicator, ReceiveWithoutSendIsAnError) {
  auto comm = make_single_communicator();
  std::int32_t x = 0;
  EXPECT_THROW(comm->receive(&x, 1, 0), UsageError);
  comm->send(&x, 1, 0);
  std::int64_t wrong_size[2];
  EXPECT_THROW(comm->receive(wrong_size, 2, 0), UsageError);
}

TEST(SingleCommunicator, CallsAfterAbortThrow) {
  auto comm = make_single_communicator();
  comm->abort(2);
  EXPECT_THROW(comm->barrier(), CommAborted);
}

// A rank that fails while the others wait in a receive, a broadcast, a
// barrier and a split collective: every waiting rank is woken by CommAborted
// (counted; a rank left waiting would hang, which ctest's timeout reports)
// and the first real error comes out.
TEST(LocalGroupAbort, FailureOfOneRankWakesEveryWaitingRank) {
  for (int failing = 0; failing < 4; ++failing) {
    std::atomic<int> aborted_ranks{0};
    try {
      on_local_group(4, [&](Communicator& comm) {
        if (comm.rank() == failing) throw InputError("rank " + std::to_string(failing) + " read a bad file");
        try {
          std::int32_t x = 0;
          switch (comm.rank() % 3) {
            case 0: comm.receive(&x, 1, failing); break;
            case 1: comm.broadcast(&x, 1, failing); break;
            default: comm.split(0, 0); break;
          }
          comm.barrier();
        } catch (const CommAborted&) {
          ++aborted_ranks;
          throw;
        }
      });
      ADD_FAILURE() << "no error came out";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(failing) + " read a bad file");
    }
    EXPECT_EQ(aborted_ranks.load(), 3);
  }
}

TEST(LocalGroupAbort, SplitGroupsAbortWithTheirParent) {
  EXPECT_THROW(on_local_group(4,
                              [](Communicator& comm) {
                                auto part = comm.split(comm.rank() % 2, comm.rank());
                                if (comm.rank() == 3) throw ResourceError("out of memory on rank 3");
                                part->barrier();  // rank 1 waits here for rank 3
                                comm.barrier();
                              }),
               ResourceError);
}

TEST(LocalCommunicators, RefuseBadShapes) {
  EXPECT_THROW(make_local_communicators(0), UsageError);
  EXPECT_THROW(make_local_communicators(2, {0}), UsageError);
  EXPECT_THROW(make_local_communicators(1, {-1}), UsageError);
}

TEST(Communicators, DeviceBuffersNeedCuda) {
  if (cuda::compiled_in()) GTEST_SKIP() << "this build has CUDA; the GPU tests cover device buffers";
  auto comm = make_single_communicator();
  std::int32_t x = 0;
  EXPECT_THROW(comm->broadcast(&x, 1, 0, Memory::device), ResourceError);
}

TEST(Communicators, SupportMatchesTheBuild) {
  const CommSupport s = comm_support();
  EXPECT_EQ(s.mpi, !s.mpi_library.empty());
  EXPECT_EQ(s.nccl, !s.nccl_version.empty());
  if (!s.mpi) EXPECT_THROW(make_mpi_communicator(), ResourceError);
}

}  // namespace
}  // namespace apsp
