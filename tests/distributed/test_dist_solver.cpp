// The distributed solver in process: local groups of 1, 2, 3, 4 and 6
// threads, every layout and grid, look-ahead on and off, against the
// single-process fw-blocked on the standard cases (the mpirun harness runs
// the same checks on MPI ranks).
#include <gtest/gtest.h>

#include <atomic>
#include <utility>
#include <ostream>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/distributed.hpp"
#include "apsp/solver.hpp"
#include "distributed/checks/dist_checks.hpp"
#include "distributed/checks/late_transport.hpp"
#include "distributed/checks/row_collector.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

struct RankSetup {
  int ranks;
  test::DistConfig config;
};

void PrintTo(const RankSetup& s, std::ostream* os) { *os << s.ranks << " ranks, " << s.config.name(); }

std::vector<RankSetup> all_setups() {
  std::vector<RankSetup> out;
  for (int ranks : {1, 2, 3, 4, 6})
    for (const test::DistConfig& c : test::configs_for(ranks)) out.push_back(RankSetup{ranks, c});
  return out;
}

void on_threads(int ranks, const std::function<void(Communicator&)>& body) {
  run_on_threads(make_local_communicators(ranks), body);
}

class DistributedSolver : public ::testing::TestWithParam<RankSetup> {};

TEST_P(DistributedSolver, StandardCasesMatchFwBlocked) {
  const RankSetup s = GetParam();
  const std::vector<test::Case> cases = test::standard_cases();
  on_threads(s.ranks, [&](Communicator& comm) {
    // Predecessors on every other case, alternating with look-ahead, so
    // both kernels run on every shape.
    for (std::size_t i = 0; i < cases.size(); ++i)
      test::check_matches_fw_blocked(comm, cases[i], s.config, (i + s.config.lookahead) % 2 == 0);
  });
}

TEST_P(DistributedSolver, NegativeCycleOffRankZero) {
  const RankSetup s = GetParam();
  on_threads(s.ranks, [&](Communicator& comm) { test::check_negative_cycles(comm, s.config); });
}

TEST_P(DistributedSolver, RealWeightsMatchTheReference) {
  const RankSetup s = GetParam();
  on_threads(s.ranks, [&](Communicator& comm) { test::check_real_weights(comm, s.config); });
}

TEST_P(DistributedSolver, RealNegativeCyclesOffRankZero) {
  const RankSetup s = GetParam();
  on_threads(s.ranks, [&](Communicator& comm) { test::check_real_negative_cycles(comm, s.config); });
}

TEST_P(DistributedSolver, LargeWeightsAndOverflow) {
  const RankSetup s = GetParam();
  on_threads(s.ranks, [&](Communicator& comm) { test::check_large_weights(comm, s.config); });
}

INSTANTIATE_TEST_SUITE_P(Grids, DistributedSolver, ::testing::ValuesIn(all_setups()), [](const auto& info) {
  return "P" + std::to_string(info.param.ranks) + "_" + info.param.config.name();
});

// The tile-straddling cases (up to 509 vertices, 8 tiles) on the shapes
// that split both ways.
TEST(DistributedSolverTiles, TileCasesOnSquareAndWideGrids) {
  const std::vector<test::Case> cases = test::tile_cases();
  for (const test::DistConfig& config :
       {test::DistConfig{Distribution::grid, 2, 2, true}, test::DistConfig{Distribution::grid, 2, 3, false},
        test::DistConfig{Distribution::rows, 0, 0, true}}) {
    const int ranks = config.distribution == Distribution::rows ? 3 : config.grid_rows * config.grid_cols;
    on_threads(ranks, [&](Communicator& comm) {
      for (std::size_t i = 0; i < cases.size(); ++i) test::check_matches_fw_blocked(comm, cases[i], config, i % 2 == 0);
    });
  }
}

// Weights 0 and 1, so zero-weight cycles everywhere: the blocked schedule
// leaves some predecessor rows with looping chains, which are rebuilt as
// tight-edge trees as fw-blocked's are (the check verifies every delivered
// row and compares it with fw-blocked's), at tile-straddling sizes.
TEST(DistributedSolverTiles, PredecessorsStayTreesAcrossZeroWeightCycles) {
  for (const test::DistConfig& config :
       {test::DistConfig{Distribution::grid, 2, 2, true}, test::DistConfig{Distribution::rows, 0, 0, false}}) {
    const int ranks = config.distribution == Distribution::rows ? 3 : config.grid_rows * config.grid_cols;
    on_threads(ranks, [&](Communicator& comm) {
      for (const std::int64_t n : {63, 64, 65, 130, 200}) {
        const test::Case c{"zero_one_random_n" + std::to_string(n),
                           test::generated(GraphKind::random, n, 4 * n, 0, 1, static_cast<std::uint64_t>(n))};
        test::check_matches_fw_blocked(comm, c, config, true);
      }
    });
  }
}

TEST(DistributedSolverErrors, AgreedOnEveryRank) {
  for (int ranks : {1, 3}) on_threads(ranks, test::check_agreed_errors);
}

// Issue 20, defect 13: the CPU ranks computed in int64 where int32 sums
// could overflow but reported int32, where the single-process solve of the
// same graph says int64. A star of 300 vertices and weights 10^7: every
// distance fits int32, (n - 1) * max |w| does not.
TEST(DistributedSolverPrecision, ReportsTheArithmeticAsTheSingleProcessSolveDoes) {
  Graph star{300, {}};
  for (vertex_t v = 1; v < 300; ++v) star.edges.push_back(Edge{0, v, 10000000});
  const test::Case small{"random_n200", test::generated(GraphKind::random, 200, 900, 1, 50, 5)};
  for (const auto& [g, expected] : {std::pair<Graph, Precision>{star, Precision::int64},
                                    std::pair<Graph, Precision>{small.graph, Precision::int32}}) {
    SolveOptions single;
    single.backend = Backend::cpu;
    single.algorithm = "fw-blocked";
    EXPECT_EQ(solve(g, single).precision, expected);
    for (const Precision asked : {Precision::automatic, Precision::int64}) {
      on_threads(2, [&](Communicator& comm) {
        DistributedOptions o;
        o.threads = 1;
        o.precision = asked;
        test::RowCollector sink;
        const DistributedResult r = solve_distributed(comm, g, o, sink);
        EXPECT_EQ(r.precision, asked == Precision::int64 ? Precision::int64 : expected);
      });
    }
  }
}

// A rank that fails alone in the middle of the rounds (here its progress
// callback throws, as a device error would) leaves the others waiting in a
// collective: aborting the group wakes them (a rank left waiting would hang,
// which ctest's timeout reports), every sink is discarded, and the first
// error is the one that comes out.
TEST(DistributedSolverErrors, OneRankFailingMidSolveStopsEveryRank) {
  const test::Case c{"random_n600", test::generated(GraphKind::random, 600, 3000, 1, 50, 17)};
  for (const test::DistConfig& config :
       {test::DistConfig{Distribution::rows, 0, 0, true}, test::DistConfig{Distribution::grid, 2, 2, false}}) {
    SCOPED_TRACE(config.name());
    std::atomic<int> discarded{0}, committed{0};
    try {
      on_threads(4, [&](Communicator& comm) {
        test::RowCollector sink;
        DistributedOptions o = config.options();
        if (comm.rank() == 2)
          o.progress = [](double fraction) {
            if (fraction >= 0.5) throw ResourceError("rank 2 lost its device");
          };
        try {
          solve_distributed(comm, c.graph, o, sink);
        } catch (...) {
          discarded += sink.discards;
          throw;
        }
        committed += sink.commits;
      });
      ADD_FAILURE() << "no error came out";
    } catch (const ResourceError& e) {
      EXPECT_STREQ(e.what(), "rank 2 lost its device");
    }
    EXPECT_EQ(discarded.load(), 4);
    EXPECT_EQ(committed.load(), 0);
  }
}

TEST(DistributedSolverErrors, SingleCommunicatorRunsTheDistributedPath) {
  auto comm = make_single_communicator();
  const std::vector<test::Case> cases = test::standard_cases();
  for (std::size_t i = 0; i < cases.size(); i += 7)
    test::check_matches_fw_blocked(*comm, cases[i], test::DistConfig{Distribution::grid, 1, 1, true}, true);
}

// Early device calls (Communicator::advance_transport): a transport that is
// ready on each rank at another round; every rank switches at the same
// one, and the results are fw-blocked's.
TEST(DistributedSolverEarlyTransport, EveryRankSwitchesAtTheSameRound) {
  for (int ranks : {1, 2, 3, 4}) on_threads(ranks, [](Communicator& comm) { test::check_late_transport_switch(comm); });
}

// Staged device calls that never switch (nccl's APSP_NCCL_EARLY=never): no
// all-reduce a round, every round staged, and the rounds' split in the
// result.
TEST(DistributedSolverEarlyTransport, NeverSwitchingStagesEveryRound) {
  for (int ranks : {1, 2, 3, 4})
    on_threads(ranks, [](Communicator& comm) { test::check_never_switching_transport(comm); });
}

TEST(DistributedSolverErrors, ParseDistribution) {
  EXPECT_EQ(parse_distribution("rows"), Distribution::rows);
  EXPECT_EQ(parse_distribution("2d"), Distribution::grid);
  EXPECT_STREQ(to_string(Distribution::grid), "2d");
  try {
    parse_distribution("3d");
    ADD_FAILURE() << "3d accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "distribution");
  }
}

}  // namespace
}  // namespace apsp
