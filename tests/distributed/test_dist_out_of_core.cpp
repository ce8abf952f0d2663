// Out of core per rank, forced (DistributedOptions::super_width): the rounds
// as fw-ooc's super-rounds on CPU ranks of local groups of 1 to 4 threads,
// in the rows layout and on a 2 x 2 grid, against the single-process
// fw-blocked (distances) and fw-ooc (predecessors, at its width 128). The
// mpirun harness runs the same checks (tests/distributed/mpi/test_dist_mpi.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/distributed.hpp"
#include "apsp/error.hpp"
#include "distributed/checks/dist_checks.hpp"
#include "distributed/checks/row_collector.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

void on_threads(int ranks, const std::function<void(Communicator&)>& body) {
  run_on_threads(make_local_communicators(ranks), body);
}

TEST(DistributedOutOfCore, MatchesSingleProcessAcrossSuperWidthsAndRanks) {
  std::vector<test::Case> cases = test::out_of_core_cases();
  for (test::Case& c : test::tile_cases()) cases.push_back(std::move(c));
  for (int ranks : {1, 2, 3, 4})
    for (const test::DistConfig& config : test::out_of_core_configs(ranks))
      on_threads(ranks, [&](Communicator& comm) {
        for (std::size_t i = 0; i < cases.size(); ++i)
          test::check_matches_fw_blocked(comm, cases[i], config, (i + static_cast<std::size_t>(ranks)) % 2 == 0);
      });
}

TEST(DistributedOutOfCore, StandardCasesOnThreeRanks) {
  const std::vector<test::Case> cases = test::standard_cases();
  for (const test::DistConfig& config : test::out_of_core_configs(3))
    on_threads(3, [&](Communicator& comm) {
      for (std::size_t i = 0; i < cases.size(); ++i) test::check_matches_fw_blocked(comm, cases[i], config, i % 2 == 0);
    });
}

// Zero-weight cycles everywhere: ties on every path, predecessors equal to
// fw-ooc's at its width and trees (verify) at another.
TEST(DistributedOutOfCore, PredecessorsAcrossZeroWeightCycles) {
  for (const test::DistConfig& config : test::out_of_core_configs(4))
    on_threads(4, [&](Communicator& comm) {
      for (const std::int64_t n : {127, 128, 129, 200, 257}) {
        const test::Case c{"zero_one_random_n" + std::to_string(n),
                           test::generated(GraphKind::random, n, 4 * n, 0, 1, static_cast<std::uint64_t>(n))};
        test::check_matches_fw_blocked(comm, c, config, true);
      }
    });
}

TEST(DistributedOutOfCore, NegativeCyclesRealWeightsAndLargeWeights) {
  for (int ranks : {2, 3})
    for (const test::DistConfig& config : test::out_of_core_configs(ranks))
      on_threads(ranks, [&](Communicator& comm) {
        test::check_negative_cycles(comm, config);
        test::check_real_negative_cycles(comm, config);
        test::check_large_weights(comm, config);
      });
  on_threads(2, [&](Communicator& comm) { test::check_real_weights(comm, test::out_of_core_configs(2).front()); });
}

// A width that is no multiple of the CPU tile is refused on every rank
// before any work; on GPU ranks (out of core per rank, gpu_ooc_engine.cu)
// so are a width that is no multiple of the GPU tile and real weights, before
// a device is touched.
TEST(DistributedOutOfCore, RefusedWidthsAndBackends) {
  const test::Case c{"random_n100", test::generated(GraphKind::random, 100, 400, 1, 9, 3)};
  // `graph` at `width` on `backend` is refused with `expected`.
  const auto refused = [&](const auto& graph, std::int64_t width, Backend backend, const std::string& expected) {
    on_threads(2, [&](Communicator& comm) {
      test::RowCollector sink;
      DistributedOptions o;
      o.threads = 1;
      o.super_width = width;
      o.backend = backend;
      const auto [message, origin] = test::expect_agreed<UsageError>([&] { solve_distributed(comm, graph, o, sink); });
      EXPECT_NE(message.find(expected), std::string::npos) << message;
      EXPECT_EQ(sink.commits, 0);
    });
  };
  for (const std::int64_t width : {-64, 100}) refused(c.graph, width, Backend::cpu, "not a positive multiple of 64");
  refused(c.graph, 192, Backend::cuda, "GPU ranks out of core need a super width that is a multiple of 128, not 192");
  refused(test::with_real_weights(c.graph), 128, Backend::cuda, "GPU ranks out of core per rank compute int32 weights");
}

}  // namespace
}  // namespace apsp
