// The mpirun harness: every rank runs the same GoogleTest suite on the MPI
// world communicator (tests are collective). Rank 0 prints the usual report;
// the other ranks print only their failures, prefixed with their rank. Run by
// CTest through tests/distributed/run-mpi with 1, 2, 3, 4 and 6 ranks.
#include <gtest/gtest.h>

#include <cstdio>

#include "distributed/mpi/world.hpp"

namespace apsp::test {
namespace {

Communicator* the_world = nullptr;

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.message());
  }

 private:
  int rank_;
};

}  // namespace

Communicator& world() { return *the_world; }

}  // namespace apsp::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::unique_ptr<apsp::Communicator> world = apsp::make_mpi_communicator();
  apsp::test::the_world = world.get();
  if (world->rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new apsp::test::RankFailurePrinter(world->rank()));
  }
  const int failed = RUN_ALL_TESTS();
  // Every rank's verdict, so that rank 0's report and exit code cover all.
  const std::int32_t any_failed = world->all_reduce(std::int32_t{failed != 0}, apsp::ReduceOp::max);
  if (world->rank() == 0 && any_failed && !failed) std::fprintf(stderr, "a test failed on another rank\n");
  return any_failed ? 1 : 0;
}
