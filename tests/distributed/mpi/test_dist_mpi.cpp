// The distributed solver on MPI ranks: every layout and grid this job's rank
// count allows, look-ahead on and off, against the single-process fw-blocked
// (the same checks as the thread harness, tests/distributed/test_dist_solver.cpp).
#include <gtest/gtest.h>

#include "distributed/checks/dist_checks.hpp"
#include "distributed/checks/late_transport.hpp"
#include "distributed/mpi/world.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

TEST(MpiDistributedSolver, StandardCasesMatchFwBlocked) {
  const std::vector<test::Case> cases = test::standard_cases();
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    for (std::size_t i = 0; i < cases.size(); ++i)
      test::check_matches_fw_blocked(test::world(), cases[i], config, (i + config.lookahead) % 2 == 0);
}

TEST(MpiDistributedSolver, TileCases) {
  const std::vector<test::Case> cases = test::tile_cases();
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    for (std::size_t i = 0; i < cases.size(); ++i)
      test::check_matches_fw_blocked(test::world(), cases[i], config, (i + config.lookahead) % 2 == 1);
}

TEST(MpiDistributedSolver, NegativeCycleOffRankZero) {
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    test::check_negative_cycles(test::world(), config);
}

TEST(MpiDistributedSolver, RealWeightsMatchTheReference) {
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    test::check_real_weights(test::world(), config);
}

TEST(MpiDistributedSolver, RealNegativeCyclesOffRankZero) {
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    test::check_real_negative_cycles(test::world(), config);
}

TEST(MpiDistributedSolver, LargeWeightsAndOverflow) {
  for (const test::DistConfig& config : test::configs_for(test::world().size()))
    test::check_large_weights(test::world(), config);
}

// Out of core per rank, forced: fw-ooc's super-rounds on every rank.
TEST(MpiDistributedSolver, OutOfCorePerRank) {
  std::vector<test::Case> cases = test::out_of_core_cases();
  for (test::Case& c : test::tile_cases()) cases.push_back(std::move(c));
  for (const test::DistConfig& config : test::out_of_core_configs(test::world().size())) {
    for (std::size_t i = 0; i < cases.size(); ++i)
      test::check_matches_fw_blocked(test::world(), cases[i], config, i % 2 == 0);
    test::check_negative_cycles(test::world(), config);
  }
}

// Early device calls: a transport ready on each rank at another round
// (tests/distributed/checks/late_transport.hpp).
TEST(MpiDistributedSolver, EarlyTransportSwitchesAtTheSameRoundOnEveryRank) {
  test::check_late_transport_switch(test::world());
}
TEST(MpiDistributedSolver, NeverSwitchingTransportStagesEveryRound) {
  test::check_never_switching_transport(test::world());
}

TEST(MpiDistributedSolver, AgreedErrors) { test::check_agreed_errors(test::world()); }

}  // namespace
}  // namespace apsp
