// The batched single-source GPU solver ("sssp", the production v3, with its v1 "sssp-frontier" and v2 "sssp-nearfar")
// against the independent reference: standard and tile cases in both row
// placements (shared memory, global memory), long paths, stars and hubs,
// disconnected parts, zero and negative weights with predecessors, rows
// streamed to sinks in chunks under a small injected device budget, range
// refusals, "auto", progress. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/sinks.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

constexpr const char* kLadder[] = {"sssp", "sssp-frontier", "sssp-nearfar"};

// Sets an integer testing hook for the lifetime of the object.
class BudgetHook {
 public:
  explicit BudgetHook(std::int64_t bytes) { cuda::testing::hooks.sparse_row_budget = bytes; }
  BudgetHook(const BudgetHook&) = delete;
  BudgetHook& operator=(const BudgetHook&) = delete;
  ~BudgetHook() { cuda::testing::hooks.sparse_row_budget = 0; }
};

// Solves c with `algo` (with and without predecessors) and checks against the reference.
void expect_exact(const test::Case& c, const std::string& algo, bool predecessors,
                  const std::vector<dist_t>* reference = nullptr) {
  SCOPED_TRACE(c.name + " algo=" + algo + (predecessors ? " with predecessors" : "") +
               (cuda::testing::hooks.sparse_global_row ? " global row" : "") +
               (cuda::testing::hooks.sparse_row_budget > 0 ? " streamed" : ""));
  const std::vector<dist_t> expected = reference ? *reference : test::reference_distances(c.graph);
  const SolveResult r = solve(c.graph, test::on_gpu(algo, Precision::automatic, predecessors));
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(r.algorithm, algo);
  EXPECT_EQ(r.precision, Precision::int32);
  EXPECT_EQ(test::first_difference(expected, r.dist, c.graph.n), "");
  if (predecessors) EXPECT_EQ(test::check_predecessors(c.graph, r.dist, r.pred), "");
}

void expect_both_placements(const test::Case& c, const std::string& algo, bool predecessors) {
  const std::vector<dist_t> reference = test::reference_distances(c.graph);
  expect_exact(c, algo, predecessors, &reference);
  cuda::testing::ForceHook global(cuda::testing::hooks.sparse_global_row);
  expect_exact(c, algo, predecessors, &reference);
}

TEST(GpuSparse, StandardCases) {
  SKIP_WITHOUT_GPU();
  for (const char* algo : kLadder)
    for (const test::Case& c : test::standard_cases()) {
      expect_both_placements(c, algo, false);
      if (c.graph.n >= 2) {
        const test::EntryCounts counts = test::count_entries(test::reference_distances(c.graph), c.graph.n);
        EXPECT_GT(counts.finite_off_diagonal, 0) << c.name;
        EXPECT_GT(counts.unreachable, 0) << c.name;
      }
    }
}

TEST(GpuSparse, StandardCasesWithPredecessors) {
  SKIP_WITHOUT_GPU();
  for (const char* algo : kLadder)
    for (const test::Case& c : test::standard_cases()) expect_both_placements(c, algo, true);
}

TEST(GpuSparse, TileCases) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) {
    expect_both_placements(c, "sssp", true);
    expect_exact(c, "sssp-frontier", false);
    expect_both_placements(c, "sssp-nearfar", false);
  }
}

// Small cases only, both variants, both placements, predecessors: the filter
// for compute-sanitizer's memcheck and racecheck.
TEST(GpuSparse, SmallCasesForSanitizers) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n > 65) continue;
    for (const char* algo : kLadder) expect_both_placements(c, algo, true);
  }
  Graph g;  // a hub, a zero-weight cycle and an unreachable vertex
  g.n = 70;
  for (vertex_t v = 1; v < 68; ++v) g.edges.push_back(Edge{0, v, v % 5});
  g.edges.push_back(Edge{3, 4, 0});
  g.edges.push_back(Edge{4, 3, 0});
  g.edges.push_back(Edge{5, 0, 2});
  for (const char* algo : kLadder) expect_both_placements(test::Case{"hub_n70", g}, algo, true);
}

// Diameter n - 1: n rounds for the frontier variant, the bucket walk for near-far.
TEST(GpuSparse, LongPath) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 2500;
  for (vertex_t v = 0; v + 1 < g.n; ++v) g.edges.push_back(Edge{v, v + 1, 1 + v % 7});
  g.edges.push_back(Edge{17, 3, 5});  // one back edge: a cycle through 3..17
  for (const char* algo : kLadder) expect_both_placements(test::Case{"path_n2500", g}, algo, true);
}

// A star both ways and a hub of degree n - 1 over a sparse random graph:
// the warp-shared relaxation of heavy vertices.
TEST(GpuSparse, StarAndHugeDegreeHub) {
  SKIP_WITHOUT_GPU();
  Graph star;
  star.n = 3001;
  for (vertex_t v = 1; v < star.n; ++v) {
    star.edges.push_back(Edge{0, v, v % 13});
    star.edges.push_back(Edge{v, 0, 1 + v % 3});
  }
  Graph hub = test::generated(GraphKind::random, 3001, 4 * 3001, 1, 50, 5);
  for (vertex_t v = 1; v < hub.n; ++v) hub.edges.push_back(Edge{7, v, 40 + v % 11});
  for (const char* algo : kLadder) {
    expect_both_placements(test::Case{"star_n3001", star}, algo, true);
    expect_both_placements(test::Case{"hub_n3001", hub}, algo, true);
  }
}

// Two components, zero-weight edges (and so zero-weight cycles): predecessor
// rows the GPU leaves looping are rebuilt on the host, and every row is a tree.
TEST(GpuSparse, DisconnectedPartsAndZeroWeights) {
  SKIP_WITHOUT_GPU();
  Graph g = test::generated(GraphKind::random, 300, 1500, 0, 1, 9);
  const Graph other = test::generated(GraphKind::grid, 200, 0, 0, 2, 4);
  g.n = 500;
  for (const Edge& e : other.edges) g.edges.push_back(Edge{e.src + 300, e.dst + 300, e.w});
  for (const char* algo : kLadder) expect_both_placements(test::Case{"zero-one_two-parts_n500", g}, algo, true);
  // 8 enters the zero cycle 6 <-> 7 with weight 0: 6 has two tight zero-weight
  // in-edges (from 7 and 8); a loop 6 -> 7 -> 6 must never reach the output.
  Graph cycle;
  cycle.n = 12;
  cycle.edges = {{9, 8, 1}, {8, 6, 0}, {6, 7, 0}, {7, 6, 0}, {0, 9, 4}, {6, 10, 2}, {7, 10, 2}, {10, 0, 3}};
  for (const char* algo : kLadder) expect_both_placements(test::Case{"zero-cycle_n12", cycle}, algo, true);
}

TEST(GpuSparse, NegativeWeightsWithPredecessors) {
  SKIP_WITHOUT_GPU();
  for (const GraphKind kind : {GraphKind::random, GraphKind::rmat, GraphKind::grid}) {
    const Graph g = test::generated(kind, 421, 6 * 421, -40, 60, 21);
    for (const char* algo : kLadder) expect_both_placements(test::Case{"negative_n421", g}, algo, true);
  }
  const test::Case cycle = test::negative_cycle_case(300, 4);
  for (const char* algo : kLadder) EXPECT_THROW(solve(cycle.graph, test::on_gpu(algo)), NegativeCycleError);
}

// Sizes that are no multiple of anything: fewer sources than blocks, a prime
// number of rows, and chunks that leave a short last one.
TEST(GpuSparse, SizesThatAreNoMultipleOfABatch) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {3, 31, 257, 1031}) {
    const Graph g = test::generated(GraphKind::rmat, n, 5 * n, 0, 30, static_cast<std::uint64_t>(n));
    expect_exact(test::Case{"rmat_n" + std::to_string(n), g}, "sssp", true);
    BudgetHook budget(7 * n * 8);  // 7 rows of distances and predecessors per chunk
    expect_exact(test::Case{"rmat_n" + std::to_string(n), g}, "sssp", true);
  }
}

using GpuSparseStreaming = test::ScratchDirTest;

// A device budget of a few rows: the rows stream to the sink chunk by chunk,
// into a host matrix and into files, negative weights (potentials undone per
// chunk), predecessors, and --verify on the host as rows pass.
TEST_F(GpuSparseStreaming, RowsStreamInChunksWhenTheResultExceedsTheBudget) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::generated(GraphKind::grid, 900, 0, -5, 20, 12);
  const std::vector<dist_t> expected = test::reference_distances(g);
  BudgetHook budget(64 * 900 * 8);  // 64 rows per chunk: 15 chunks
  const std::int64_t chunks_before = cuda::testing::hooks.sparse_chunks;
  expect_exact(test::Case{"grid_n900", g}, "sssp", true, &expected);
  EXPECT_GE(cuda::testing::hooks.sparse_chunks - chunks_before, 15);

  SolveOptions o = test::on_gpu("sssp", Precision::automatic, true);
  o.verify = true;
  FileSink files(MatrixFileTarget{path("d.bin")}, MatrixFileTarget{path("p.npy")});
  const SolveSummary s = solve(g, o, files);
  EXPECT_TRUE(s.verified);
  std::int64_t n = 0;
  const std::vector<dist_t> d = io::read_matrix(path("d.bin"), n);
  EXPECT_EQ(n, g.n);
  EXPECT_EQ(test::first_difference(expected, d, n), "");
  EXPECT_EQ(test::check_predecessors(g, d, io::read_matrix(path("p.npy"), n)), "");

  NullSink nothing;
  EXPECT_NO_THROW(solve(g, test::on_gpu("sssp"), nothing));
}

TEST(GpuSparse, VerifyOnTheDeviceWhenTheResultFits) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::generated(GraphKind::rmat, 700, 5600, -10, 40, 3);
  SolveOptions o = test::on_gpu("sssp", Precision::automatic, true);
  o.verify = true;
  const SolveResult r = solve(g, o);
  EXPECT_TRUE(r.verified);
  EXPECT_GT(r.times.seconds("verify (device)"), 0);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), r.dist, g.n), "");
}

// Distances beyond int32 are refused as the dense path refuses them.
TEST(GpuSparse, RangeRefusals) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 4;
  g.edges = {{0, 1, 600000000}, {1, 2, 600000000}};
  EXPECT_THROW(solve(g, test::on_gpu("sssp")), OverflowError);
  g.edges = {{0, 1, 600000000}, {1, 2, 473741822}};  // 0 -> 2 is kInf - 1: fits
  const SolveResult fits = solve(g, test::on_gpu("sssp"));
  EXPECT_EQ(fits.dist[2], kInf - 1);
  EXPECT_EQ(fits.dist[3], kInf);
  Graph reweighted;
  reweighted.n = 4;
  reweighted.edges = {{0, 1, 300000000}, {1, 2, 300000000}, {3, 2, -600000000}};
  EXPECT_THROW(solve(reweighted, test::on_gpu("sssp")), ArithmeticRangeError);
}

TEST(GpuSparse, AutoPicksSsspForSparseAndFwForDenseAndSaysWhy) {
  SKIP_WITHOUT_GPU();
  // At n = 16384 the model puts sssp well below fw even in int16; the
  // reference is the CPU's Dijkstra (the triple loop would take hours).
  const Graph sparse = test::generated(GraphKind::rmat, 16384, 8 * 16384, 1, 100, 2);
  SolveOptions o;
  o.backend = Backend::cuda;
  const SolveResult r = solve(sparse, o);
  EXPECT_EQ(r.algorithm, "sssp");
  EXPECT_EQ(r.note.rfind("auto picked sssp: ", 0), 0u) << r.note;
  SolveOptions cpu;
  cpu.backend = Backend::cpu;
  cpu.algorithm = "dijkstra";
  EXPECT_EQ(test::first_difference(solve(sparse, cpu).dist, r.dist, sparse.n), "");
  const Graph dense = test::generated(GraphKind::dense, 1500, 0, 1, 100, 2);
  NullSink nothing;
  const SolveSummary d = solve(dense, o, nothing);
  EXPECT_EQ(d.algorithm, "fw");
  EXPECT_EQ(d.note.rfind("auto picked fw: ", 0), 0u) << d.note;
  o.precision = Precision::int16;
  NullSink nothing_again;
  EXPECT_EQ(solve(sparse, o, nothing_again).algorithm, "fw");
}

TEST(GpuSparse, ProgressIsMonotoneAndEndsAtOne) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::generated(GraphKind::random, 1000, 8000, 1, 9, 1);
  for (const std::int64_t budget : {std::int64_t{0}, std::int64_t{100 * 1000 * 4}}) {
    BudgetHook hook(budget);
    std::vector<double> seen;
    SolveOptions o = test::on_gpu("sssp");
    o.progress = [&](double f) { seen.push_back(f); };
    NullSink nothing;
    solve(g, o, nothing);
    EXPECT_EQ(test::check_progress(seen), "") << "budget " << budget;
    EXPECT_GT(seen.size(), 4u);
  }
}

}  // namespace
}  // namespace apsp
