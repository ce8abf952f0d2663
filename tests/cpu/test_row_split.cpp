// The row split (include/apsp/row_split.hpp) on its own: many simulated
// consumers drawing chunks from one counter, as the threads and ranks of a
// row-parallel solve do.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "apsp/distributed.hpp"
#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/row_split.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

// Every row of [first, end) handed out exactly once when `consumers`
// threads, each with a split of its own over one shared counter (as ranks
// build theirs), draw chunks until none are left.
void expect_every_row_once(std::int64_t first, std::int64_t end, int consumers, std::int64_t min_chunk,
                           std::int64_t max_chunk, RowSplit::Policy policy = {}) {
  SCOPED_TRACE("rows [" + std::to_string(first) + ", " + std::to_string(end) + "), " + std::to_string(consumers) +
               " consumers, chunks " + std::to_string(min_chunk) + ".." + std::to_string(max_chunk) +
               ", static share " + std::to_string(policy.static_share) + (policy.fold_last ? ", last folded" : ""));
  AtomicCounter counter;
  std::vector<std::atomic<int>> seen(static_cast<std::size_t>(end - first + 1));
  std::atomic<std::int64_t> too_big{0}, outside{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < consumers; ++t)
    threads.emplace_back([&] {
      RowSplit split(first, end, consumers, min_chunk, max_chunk, counter, policy);
      for (RowSplit::Range r = split.next(); r.count > 0; r = split.next()) {
        if (r.count > max_chunk) ++too_big;
        for (std::int64_t row = r.first; row < r.first + r.count; ++row) {
          if (row < first || row >= end)
            ++outside;
          else
            ++seen[static_cast<std::size_t>(row - first)];
        }
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(too_big.load(), 0);
  EXPECT_EQ(outside.load(), 0);
  for (std::int64_t row = first; row < end; ++row)
    ASSERT_EQ(seen[static_cast<std::size_t>(row - first)].load(), 1) << "row " << row;
}

TEST(RowSplit, ManyConsumersCoverEveryRowExactlyOnce) {
  for (const std::int64_t rows : {0, 1, 2, 63, 64, 65, 1000, 4097})
    for (const int consumers : {1, 2, 3, 7, 16, 64})
      for (const std::int64_t max_chunk : {1, 8, 64}) expect_every_row_once(5, 5 + rows, consumers, 1, max_chunk);
  expect_every_row_once(0, 100000, 32, 4, 256);
}

TEST(RowSplit, ChunksShrinkTowardTheEndWithinTheirBounds) {
  AtomicCounter counter;
  const std::int64_t rows = 10000;
  RowSplit split(0, rows, 4, 2, 500, counter);
  std::vector<std::int64_t> sizes;
  std::int64_t next_first = 0;
  for (RowSplit::Range r = split.next(); r.count > 0; r = split.next()) {
    EXPECT_EQ(r.first, next_first) << "one consumer draws the chunks in order";
    EXPECT_EQ(r.chunk, static_cast<std::int64_t>(sizes.size()));
    next_first += r.count;
    sizes.push_back(r.count);
  }
  EXPECT_EQ(next_first, rows);
  EXPECT_EQ(static_cast<std::int64_t>(sizes.size()), split.chunks());
  EXPECT_EQ(sizes.front(), 500) << "remaining / (2 * 4) = 1250 is capped at max_chunk";
  EXPECT_TRUE(std::is_sorted(sizes.rbegin(), sizes.rend())) << "guided chunks never grow";
  EXPECT_LE(sizes.back(), 2) << "the tail is min_chunk rows (or the last rows)";
  EXPECT_LT(sizes[sizes.size() - 10], 10) << "the last chunks are small, so consumers finish together";
}

// The chunks one consumer draws from a split of its own (in index order).
std::vector<std::int64_t> chunk_sizes(RowSplit& split) {
  std::vector<std::int64_t> sizes;
  for (RowSplit::Range r = split.next(); r.count > 0; r = split.next()) sizes.push_back(r.count);
  return sizes;
}

TEST(RowSplit, PoliciesCoverEveryRowExactlyOnce) {
  for (const RowSplit::Policy policy :
       {RowSplit::Policy{0.5, false}, RowSplit::Policy{0.0, true}, RowSplit::Policy{0.75, true}, kGpuChunkPolicy})
    for (const std::int64_t rows : {0, 1, 2, 63, 64, 65, 1000, 4097})
      for (const int consumers : {1, 2, 3, 7})
        for (const std::int64_t max_chunk : {1, 8, 64}) {
          expect_every_row_once(5, 5 + rows, consumers, 1, max_chunk, policy);
          expect_every_row_once(5, 5 + rows, consumers, std::min<std::int64_t>(max_chunk, 4), max_chunk, policy);
        }
  expect_every_row_once(0, 65536, 2, kGpuMinChunk, 65536, kGpuChunkPolicy);
  expect_every_row_once(0, 126146, 4, kGpuMinChunk, 126146, kGpuChunkPolicy);
}

// GPU consumers (kGpuChunkPolicy): half of the rows in one chunk a consumer,
// then guided chunks, none under kGpuMinChunk, fewer than guided alone; and
// every consumer computes the same table.
TEST(RowSplit, GpuChunksOpenWithAStaticShareAndLeaveNoRunt) {
  for (const std::int64_t n : {65536, 126146})
    for (const std::int64_t consumers : {2, 4}) {
      SCOPED_TRACE(std::to_string(n) + " rows, " + std::to_string(consumers) + " consumers");
      AtomicCounter a, b, c;
      RowSplit gpu(0, n, consumers, kGpuMinChunk, n, a, kGpuChunkPolicy);
      RowSplit same(0, n, consumers, kGpuMinChunk, n, b, kGpuChunkPolicy);
      RowSplit guided(0, n, consumers, kGpuMinChunk, n, c);
      const std::vector<std::int64_t> sizes = chunk_sizes(gpu);
      EXPECT_EQ(sizes, chunk_sizes(same)) << "the boundaries depend on the arguments alone";
      const std::vector<std::int64_t> guided_sizes = chunk_sizes(guided);
      ASSERT_GT(static_cast<std::int64_t>(sizes.size()), consumers);
      for (std::int64_t k = 0; k < consumers; ++k)
        EXPECT_EQ(sizes[static_cast<std::size_t>(k)], n / 2 / consumers) << "static chunk " << k;
      EXPECT_LT(sizes[static_cast<std::size_t>(consumers)], n / 2 / consumers) << "the guided part starts smaller";
      EXPECT_TRUE(std::is_sorted(sizes.rbegin() + 1, sizes.rend() - consumers)) << "the guided chunks never grow";
      EXPECT_LT(sizes.back(), 2 * kGpuMinChunk) << "the last chunk holds at most a folded runt beside its own rows";
      EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), kGpuMinChunk) << "no leftover launch";
      EXPECT_LT(guided_sizes.back(), kGpuMinChunk) << "guided alone leaves a runt at these sizes";
      EXPECT_LT(sizes.size(), guided_sizes.size());
      std::int64_t total = 0;
      for (const std::int64_t s : sizes) total += s;
      EXPECT_EQ(total, n);
    }
}

TEST(RowSplit, FoldingTheLastChunkKeepsMaxChunkAndEachRangeApart) {
  AtomicCounter counter;
  // 10 rows in chunks of 4..4: 4, 4, 2; folding the 2 would make 6 > 4.
  RowSplit capped(0, 10, 1, 4, 4, counter, RowSplit::Policy{0, true});
  const std::vector<std::int64_t> capped_sizes = chunk_sizes(capped);
  EXPECT_EQ(capped_sizes, (std::vector<std::int64_t>{4, 4, 2}));
  // Two ranges, each with its own static share and its own last chunk.
  AtomicCounter other;
  RowSplit ranges(std::vector<RowSplit::Span>{{0, 100}, {200, 300}}, 2, 10, 100, other, RowSplit::Policy{0.5, true});
  std::vector<RowSplit::Range> drawn;
  for (RowSplit::Range r = ranges.next(); r.count > 0; r = ranges.next()) drawn.push_back(r);
  ASSERT_GE(drawn.size(), 6u);
  EXPECT_EQ(drawn[0].first, 0);
  EXPECT_EQ(drawn[0].count, 25);
  EXPECT_EQ(drawn[1].count, 25);
  std::int64_t first_range_rows = 0;
  std::size_t k = 0;
  for (; k < drawn.size() && drawn[k].first < 100; ++k) {
    EXPECT_LE(drawn[k].first + drawn[k].count, 100) << "chunk " << k << " crosses the gap";
    EXPECT_GE(drawn[k].count, 10) << "chunk " << k;
    first_range_rows += drawn[k].count;
  }
  EXPECT_EQ(first_range_rows, 100);
  ASSERT_LT(k + 1, drawn.size());
  EXPECT_EQ(drawn[k].first, 200) << "the second range opens with its own static share";
  EXPECT_EQ(drawn[k].count, 25);
  EXPECT_EQ(drawn[k + 1].count, 25);
  EXPECT_EQ(ranges.rows(), 200);
  EXPECT_THROW(RowSplit(0, 10, 1, 1, 4, counter, RowSplit::Policy{1.0, false}), Error);
  EXPECT_THROW(RowSplit(0, 10, 1, 1, 4, counter, RowSplit::Policy{-0.5, false}), Error);
}

// Several ranges (a resumed solve's gaps): every row of every range once,
// no chunk crossing a gap, progress counted in rows handed out.
TEST(RowSplit, SeveralRangesCoverTheirRowsOnlyAndOnce) {
  const std::vector<RowSplit::Span> spans{{3, 10}, {10, 11}, {40, 140}, {500, 501}, {600, 600}, {700, 1000}};
  for (const int consumers : {1, 3, 8}) {
    SCOPED_TRACE(std::to_string(consumers) + " consumers");
    AtomicCounter counter;
    RowSplit split(spans, consumers, 1, 16, counter);
    EXPECT_EQ(split.first(), 3);
    EXPECT_EQ(split.end(), 1000);
    EXPECT_EQ(split.rows(), 7 + 1 + 100 + 1 + 300);
    EXPECT_EQ(split.rows_before(0), 0);
    EXPECT_EQ(split.rows_before(split.chunks()), split.rows());
    std::vector<int> seen(1000, 0);
    for (RowSplit::Range r = split.next(); r.count > 0; r = split.next()) {
      EXPECT_LE(r.count, 16);
      const auto inside = std::find_if(spans.begin(), spans.end(), [&](const RowSplit::Span& s) {
        return r.first >= s.first && r.first + r.count <= s.end;
      });
      EXPECT_NE(inside, spans.end()) << "chunk at " << r.first << " of " << r.count << " rows crosses a gap";
      for (std::int64_t row = r.first; row < r.first + r.count; ++row) ++seen[static_cast<std::size_t>(row)];
    }
    for (std::int64_t row = 0; row < 1000; ++row) {
      const bool wanted = std::any_of(spans.begin(), spans.end(),
                                      [&](const RowSplit::Span& s) { return row >= s.first && row < s.end; });
      ASSERT_EQ(seen[static_cast<std::size_t>(row)], wanted ? 1 : 0) << "row " << row;
    }
  }
  AtomicCounter counter;
  EXPECT_THROW(RowSplit(std::vector<RowSplit::Span>{{0, 10}, {5, 20}}, 1, 1, 4, counter), Error);
  EXPECT_THROW(RowSplit(std::vector<RowSplit::Span>{{10, 5}}, 1, 1, 4, counter), Error);
  RowSplit none(std::vector<RowSplit::Span>{}, 1, 1, 4, counter);
  EXPECT_EQ(none.chunks(), 0);
  EXPECT_EQ(none.next().count, 0);
}

TEST(RowSplit, StopEndsEveryConsumersDraws) {
  AtomicCounter counter;
  RowSplit a(0, 1000, 2, 1, 10, counter), b(0, 1000, 2, 1, 10, counter);
  EXPECT_GT(a.next().count, 0);
  EXPECT_GT(b.next().count, 0);
  a.stop();
  EXPECT_EQ(b.next().count, 0);
  EXPECT_EQ(a.next().count, 0);
  b.stop();  // a second stop (another failing consumer) is harmless
  EXPECT_EQ(b.next().count, 0);
}

TEST(RowSplit, RefusesMeaninglessArguments) {
  AtomicCounter counter;
  EXPECT_THROW(RowSplit(0, 10, 0, 1, 1, counter), Error);
  EXPECT_THROW(RowSplit(0, 10, 1, 0, 1, counter), Error);
  EXPECT_THROW(RowSplit(0, 10, 1, 4, 2, counter), Error);
  EXPECT_THROW(RowSplit(10, 0, 1, 1, 1, counter), Error);
}

// The distributed "auto": sparse graphs take the row split of the
// one-process choice, dense ones the distributed Floyd-Warshall; the reason
// names the ranks.
TEST(DistributedAuto, SparseGraphsSplitRowsDenseOnesRunFloydWarshall) {
  const Graph rmat = normalize(test::generated(GraphKind::rmat, 3000, -1, 1, 100, 2));
  const DistributedChoice rows = choose_distributed(rmat, Backend::cpu, 4);
  EXPECT_TRUE(rows.row_split) << rows.why;
  EXPECT_EQ(rows.algorithm, "dijkstra") << rows.why;
  EXPECT_NE(rows.why.find("its rows split over 4 ranks"), std::string::npos) << rows.why;

  const Graph full = normalize(test::generated(GraphKind::dense, 300, -1, 1, 100, 3));
  const DistributedChoice fw = choose_distributed(full, Backend::cpu, 2);
  EXPECT_FALSE(fw.row_split) << fw.why;
  EXPECT_EQ(fw.algorithm, "fw-blocked") << fw.why;
  EXPECT_NE(fw.why.find("distributed Floyd-Warshall over 2 ranks"), std::string::npos) << fw.why;

  GraphF64 real;
  real.n = full.n;
  for (const Edge& e : full.edges) real.edges.push_back(BasicEdge<double>{e.src, e.dst, e.w * 0.37});
  const DistributedChoice cpu_real = choose_distributed(normalize(real), Backend::cpu, 2);
  EXPECT_FALSE(cpu_real.row_split) << "the CPU's distributed fw takes real weights: " << cpu_real.why;
  const DistributedChoice gpu_real = choose_distributed(normalize(real), Backend::cuda, 2);
  // On the GPU this 300-vertex graph goes to the sssp ladder (the GPU model
  // counts fw's fixed cost), whose rows split over the ranks.
  EXPECT_TRUE(gpu_real.row_split) << gpu_real.why;
  EXPECT_EQ(gpu_real.algorithm.rfind("sssp", 0), 0u) << gpu_real.why;
  EXPECT_NE(gpu_real.why.find("its rows split over 2 ranks"), std::string::npos) << gpu_real.why;
}

// On GPU ranks auto weighs fw against the row split at the ranks given: a
// dense float64 graph for which one GPU's model picks fw stays with the
// distributed fw (which takes float64) on one rank, and moves to the row
// split on four, where fw's fixed cost (every rank's) no longer pays.
TEST(DistributedAuto, GpuRanksWeighFwAgainstTheRowSplitAtTheirCount) {
  const Graph full = normalize(test::generated(GraphKind::dense, 3000, -1, 1, 100, 4));
  GraphF64 real;
  real.n = full.n;
  for (const Edge& e : full.edges) real.edges.push_back(BasicEdge<double>{e.src, e.dst, e.w * 0.37});
  const GraphF64 dense64 = normalize(real);
  const DistributedChoice one = choose_distributed(dense64, Backend::cuda, 1, 1);
  EXPECT_FALSE(one.row_split) << one.why;
  EXPECT_EQ(one.algorithm, "fw") << one.why;
  EXPECT_EQ(one.distribution, Distribution::rows) << one.why;
  EXPECT_NE(one.why.find("distributed Floyd-Warshall over 1 rank"), std::string::npos) << one.why;
  const DistributedChoice four = choose_distributed(dense64, Backend::cuda, 4, 4);
  EXPECT_TRUE(four.row_split) << four.why;
  EXPECT_EQ(four.algorithm.rfind("sssp", 0), 0u) << four.why;
  EXPECT_NE(four.why.find("on 4 GPUs the model gives"), std::string::npos) << four.why;
}

// fw's layout: rows inside a node, where the strips cost little against the
// rounds (n = 65536 on 4 or 8 GPUs); 2d once the ranks span nodes and the
// rows layout's strips would outweigh the rounds (64 GPUs, 8 to a node).
// CPU ranks: rows until the strips reach half a round's compute.
TEST(DistributedAuto, FwLayoutIsRowsInANodeAnd2dAcrossNodes) {
  EXPECT_EQ(choose_distributed_layout(65536, Backend::cuda, 4, 4), Distribution::rows);
  EXPECT_EQ(choose_distributed_layout(65536, Backend::cuda, 8, 8), Distribution::rows);
  EXPECT_EQ(choose_distributed_layout(65536, Backend::cuda, 8), Distribution::rows);
  EXPECT_EQ(choose_distributed_layout(65536, Backend::cuda, 64, 8), Distribution::grid);
  EXPECT_EQ(choose_distributed_layout(1000000, Backend::cuda, 16, 8), Distribution::rows);
  EXPECT_EQ(choose_distributed_layout(300, Backend::cpu, 2, 2), Distribution::rows);
  EXPECT_EQ(choose_distributed_layout(300, Backend::cpu, 4, 4), Distribution::grid);
}

}  // namespace
}  // namespace apsp
