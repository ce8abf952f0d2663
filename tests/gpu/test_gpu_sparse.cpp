// The batched single-source GPU solver ("sssp", the production v3, with its v1 "sssp-frontier" and v2 "sssp-nearfar")
// against the independent reference: standard and tile cases in both row
// placements (shared memory, global memory), long paths, stars and hubs,
// disconnected parts, zero and negative weights with predecessors, rows
// streamed to sinks in chunks under a small injected device budget, range
// refusals, "auto", progress; and the same solver on float32 and float64
// weights (GpuSparse.Real*) against the long-double reference within the
// tests' tolerance. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/sinks.hpp"
#include "apsp/verify.hpp"
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

void expect_both_placements(const test::Case& c, const std::string& algo, bool predecessors,
                            const std::vector<dist_t>& reference) {
  expect_exact(c, algo, predecessors, &reference);
  cuda::testing::ForceHook global(cuda::testing::hooks.sparse_global_row);
  expect_exact(c, algo, predecessors, &reference);
}

void expect_both_placements(const test::Case& c, const std::string& algo, bool predecessors) {
  expect_both_placements(c, algo, predecessors, test::reference_distances(c.graph));
}

// A real-valued case through `algo` with the row in shared memory, then in
// global memory.
template <class W>
void expect_real_both_placements(const test::RealCase<W>& rc, const std::string& algo, bool predecessors,
                                 bool verify = false) {
  SolveOptions o = test::on_gpu(algo, Precision::automatic, predecessors);
  o.verify = verify;
  test::expect_real_matches_reference(rc, o);
  cuda::testing::ForceHook global(cuda::testing::hooks.sparse_global_row);
  SCOPED_TRACE("global row");
  test::expect_real_matches_reference(rc, o);
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
  // Real weights: the hub, and a case with negative weights (potentials
  // undone in the kernel), in float32 and float64.
  g.edges.push_back(Edge{6, 2, -1});
  const test::Case hub{"hub_negative_n70", g};
  const test::RealCase<float> hub32 = test::real_case<float>(hub);
  const test::RealCase<double> hub64 = test::real_case<double>(hub);
  for (const char* algo : kLadder) {
    expect_real_both_placements(hub32, algo, true);
    expect_real_both_placements(hub64, algo, true);
  }
}

// Diameter n - 1: n rounds for the frontier variant, the bucket walk for near-far.
TEST(GpuSparse, LongPath) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 2500;
  for (vertex_t v = 0; v + 1 < g.n; ++v) g.edges.push_back(Edge{v, v + 1, 1 + v % 7});
  g.edges.push_back(Edge{17, 3, 5});  // one back edge: a cycle through 3..17
  // The O(n^3) reference once for the whole ladder: it is most of this test's time.
  const test::Case path{"path_n2500", g};
  const std::vector<dist_t> reference = test::reference_distances(g);
  for (const char* algo : kLadder) expect_both_placements(path, algo, true, reference);
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
  // The O(n^3) references once for the whole ladder: they are most of this test's time.
  const test::Case star_case{"star_n3001", star}, hub_case{"hub_n3001", hub};
  const std::vector<dist_t> star_reference = test::reference_distances(star);
  const std::vector<dist_t> hub_reference = test::reference_distances(hub);
  for (const char* algo : kLadder) {
    expect_both_placements(star_case, algo, true, star_reference);
    expect_both_placements(hub_case, algo, true, hub_reference);
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

  test::expect_verified_rows_in_files(g, "sssp", expected, path("d.bin"), path("p.npy"));
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
  // Dense graphs keep fw from about n = 2700 on; below, fw's fixed cost
  // (module loading, the int16 attempt: 65 ms) exceeds sssp's n * m work.
  const Graph dense = test::generated(GraphKind::dense, 4096, 0, 1, 100, 2);
  NullSink nothing;
  const SolveSummary d = solve(dense, o, nothing);
  EXPECT_EQ(d.algorithm, "fw");
  EXPECT_EQ(d.note.rfind("auto picked fw: ", 0), 0u) << d.note;
  NullSink tiny_sink;
  const SolveSummary tiny = solve(test::generated(GraphKind::dense, 64, 0, 1, 100, 2), o, tiny_sink);
  EXPECT_EQ(tiny.algorithm.rfind("sssp", 0), 0u) << tiny.note;
  o.precision = Precision::int16;
  NullSink nothing_again;
  EXPECT_EQ(solve(sparse, o, nothing_again).algorithm, "fw");
}

// Without a row budget the first launch is one row per resident block (a
// few hundred on any current GPU, fewer than n = 3000) and later ones are
// sized to about 50 ms, so this sub-millisecond solve reports a fraction
// below 1 and then finishes in one more launch; streamed in chunks of 100
// rows it reports after each chunk.
TEST(GpuSparse, ProgressIsMonotoneAndEndsAtOne) {
  SKIP_WITHOUT_GPU();
  const std::int64_t n = 3000;
  const Graph g = test::generated(GraphKind::random, n, 8 * n, 1, 9, 1);
  for (const std::int64_t budget : {std::int64_t{0}, std::int64_t{100 * n * 4}}) {
    BudgetHook hook(budget);
    std::vector<double> seen;
    SolveOptions o = test::on_gpu("sssp");
    o.progress = [&](double f) { seen.push_back(f); };
    NullSink nothing;
    solve(g, o, nothing);
    EXPECT_EQ(test::check_progress(seen), "") << "budget " << budget;
    ASSERT_GE(seen.size(), 2u) << "budget " << budget;
    EXPECT_LT(seen.front(), 1.0);
    if (budget > 0) EXPECT_GE(seen.size(), static_cast<std::size_t>(n / 100));
  }
}

// ---- float32 and float64 weights ----

// Every standard case in float32 and float64 through the whole ladder, in
// both row placements.
void expect_ladder_on_real_standard_cases(bool predecessors) {
  for (const test::Case& c : test::standard_cases()) {
    const test::RealCase<float> c32 = test::real_case<float>(c);
    const test::RealCase<double> c64 = test::real_case<double>(c);
    for (const char* algo : kLadder) {
      expect_real_both_placements(c32, algo, predecessors);
      expect_real_both_placements(c64, algo, predecessors);
    }
  }
}

TEST(GpuSparse, RealStandardCases) {
  SKIP_WITHOUT_GPU();
  expect_ladder_on_real_standard_cases(false);
}

TEST(GpuSparse, RealStandardCasesWithPredecessors) {
  SKIP_WITHOUT_GPU();
  expect_ladder_on_real_standard_cases(true);
}

TEST(GpuSparse, RealTileCases) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) {
    const test::RealCase<float> c32 = test::real_case<float>(c);
    const test::RealCase<double> c64 = test::real_case<double>(c);
    expect_real_both_placements(c32, "sssp", true);
    expect_real_both_placements(c64, "sssp", true);
    expect_real_both_placements(c64, "sssp-nearfar", false);
  }
}

// --verify checks real rows on the host as they pass (no device certificate
// for floats): with the whole result on the device and streamed in chunks.
TEST(GpuSparse, RealVerifyAcceptsTheResult) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) {
    expect_real_both_placements(test::real_case<float>(c), "sssp", true, /*verify=*/true);
    expect_real_both_placements(test::real_case<double>(c), "sssp", false, /*verify=*/true);
  }
  test::Case grid{"grid_n400_and_one_isolated", test::generated(GraphKind::grid, 400, 0, -3, 20, 8)};
  grid.graph.n = 401;                // vertex 400 reaches nothing and nothing reaches it
  BudgetHook budget(50 * 401 * 12);  // 50 rows of float64 distances and predecessors per chunk
  const std::int64_t chunks_before = cuda::testing::hooks.sparse_chunks;
  expect_real_both_placements(test::real_case<double>(grid), "sssp", true, /*verify=*/true);
  EXPECT_GE(cuda::testing::hooks.sparse_chunks - chunks_before, 2 * 8);
}

// Ties: all-zero cycles, and a cycle of weights 1 and -1 that reweights to
// two zero edges, entered along a zero reweighted edge: from 3 the tight
// in-edges of 0 and 1 are ties, and the first of 0's is 1 -> 0, so the
// predecessors the kernel reads off loop 0 <-> 1 until the host rebuilds
// the row. int32 too (that cycle has no zero weight in the graph itself).
TEST(GpuSparse, ZeroWeightAndReweightedZeroCyclesGivePredecessorTrees) {
  SKIP_WITHOUT_GPU();
  Graph reweighted_zero;
  reweighted_zero.n = 4;  // 2 is unreachable
  reweighted_zero.edges = {{0, 1, 1}, {1, 0, -1}, {3, 0, -1}};
  const test::Case tie{"reweighted-zero-cycle_n4", reweighted_zero};
  for (const char* algo : kLadder) {
    const std::int64_t repaired_before = cuda::testing::hooks.repaired_rows;
    expect_both_placements(tie, algo, true);
    EXPECT_GT(cuda::testing::hooks.repaired_rows - repaired_before, 0) << algo;
    expect_real_both_placements(test::real_case<float>(tie), algo, true);
    expect_real_both_placements(test::real_case<double>(tie), algo, true);
  }
  for (const std::int64_t n : {3, 128, 129})
    for (const char* algo : kLadder) test::expect_zero_weight_cycles_give_trees(n, algo);
}

TEST(GpuSparse, RealNegativeCycleIsReported) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {5, 70, 300})
    for (const char* algo : kLadder) test::expect_negative_cycle_reported(n, algo);
}

// A cycle of -1e-10 among weights of 1e3 is reported at n = 3 and n = 1000.
TEST(GpuSparse, RealSmallNegativeCycleIsReportedWhateverN) {
  SKIP_WITHOUT_GPU();
  for (const char* algo : kLadder) EXPECT_EQ(test::check_small_negative_cycles_reported(test::on_gpu(algo)), "");
}

// 0.3 - 0.1 - 0.2 is not 0 in binary: no negative cycle, the diagonal is 0.
TEST(GpuSparse, RealRoundingNearZeroCycleIsNoNegativeCycle) {
  SKIP_WITHOUT_GPU();
  for (const char* algo : kLadder) test::expect_rounding_near_zero_cycle_is_no_negative_cycle(algo);
}

TEST(GpuSparse, RealEmptyAndSingleVertexGraphs) {
  SKIP_WITHOUT_GPU();
  for (const char* algo : kLadder) {
    GraphF32 empty;
    EXPECT_TRUE(solve(empty, test::on_gpu(algo, Precision::automatic, true)).dist.empty());
    GraphF64 one;
    one.n = 1;
    const SolveResultF64 r = solve(one, test::on_gpu(algo, Precision::automatic, true));
    ASSERT_EQ(r.dist.size(), 1u);
    EXPECT_EQ(r.dist[0], 0.0);
    EXPECT_EQ(r.pred[0], -1);
    EXPECT_EQ(r.algorithm, algo);
  }
}

using GpuSparseRealStreaming = test::ScratchDirTest;

// A device budget of a few rows: real rows (potentials undone by the
// kernel) stream chunk by chunk into a host matrix and into .npy files of
// their type, sizes that are no multiple of a chunk.
TEST_F(GpuSparseRealStreaming, RowsStreamInChunksInTheirType) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {31, 1031}) {
    // The last vertex isolated, so unreachable entries are sure to appear.
    test::Case c{"rmat_negative_n" + std::to_string(n),
                 test::generated(GraphKind::rmat, n - 1, 5 * n, -4, 30, static_cast<std::uint64_t>(n))};
    c.graph.n = n;
    const test::RealCase<float> c32 = test::real_case<float>(c);
    BudgetHook budget(7 * n * 8);  // 7 rows of float32 distances and predecessors per chunk
    const std::int64_t chunks_before = cuda::testing::hooks.sparse_chunks;
    test::expect_real_matches_reference(c32, test::on_gpu("sssp", Precision::automatic, true));
    EXPECT_GE(cuda::testing::hooks.sparse_chunks - chunks_before, (n + 6) / 7);
    FileSink files(MatrixFileTarget{path("d.npy")}, MatrixFileTarget{path("p.npy")});
    const SolveSummary s =
        solve(test::real_case<double>(c).graph, test::on_gpu("sssp", Precision::automatic, true), files);
    EXPECT_EQ(s.weights, WeightType::float64);
    EXPECT_EQ(s.algorithm, "sssp");
  }
}

// "auto" picks sssp for a sparse real graph (the model at the type's
// rates) and says so; fw for a dense one. The reference at n = 16384 is the
// CPU's Dijkstra in float32.
TEST(GpuSparse, RealAutoPicksSsspForSparseAndFwForDense) {
  SKIP_WITHOUT_GPU();
  const GraphF32 sparse =
      test::to_float32(test::with_real_weights(test::generated(GraphKind::rmat, 16384, 8 * 16384, 1, 100, 2)));
  SolveOptions o;
  o.backend = Backend::cuda;
  const SolveResultF32 r = solve(sparse, o);
  EXPECT_EQ(r.algorithm, "sssp");
  EXPECT_EQ(r.note.rfind("auto picked sssp: ", 0), 0u) << r.note;
  EXPECT_NE(r.note.find("for fw in float32"), std::string::npos) << r.note;
  SolveOptions cpu;
  cpu.backend = Backend::cpu;
  cpu.algorithm = "dijkstra";
  const SolveResultF32 want = solve(sparse, cpu);
  double max_w = 0;
  for (const EdgeF32& e : sparse.edges) max_w = std::max(max_w, static_cast<double>(e.w));
  EXPECT_EQ(test::first_real_difference(test::widened(want.dist), test::widened(r.dist), sparse.n, max_w,
                                        test::test_relative_tolerance<float>(sparse.n)),
            "");
  const GraphF64 dense = test::with_real_weights(test::generated(GraphKind::dense, 4096, 0, 1, 100, 2));
  NullSink nothing;
  const SolveSummary d = solve(dense, o, nothing);
  EXPECT_EQ(d.algorithm, "fw");
  EXPECT_EQ(d.note.rfind("auto picked fw: ", 0), 0u) << d.note;
}

}  // namespace
}  // namespace apsp
