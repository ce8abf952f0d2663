// The per-rank memory choice of distributed fw (src/distributed/memory_plan.hpp):
// the local verdict under made-up budgets, the agreement of ranks that
// differ, the refusal naming the rank and the sizes, and the choice through
// solve_distributed (CPU ranks in CI; GPU ranks under a forced small budget
// on a device, skipped without one).
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/distributed.hpp"
#include "apsp/error.hpp"
#include "distributed/checks/dist_checks.hpp"
#include "distributed/checks/gpu_checks.hpp"
#include "distributed/checks/row_collector.hpp"
#include "distributed/memory_plan.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

using dist::kInCore;

void on_threads(int ranks, const std::function<void(Communicator&)>& body) {
  run_on_threads(make_local_communicators(ranks), body);
}

// Rank `rank` of a rows layout of `ranks` for n = 20000 in int32.
dist::ShareShape rows_share(int ranks, int rank) {
  dist::ShareShape s;
  s.n = 20000;
  s.grid.rows = ranks;
  s.grid.row = rank;
  return s;
}

dist::RankMemory gpu_memory(std::uint64_t device) {
  dist::RankMemory m;
  m.gpu = true;
  m.device = device;
  m.device_budget = true;
  return m;
}

std::uint64_t in_core_bytes(const dist::ShareShape& s) {
  return dist::gpu_in_core_device_bytes(dist::grid_for_tile(s.grid, s.n, s.tile), s.tile, s.cell_bytes, s.unit);
}
dist::ShareBytes out_of_core_bytes(const dist::ShareShape& s, std::int64_t width) {
  return dist::gpu_out_of_core_bytes(dist::grid_for_tile(s.grid, s.n, width), width, s.cell_bytes);
}

TEST(DistributedMemoryPlan, GpuRankInCoreWhenItsShareFits) {
  const dist::ShareShape s = rows_share(2, 0);
  const dist::LocalChoice fits = dist::choose_locally(s, gpu_memory(in_core_bytes(s)));
  EXPECT_EQ(fits.width, kInCore) << fits.why;
  EXPECT_NE(dist::choose_locally(s, gpu_memory(in_core_bytes(s) - 1)).width, kInCore);
}

// Under budgets between the narrowest out-of-core need and the in-core
// need: the widest width that fits, every wider one up to n / ranks does not.
TEST(DistributedMemoryPlan, GpuRankOutOfCoreAtTheWidestWidthThatFits) {
  for (int ranks : {1, 2, 3})
    for (int rank = 0; rank < ranks; ++rank) {
      const dist::ShareShape s = rows_share(ranks, rank);
      for (const std::int64_t at : {128, 512, 1024, 2048}) {
        const std::uint64_t budget = out_of_core_bytes(s, at).device;
        ASSERT_LT(budget, in_core_bytes(s));
        const dist::LocalChoice c = dist::choose_locally(s, gpu_memory(budget));
        ASSERT_GE(c.width, at) << c.why;
        ASSERT_NE(c.width, kInCore);
        EXPECT_EQ(c.width % 128, 0);
        EXPECT_LE(out_of_core_bytes(s, c.width).device, budget);
        for (std::int64_t w = c.width + 128; w <= (s.n + ranks - 1) / ranks + 127; w += 128)
          EXPECT_GT(out_of_core_bytes(s, w).device, budget) << "width " << w << " fits too";
        EXPECT_NE(c.why.find("super width " + std::to_string(c.width)), std::string::npos) << c.why;
      }
    }
}

TEST(DistributedMemoryPlan, HostMemoryBoundsTheOutOfCoreShare) {
  const dist::ShareShape s = rows_share(2, 1);
  dist::RankMemory m = gpu_memory(out_of_core_bytes(s, 1024).device);
  m.host_known = true;
  m.host = out_of_core_bytes(s, 128).host - 1;  // below every width's share
  const dist::LocalChoice c = dist::choose_locally(s, m);
  EXPECT_EQ(c.width, 0);
  EXPECT_NE(c.why.find("pinned host memory"), std::string::npos) << c.why;
}

TEST(DistributedMemoryPlan, CpuRankFitsTheHostOrNothing) {
  dist::ShareShape s = rows_share(2, 0);
  s.tile = 64;
  dist::RankMemory m;
  m.host_known = m.host_budget = true;
  const std::uint64_t need = dist::cpu_share_bytes(dist::grid_for_tile(s.grid, s.n, s.tile), s.tile, 4, false);
  m.host = need;
  EXPECT_EQ(dist::choose_locally(s, m).width, kInCore);
  m.host = need - 1;
  const dist::LocalChoice refused = dist::choose_locally(s, m);
  EXPECT_EQ(refused.width, 0);
  EXPECT_NE(refused.why.find(std::to_string(need) + " bytes"), std::string::npos) << refused.why;
  m.host_known = false;  // the host could not be asked: nothing refused
  EXPECT_EQ(dist::choose_locally(s, m).width, kInCore);
}

// Rank 0 fits in core, rank 1 only out of core: every rank goes out of
// core at one width, which fits rank 1, and the summary names rank 1 only.
TEST(DistributedMemoryPlan, RanksAgreeOnOneWidthAndTheSummaryNamesWhoNeededIt) {
  on_threads(2, [&](Communicator& comm) {
    const dist::ShareShape s = rows_share(2, comm.rank());
    const std::uint64_t budget = comm.rank() == 0 ? in_core_bytes(s) : out_of_core_bytes(s, 512).device;
    const dist::MemoryPlan plan = dist::agree_memory_plan(comm, s, gpu_memory(budget));
    EXPECT_GE(plan.super_width, 512);
    EXPECT_EQ(comm.all_reduce(plan.super_width, ReduceOp::max), comm.all_reduce(plan.super_width, ReduceOp::min));
    EXPECT_LE(out_of_core_bytes(s, plan.super_width).device, budget);
    EXPECT_NE(plan.summary.find("the share of rank 1 exceeds"), std::string::npos) << plan.summary;
  });
  on_threads(3, [&](Communicator& comm) {
    const dist::ShareShape s = rows_share(3, comm.rank());
    const dist::MemoryPlan plan = dist::agree_memory_plan(comm, s, gpu_memory(in_core_bytes(s)));
    EXPECT_EQ(plan.super_width, 0);
    EXPECT_EQ(plan.summary, "in core on every rank");
  });
}

TEST(DistributedMemoryPlan, AShareThatFitsNeitherIsRefusedOnEveryRankNamingTheRank) {
  on_threads(3, [&](Communicator& comm) {
    const dist::ShareShape s = rows_share(3, comm.rank());
    const std::uint64_t budget = comm.rank() == 2 ? std::uint64_t{1} << 20 : in_core_bytes(s);
    const auto [message, origin] =
        test::expect_agreed<ResourceError>([&] { dist::agree_memory_plan(comm, s, gpu_memory(budget)); });
    EXPECT_EQ(origin, 2);
    EXPECT_EQ(message.rfind("rank 2: ", 0), 0u) << message;
    EXPECT_NE(message.find("1048576 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("fits neither"), std::string::npos) << message;
  });
  on_threads(2, [&](Communicator& comm) {
    const auto [message, origin] = test::expect_agreed<ResourceError>(
        [&] { dist::agree_memory_plan(comm, rows_share(2, comm.rank()), gpu_memory(1000)); });
    EXPECT_EQ(message.rfind("rank 0 (and every other rank): ", 0), 0u) << message;
  });
}

// Through the solver, CPU ranks: a budget below the share is refused before
// any work; one above it solves in core and says so.
TEST(DistributedMemoryPlan, CpuRanksUnderAMemoryBudget) {
  const test::Case c{"random_n300", test::generated(GraphKind::random, 300, 1200, 1, 9, 5)};
  on_threads(2, [&](Communicator& comm) {
    test::RowCollector sink;
    DistributedOptions o;
    o.threads = 1;
    o.memory_budget = 4096;
    const auto [message, origin] =
        test::expect_agreed<ResourceError>([&] { solve_distributed(comm, c.graph, o, sink); });
    EXPECT_NE(message.find("rank 0"), std::string::npos) << message;
    EXPECT_NE(message.find("4096 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("memory budget"), std::string::npos) << message;
    EXPECT_EQ(sink.commits, 0);
  });
  on_threads(2, [&](Communicator& comm) {
    test::RowCollector sink;
    DistributedOptions o;
    o.threads = 1;
    o.memory_budget = std::uint64_t{1} << 30;
    const DistributedResult r = solve_distributed(comm, c.graph, o, sink);
    EXPECT_EQ(r.memory_plan, "in core on every rank");
    EXPECT_EQ(sink.commits, 1);
  });
}

// GPU ranks (1, 2 and 3 sharing device 0) under a budget that their
// in-core share exceeds (in core needs about 90 to 130 MiB, 64 MiB of it
// margin): the ranks agree on out of core and run it (src/distributed/
// gpu_ooc_engine.cu), the summary says so, and the rows of all ranks
// together equal those of the same solve in core (a budget its share
// fits). Compared over the ranks' union: out of core a rank owns whole
// super-tiles of rows, in core 128-row tiles, so one rank's rows differ.
TEST(DistributedMemoryPlan, GpuRanksUnderASmallBudgetRunOutOfCore) {
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const test::Case c{"random_n4000", test::generated(GraphKind::random, 4000, 16000, 1, 9, 7)};
  for (int ranks : {1, 2, 3}) {
    std::mutex mutex;
    std::map<std::int64_t, std::vector<std::int32_t>> in_core_rows, out_of_core_rows;
    run_on_threads(make_local_communicators(ranks, std::vector<int>(static_cast<std::size_t>(ranks), 0)),
                   [&](Communicator& comm) {
                     DistributedOptions o;
                     o.backend = Backend::cuda;
                     o.threads = 1;
                     o.memory_budget = std::uint64_t{1} << 30;
                     test::RowCollector in_core;
                     const DistributedResult r = solve_distributed(comm, c.graph, o, in_core);
                     EXPECT_EQ(r.memory_plan, "in core on every rank");
                     EXPECT_EQ(r.super_width, 0);
                     EXPECT_EQ(in_core.commits, 1);
                     o.memory_budget = std::uint64_t{80} << 20;
                     test::RowCollector out_of_core;
                     const DistributedResult ooc = solve_distributed(comm, c.graph, o, out_of_core);
                     EXPECT_NE(ooc.memory_plan.find("out of core on every rank at super width"), std::string::npos)
                         << ooc.memory_plan;
                     EXPECT_GE(ooc.super_width, 128);
                     EXPECT_EQ(ooc.tile, ooc.super_width);
                     EXPECT_EQ(out_of_core.commits, 1);
                     EXPECT_EQ(out_of_core.problem, "");
                     std::lock_guard<std::mutex> lock(mutex);
                     in_core_rows.insert(in_core.distances.begin(), in_core.distances.end());
                     out_of_core_rows.insert(out_of_core.distances.begin(), out_of_core.distances.end());
                   });
    EXPECT_EQ(in_core_rows.size(), static_cast<std::size_t>(c.graph.n)) << ranks << " ranks";
    EXPECT_EQ(out_of_core_rows.size(), static_cast<std::size_t>(c.graph.n)) << ranks << " ranks";
    EXPECT_TRUE(out_of_core_rows == in_core_rows) << ranks << " ranks";
  }
}

// Real weights need their share on the device: a plan out of core is
// refused for them on every rank before any tile is built.
TEST(DistributedMemoryPlan, GpuRanksOutOfCoreRefuseRealWeights) {
  if (!test::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const test::Case c{"random_n4000", test::generated(GraphKind::random, 4000, 16000, 1, 9, 7)};
  const GraphF32 real = test::to_float32(test::with_real_weights(c.graph));
  run_on_threads(make_local_communicators(2, {0, 0}), [&](Communicator& comm) {
    test::RowCollector sink;
    DistributedOptions o;
    o.backend = Backend::cuda;
    o.threads = 1;
    o.memory_budget = std::uint64_t{80} << 20;
    const auto [message, origin] = test::expect_agreed<UsageError>([&] { solve_distributed(comm, real, o, sink); });
    EXPECT_NE(message.find("GPU ranks out of core per rank compute int32 weights"), std::string::npos) << message;
    EXPECT_EQ(sink.commits, 0);
  });
}

}  // namespace
}  // namespace apsp
