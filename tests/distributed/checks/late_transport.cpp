#include "distributed/checks/late_transport.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <limits>

#include "distributed/checks/gpu_checks.hpp"
#include "distributed/checks/row_collector.hpp"
#include "support/cases.hpp"

namespace apsp::test {

LateTransport::LateTransport(Communicator& inner, std::int64_t ready_at, bool never)
    : Communicator(inner.rank(), inner.size()), inner_(inner), ready_at_(ready_at), never_(never) {}

void LateTransport::do_broadcast(void* data, std::size_t, DataType type, std::size_t count, int root, Memory memory,
                                 void* stream) {
  if (!on_) {
    ++staged_;
    return inner_.broadcast(data, count, type, root, memory, stream);
  }
  ++switched_;
  if (rank() != root) return inner_.receive(data, count, type, root, memory, stream);
  for (int r = 0; r < size(); ++r)
    if (r != root) inner_.send(data, count, type, r, memory, stream);
}

void LateTransport::do_send(const void* data, std::size_t bytes, int peer, Memory memory, void* stream) {
  inner_.send(data, bytes, DataType::uint8, peer, memory, stream);
}

void LateTransport::do_receive(void* data, std::size_t bytes, int peer, Memory memory, void* stream) {
  inner_.receive(data, bytes, DataType::uint8, peer, memory, stream);
}

void LateTransport::do_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op,
                                  Memory memory, void* stream) {
  inner_.all_reduce(input, output, count, type, op, memory, stream);
}

std::unique_ptr<Communicator> LateTransport::do_split(int color, int key) {
  ready_ = true;
  return inner_.split(color, key);
}

bool LateTransport::do_transport_ready() {
  if (calls_++ >= ready_at_) ready_ = true;
  return ready_;
}

namespace {

bool splits(const DistConfig& config) {
  return config.distribution == Distribution::grid && config.grid_rows > 1 && config.grid_cols > 1;
}

}  // namespace

void check_late_transport_switch(Communicator& comm, Backend backend) {
  const bool gpu = backend == Backend::cuda;
  const std::int64_t n = gpu ? 2000 : 509;
  const std::int64_t rounds = (n + (gpu ? 127 : 63)) / (gpu ? 128 : 64);
  const Case c{"rmat_" + std::to_string(n), generated(GraphKind::rmat, n, -1, 1, 100, 29)};
  const std::int64_t in_turn[3] = {1, 3, 2};
  const std::int64_t never = std::numeric_limits<std::int64_t>::max();
  for (const DistConfig& config : configs_for(comm.size()))
    for (const bool last_never : {false, true}) {
      std::int64_t ready_at = in_turn[comm.rank() % 3];
      if (last_never && comm.rank() == comm.size() - 1) ready_at = never;
      SCOPED_TRACE(config.name() + ", rank " + std::to_string(comm.rank()) + " ready at " +
                   (ready_at == never ? std::string("no round") : std::to_string(ready_at)));
      LateTransport late(comm, ready_at);
      EXPECT_TRUE(late.stages_until_ready());
      if (gpu)
        check_gpu_matches_single_gpu(late, n, config);
      else
        check_matches_fw_blocked(late, c, config, config.lookahead);
      const std::int64_t latest = comm.all_reduce(ready_at, ReduceOp::max);
      const std::int64_t expected = splits(config) ? 0 : latest < rounds ? latest : -1;
      const std::int64_t round = late.transport_switch_round();
      EXPECT_EQ(round, expected);
      EXPECT_EQ(comm.all_reduce(round, ReduceOp::min), comm.all_reduce(round, ReduceOp::max))
          << "the ranks switched at different rounds";
      EXPECT_GE(late.advance_calls(), 1);
      if (expected > 0 && comm.size() > 1) {  // one rank broadcasts nothing
        EXPECT_GT(late.staged_broadcasts(), 0);
        EXPECT_GT(late.switched_broadcasts(), 0);
      }
      if (expected < 0) EXPECT_EQ(late.switched_broadcasts(), 0);
      // A second solve on the same communicator: every round through the
      // device transport once switched (its result says round 0), none
      // while a rank is never ready.
      if (!gpu) {
        RowCollector again;
        DistributedOptions o = config.options();
        DistributedResult r;
        try {
          r = solve_distributed(late, c.graph, o, again);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "the second solve threw: " << e.what();
        }
        EXPECT_EQ(r.transport_switch_round, expected >= 0 ? 0 : -1);
        EXPECT_EQ(again.commits, 1);
      }
      // The switch is collective and kept: a later call changes nothing.
      EXPECT_EQ(late.advance_transport(rounds + 1), expected >= 0);
    }
}

void check_never_switching_transport(Communicator& comm) {
  const std::int64_t n = 509, rounds = (n + 63) / 64;
  const Case c{"rmat_" + std::to_string(n), generated(GraphKind::rmat, n, -1, 1, 100, 29)};
  const auto stage_names = [](const DistributedResult& r) {
    std::string names;
    for (const Stage& s : r.rounds_stages.stages) names += (names.empty() ? "" : "; ") + s.name;
    return names;
  };
  const auto solve = [&](Communicator& on, const DistConfig& config) {
    RowCollector rows;
    DistributedResult r;
    try {
      r = solve_distributed(on, c.graph, config.options(), rows);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the solve threw: " << e.what();
    }
    EXPECT_EQ(rows.commits, 1);
    return r;
  };
  for (const DistConfig& config : configs_for(comm.size())) {
    SCOPED_TRACE(config.name() + ", rank " + std::to_string(comm.rank()));
    LateTransport never(comm, std::numeric_limits<std::int64_t>::max(), true);
    EXPECT_TRUE(never.stages_until_ready());
    EXPECT_FALSE(never.switches_transport());
    check_matches_fw_blocked(never, c, config, config.lookahead);
    const DistributedResult r = solve(never, config);
    if (splits(config)) {
      EXPECT_TRUE(never.switches_transport());
      EXPECT_EQ(r.transport_switch_round, 0);
      EXPECT_EQ(stage_names(r), "");
    } else {
      EXPECT_FALSE(never.switches_transport());
      EXPECT_EQ(never.advance_calls(), 0) << "advance_transport() asked the ranks";
      EXPECT_EQ(never.transport_switch_round(), -1);
      EXPECT_EQ(r.transport_switch_round, -1);
      EXPECT_EQ(never.switched_broadcasts(), 0);
      EXPECT_EQ(stage_names(r), "staged (" + std::to_string(rounds) + " rounds)");
      EXPECT_FALSE(never.advance_transport(rounds + 1));
    }
    if (splits(config)) continue;
    // Ready at round 1 on every rank: the rounds split there.
    LateTransport late(comm, 1);
    const DistributedResult split = solve(late, config);
    EXPECT_EQ(split.transport_switch_round, 1);
    EXPECT_EQ(stage_names(split), "staged (1 rounds); after the switch (" + std::to_string(rounds - 1) + " rounds)");
    for (const Stage& s : split.rounds_stages.stages) EXPECT_GE(s.seconds, 0) << s.name;
  }
}

}  // namespace apsp::test
