// The GPU row split's pipeline (src/cuda/sparse_solver.cpp, solve_rows: the
// next chunk queued on a second lane beside the one computing) against the
// one-go solve of the same GPU: every row the split hands out byte for byte,
// on R-MAT and a geometric graph, with predecessors, downloaded per chunk
// and kept on the device, under a small row budget (pieces of a chunk,
// flushes), for parts (sources x targets: the device gather path) and for a
// split of several ranges (a resumed solve's gaps); and the serial way (the
// A/B) alike. One process draws every chunk of a split over 2 consumers, as
// the one-GPU proxy (bench/gpu_sparse_bench.cu split) does. Skips without a
// CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/generate.hpp"
#include "apsp/sink.hpp"
#include "apsp/row_split.hpp"
#include "apsp/solver.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"

namespace apsp {
namespace {

Graph graph_of(GraphKind kind, std::int64_t n, std::uint64_t seed) {
  GenerateOptions o;
  o.kind = kind;
  o.n = n;
  o.seed = seed;
  return normalize(generate(o));
}

// How the split's solve runs.
struct Way {
  std::string name;
  bool serial = false;
  bool per_chunk = true;
  std::int64_t row_budget = 0;  // bytes for result rows (testing hook); 0: all that is free
};

const std::vector<Way>& ways() {
  static const std::vector<Way> all{
      {"pipelined, per chunk", false, true, 0},
      {"pipelined, kept on the device", false, false, 0},
      {"pipelined, per chunk, 96-row budget", false, true, 96},
      {"pipelined, kept, 96-row budget", false, false, 96},
      {"serial, per chunk", true, true, 0},
  };
  return all;
}

// Rows of int32 distances and predecessors (n x n row-major) of which only
// some arrive, as a split of several ranges delivers them: commit() does not
// ask for the rest (a HostMatrixSink would refuse the missing rows).
class SomeRowsSink final : public Sink {
 public:
  void begin(const SinkLayout& layout) override {
    n_ = layout.n;
    dist.assign(static_cast<std::size_t>(n_ * n_), 0);
    pred.assign(layout.predecessors ? static_cast<std::size_t>(n_ * n_) : 0, 0);
  }
  void put(const RowBlock& block) override {
    ASSERT_TRUE(block.plane == Plane::predecessors || block.element == Element::int32);
    std::vector<std::int32_t>& plane = block.plane == Plane::predecessors ? pred : dist;
    const auto* from = static_cast<const std::int32_t*>(block.data);
    for (std::int64_t r = 0; r < block.rows; ++r)
      std::copy(from + r * block.row_stride, from + r * block.row_stride + n_,
                plane.begin() + static_cast<std::ptrdiff_t>((block.first_row + r) * n_));
  }
  void commit() override {}

  std::vector<std::int32_t> dist, pred;

 private:
  std::int64_t n_ = 0;
};

// The solve of `o` with every chunk of `split` drawn here, the way `way`, into
// a host matrix (or into `some`: the rows of a split of several ranges).
SolveResult solve_split(const Graph& g, SolveOptions o, RowSplit& split, const Way& way, std::int64_t row_bytes,
                        SomeRowsSink* some = nullptr) {
  o.row_split = &split;
  o.row_split_serial = way.serial;
  o.row_split_per_chunk_download = way.per_chunk;
  const test::IntHook budget(cuda::testing::hooks.sparse_row_budget, way.row_budget * row_bytes);
  const std::int64_t pieces = cuda::testing::hooks.row_split_pipelined_pieces;
  const std::int64_t flushes = cuda::testing::hooks.row_split_flushes;
  SolveResult r;
  if (some != nullptr)
    static_cast<SolveSummary&>(r) = solve(g, o, *some);
  else
    r = solve(g, o);
  const std::int64_t pipelined = cuda::testing::hooks.row_split_pipelined_pieces - pieces;
  if (way.serial)
    EXPECT_EQ(pipelined, 0) << "the serial way queues no piece on the pipeline";
  else
    EXPECT_GE(pipelined, split.chunks()) << "every chunk went through the pipeline, in one piece or more";
  if (!way.per_chunk && way.row_budget > 0)
    EXPECT_GE(cuda::testing::hooks.row_split_flushes - flushes, 2) << "a full budget flushed before the last chunk";
  return r;
}

// Rows `rows` of `got` equal those of `want` (n x width row-major), distances and predecessors.
void expect_rows_equal(const SolveResult& want, const SolveResult& got, const std::vector<std::int64_t>& rows,
                       std::int64_t width, bool predecessors) {
  ASSERT_EQ(got.dist.size(), want.dist.size());
  if (predecessors) ASSERT_EQ(got.pred.size(), want.pred.size());
  for (const std::int64_t r : rows) {
    const auto begin = static_cast<std::ptrdiff_t>(r * width);
    ASSERT_TRUE(std::equal(want.dist.begin() + begin, want.dist.begin() + begin + width, got.dist.begin() + begin))
        << "distances of row " << r;
    if (predecessors)
      ASSERT_TRUE(std::equal(want.pred.begin() + begin, want.pred.begin() + begin + width, got.pred.begin() + begin))
          << "predecessors of row " << r;
  }
}

std::vector<std::int64_t> every_row(std::int64_t n) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) rows[static_cast<std::size_t>(r)] = r;
  return rows;
}

struct Named {
  std::string name;
  Graph graph;
};

std::vector<Named> graphs() {
  return {{"rmat 3000", graph_of(GraphKind::rmat, 3000, 5)},
          {"geometric 2500", graph_of(GraphKind::geometric, 2500, 6)}};
}

TEST(GpuRowPipeline, EveryWayGivesTheOneGoRowsWithAndWithoutPredecessors) {
  SKIP_WITHOUT_GPU();
  for (const Named& c : graphs())
    for (const bool predecessors : {false, true}) {
      const Graph& g = c.graph;
      const SolveOptions o = test::on_gpu("sssp", Precision::automatic, predecessors);
      const SolveResult one_go = solve(g, o);
      const std::int64_t row_bytes = g.n * static_cast<std::int64_t>(sizeof(dist_t) + (predecessors ? 4 : 0));
      for (const Way& way : ways()) {
        SCOPED_TRACE(c.name + (predecessors ? " with predecessors, " : ", ") + way.name);
        AtomicCounter counter;
        // Chunks of 64 rows and up: many chunks, so the lanes alternate often.
        RowSplit split(0, g.n, 2, 64, g.n, counter, kGpuChunkPolicy);
        const SolveResult got = solve_split(g, o, split, way, row_bytes);
        expect_rows_equal(one_go, got, every_row(g.n), g.n, predecessors);
      }
    }
}

// Sources x targets: the renumbered graph's rows 0..k-1 through the split,
// their target columns gathered on the device before each download.
TEST(GpuRowPipeline, PartsGatheredOnTheDeviceMatchTheOneGoPart) {
  SKIP_WITHOUT_GPU();
  for (const Named& c : graphs())
    for (const bool predecessors : {false, true}) {
      const Graph& g = c.graph;
      SolveOptions o = test::on_gpu("sssp", Precision::automatic, predecessors);
      for (std::int64_t v = g.n - 1; v >= 0; v -= 3) o.sources.push_back(static_cast<vertex_t>(v));
      for (std::int64_t v = 1; v < g.n; v += 7) o.targets.push_back(static_cast<vertex_t>(v));
      const auto k = static_cast<std::int64_t>(o.sources.size());
      const auto t = static_cast<std::int64_t>(o.targets.size());
      const SolveResult one_go = solve(g, o);
      ASSERT_EQ(static_cast<std::int64_t>(one_go.dist.size()), k * t);
      const std::int64_t row_bytes = (g.n + t) * static_cast<std::int64_t>(sizeof(dist_t) + (predecessors ? 4 : 0));
      for (const Way& way : ways()) {
        SCOPED_TRACE(c.name + (predecessors ? " with predecessors, " : ", ") + way.name);
        AtomicCounter counter;
        RowSplit split(0, k, 2, 32, k, counter, kGpuChunkPolicy);
        const std::int64_t gathered = cuda::testing::hooks.gathered_chunks;
        const SolveResult got = solve_split(g, o, split, way, row_bytes);
        EXPECT_GT(cuda::testing::hooks.gathered_chunks - gathered, 0) << "the columns were gathered on the device";
        expect_rows_equal(one_go, got, every_row(k), t, predecessors);
      }
    }
}

// A split of several ranges (as a resumed solve's gaps): the rows of the
// ranges as one go computes them; the others are never drawn.
TEST(GpuRowPipeline, ASplitOfSeveralRangesGivesTheirOneGoRows) {
  SKIP_WITHOUT_GPU();
  for (const Named& c : graphs()) {
    const Graph& g = c.graph;
    const SolveOptions o = test::on_gpu("sssp", Precision::automatic, /*predecessors=*/true);
    const SolveResult one_go = solve(g, o);
    const std::vector<RowSplit::Span> spans{{0, 70}, {300, 301}, {900, 1500}, {g.n - 200, g.n}};
    std::vector<std::int64_t> rows;
    for (const RowSplit::Span& s : spans)
      for (std::int64_t r = s.first; r < s.end; ++r) rows.push_back(r);
    const std::int64_t row_bytes = g.n * static_cast<std::int64_t>(sizeof(dist_t) + 4);
    for (const Way& way : ways()) {
      SCOPED_TRACE(c.name + ", " + way.name);
      AtomicCounter counter;
      RowSplit split(spans, 2, 16, g.n, counter, kGpuChunkPolicy);
      SomeRowsSink some;
      solve_split(g, o, split, way, row_bytes, &some);
      ASSERT_EQ(some.dist.size(), one_go.dist.size());
      ASSERT_EQ(some.pred.size(), one_go.pred.size());
      for (const std::int64_t r : rows) {
        const auto at = static_cast<std::ptrdiff_t>(r * g.n);
        ASSERT_TRUE(std::equal(one_go.dist.begin() + at, one_go.dist.begin() + at + g.n, some.dist.begin() + at))
            << "distances of row " << r;
        ASSERT_TRUE(std::equal(one_go.pred.begin() + at, one_go.pred.begin() + at + g.n, some.pred.begin() + at))
            << "predecessors of row " << r;
      }
    }
  }
}

}  // namespace
}  // namespace apsp
