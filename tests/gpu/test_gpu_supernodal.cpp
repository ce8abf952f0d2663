// The supernodal GPU solver ("supernodal" on Backend::cuda) against the
// independent reference, the GPU's fw and the CPU supernodal solver (when
// this build has it): the standard and tile cases, grids (2D and 3D),
// geometric, R-MAT and uniform random graphs, in int32, float32 and float64,
// with predecessors, negative weights and zero-weight cycles, a negative
// cycle, n = 0, 1 and 2; every factor path (fronts closed in shared memory,
// fronts through the dense fw rounds, forced on small graphs by a testing
// hook, and the opt-in batched dense factor), several solve batches, rows streamed in chunks into a host
// matrix and files, --verify, range refusals and progress; the int16
// working rows (GpuSupernodalInt16: bit for bit against int32 rows, the
// range boundary, negative weights, refusals, fallbacks). Skips without a
// CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/io.hpp"
#include "apsp/registry.hpp"
#include "apsp/sinks.hpp"
#include "apsp/verify.hpp"
#include "cuda/testing.hpp"
#include "supernodal/symbolic.hpp"
#include "../../bench/families.hpp"  // the benchmark families' 3D grid
#include "gpu_support.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

constexpr const char* kAlgo = "supernodal";

using test::IntHook;

bool cpu_supernodal_available() { return test::cpu_algorithm_available(kAlgo); }


// Solves c on the GPU (with and without predecessors as asked) and checks
// the distances against `expected` (the reference when null), the
// predecessor trees, and the CPU supernodal solver's rows when it exists.
void expect_exact(const test::Case& c, bool predecessors, const std::vector<dist_t>* expected = nullptr) {
  SCOPED_TRACE(c.name + (predecessors ? " with predecessors" : "") +
               (cuda::testing::hooks.supernodal_dense_columns > 0 ? " dense fronts" : "") +
               (cuda::testing::hooks.supernodal_v6_factor ? " v6 factor" : "") +
               (cuda::testing::hooks.supernodal_batched_factor ? " batched factor" : "") +
               (cuda::testing::hooks.supernodal_tiled_factor ? " tiled factor" : "") +
               (cuda::testing::hooks.supernodal_batch_rows > 0 ? " small batches" : "") +
               (cuda::testing::hooks.sparse_row_budget > 0 ? " streamed" : ""));
  const std::vector<dist_t> reference = expected ? *expected : test::reference_distances(c.graph);
  const SolveResult r = solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, predecessors));
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(r.algorithm, kAlgo);
  EXPECT_EQ(r.precision, Precision::int32);
  EXPECT_EQ(test::first_difference(reference, r.dist, c.graph.n), "");
  if (predecessors) EXPECT_EQ(test::check_predecessors(c.graph, r.dist, r.pred), "");
  if (c.graph.n >= 2) {
    const test::EntryCounts counts = test::count_entries(r.dist, c.graph.n);
    EXPECT_GT(counts.finite_off_diagonal, 0);
  }
}

// expect_exact through every factor path (the default merged chains, dense
// fronts v6's way, batched and tiled) and with several solve batches.
void expect_exact_every_path(const test::Case& c, bool predecessors) {
  const std::vector<dist_t> reference = test::reference_distances(c.graph);
  expect_exact(c, predecessors, &reference);
  IntHook dense(cuda::testing::hooks.supernodal_dense_columns, 4);
  IntHook batches(cuda::testing::hooks.supernodal_batch_rows, 7);
  expect_exact(c, predecessors, &reference);
  {
    cuda::testing::ForceHook v6(cuda::testing::hooks.supernodal_v6_factor);
    expect_exact(c, predecessors, &reference);
  }
  {
    cuda::testing::ForceHook batched(cuda::testing::hooks.supernodal_batched_factor);
    expect_exact(c, predecessors, &reference);
  }
  cuda::testing::ForceHook tiled(cuda::testing::hooks.supernodal_tiled_factor);
  expect_exact(c, predecessors, &reference);
}

// Real weights: against the long-double reference within the tests'
// tolerance, through both factor paths.
template <class W>
void expect_real_every_path(const test::RealCase<W>& rc, bool predecessors, bool verify = false) {
  SolveOptions o = test::on_gpu(kAlgo, Precision::automatic, predecessors);
  o.verify = verify;
  test::expect_real_matches_reference(rc, o);
  IntHook dense(cuda::testing::hooks.supernodal_dense_columns, 4);
  IntHook batches(cuda::testing::hooks.supernodal_batch_rows, 5);
  {
    SCOPED_TRACE("dense fronts, small batches");
    test::expect_real_matches_reference(rc, o);
  }
  {
    cuda::testing::ForceHook batched(cuda::testing::hooks.supernodal_batched_factor);
    SCOPED_TRACE("dense fronts batched, small batches");
    test::expect_real_matches_reference(rc, o);
  }
  cuda::testing::ForceHook tiled(cuda::testing::hooks.supernodal_tiled_factor);
  SCOPED_TRACE("dense fronts tiled, small batches");
  test::expect_real_matches_reference(rc, o);
}

TEST(GpuSupernodal, StandardCases) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) expect_exact_every_path(c, false);
}

TEST(GpuSupernodal, StandardCasesWithPredecessors) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) expect_exact_every_path(c, true);
}

TEST(GpuSupernodal, TileCases) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) expect_exact(c, true);
}

// Every benchmark family at test sizes (negative weights on a grid and the
// uniform graph).
std::vector<test::Case> family_cases() {
  return {
      {"grid_n2500", test::generated(GraphKind::grid, 2500, 0, 1, 50, 3)},
      {"grid_negative_n1600", test::generated(GraphKind::grid, 1600, 0, -3, 40, 4)},
      {"geometric_n3000", test::generated(GraphKind::geometric, 3000, 0, 1, 100, 5)},
      {"grid3d_12x12x12", bench::grid3d(12 * 12 * 12, 13)},
      {"rmat_n1024", test::generated(GraphKind::rmat, 1024, 8 * 1024, 0, 30, 6)},
      {"random_n1000", test::generated(GraphKind::random, 1000, 6000, -2, 60, 7)},
  };
}

// Every benchmark family at test sizes, against the GPU's fw (and the CPU
// supernodal solver): large separators (3D grid, R-MAT, uniform) take the
// dense fw rounds without any hook.
TEST(GpuSupernodal, FamiliesAgreeWithFwAndTheCpuSolver) {
  SKIP_WITHOUT_GPU();
  const std::vector<test::Case> cases = family_cases();
  const std::int64_t dense_before = cuda::testing::hooks.supernodal_dense_fronts;
  for (const test::Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SolveResult fw_result = solve(c.graph, test::on_gpu("fw"));
    const std::vector<dist_t> fw(fw_result.dist.begin(), fw_result.dist.end());
    expect_exact(c, true, &fw);
    {
      cuda::testing::ForceHook batched(cuda::testing::hooks.supernodal_batched_factor);
      expect_exact(c, true, &fw);
    }
    if (cpu_supernodal_available()) {
      SolveOptions cpu;
      cpu.backend = Backend::cpu;
      cpu.algorithm = kAlgo;
      const SolveResult on_cpu = solve(c.graph, cpu);
      EXPECT_EQ(test::first_difference(on_cpu.dist, fw, c.graph.n), "");
    }
  }
  EXPECT_GT(cuda::testing::hooks.supernodal_dense_fronts, dense_before);
}

// A grid is strongly connected: one vertex more, with no edges, gives the
// unreachable entries the real-weight checks require.
Graph with_isolated_vertex(Graph g) {
  g.n += 1;
  return g;
}

// Two copies of g side by side (the second's ids shifted by g.n): two
// components, so two roots of the elimination forest.
Graph two_copies(const Graph& g) {
  Graph both;
  both.n = 2 * g.n;
  both.edges = g.edges;
  for (const Edge& e : g.edges)
    both.edges.push_back({static_cast<vertex_t>(e.src + g.n), static_cast<vertex_t>(e.dst + g.n), e.w});
  return normalize(both);
}

// The solve's batch widths around the column tiles of every tile shape (1024,
// 512, 256, 128 and 64 columns; a run's last batch is narrower, and the tiles
// past it must leave its columns alone), on two grids (most batches leave
// one component's root inactive: its rows start as unit rows, every other
// inactive supernode's rows are overwritten by its backward product) and a
// geometric graph with zero weights (the geometric generator's weights grow
// with length, so they cannot be negative).
TEST(GpuSupernodal, BatchWidthsAroundEveryTileShape) {
  SKIP_WITHOUT_GPU();
  const std::vector<test::Case> cases = {
      {"two_grids_n1600", two_copies(test::generated(GraphKind::grid, 1600, 0, 0, 40, 21))},
      {"geometric_zero_n2100", test::generated(GraphKind::geometric, 2100, 0, 0, 60, 22)},
  };
  for (const test::Case& c : cases) {
    const std::vector<dist_t> reference = test::reference_distances(c.graph);
    for (const std::int64_t rows : {1, 63, 65, 255, 257, 1023, 1025, 2049}) {
      SCOPED_TRACE("batches of " + std::to_string(rows));
      IntHook batches(cuda::testing::hooks.supernodal_batch_rows, rows);
      expect_exact(c, false, &reference);
    }
  }
}

// The benchmark's profile (testing::hooks.supernodal_profile): a profiled
// solve gives the same rows, and its records name every pass of the factor
// (both paths: the dense fronts forced by the hook) and of each solve batch,
// with the tiles' bytes and add-mins where they apply. Only the records'
// presence and counts are checked, never their times.
TEST(GpuSupernodal, ProfileRecordsEveryPassAndChangesNoRow) {
  SKIP_WITHOUT_GPU();
  const test::Case c{"grid_n900", test::generated(GraphKind::grid, 900, 0, 0, 30, 12)};
  const std::vector<dist_t> reference = test::reference_distances(c.graph);
  IntHook dense(cuda::testing::hooks.supernodal_dense_columns, 4);
  IntHook batches(cuda::testing::hooks.supernodal_batch_rows, 300);  // 3 batches
  // v6's passes (the default merged chains record the tiled ones, which
  // TiledFactorRecordsItsPassesAndMatchesV6 checks).
  cuda::testing::ForceHook v6(cuda::testing::hooks.supernodal_v6_factor);
  std::vector<cuda::testing::SupernodalLaunch> launches;
  cuda::testing::hooks.supernodal_profile = &launches;
  const SolveResult r = solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, false));
  cuda::testing::hooks.supernodal_profile = nullptr;
  EXPECT_EQ(test::first_difference(reference, r.dist, c.graph.n), "");
  std::map<std::string, std::int64_t> count;
  std::map<std::string, double> ops;
  std::int64_t last_batch = -1;
  for (const auto& l : launches) {
    ++count[l.pass];
    ops[l.pass] += l.ops;
    last_batch = std::max(last_batch, l.batch);
  }
  EXPECT_EQ(last_batch, 2);
  EXPECT_EQ(count["plan (host)"], 2);  // the first batch's plan, then the other two's
  for (const char* pass : {"unit", "forward closure", "forward scatter", "backward", "transpose", "factor init",
                           "factor extend-add", "dense pad", "dense rounds", "dense unpad"})
    EXPECT_GT(count[pass], 0) << pass;
  EXPECT_EQ(count["transpose"], 3);
  EXPECT_GT(ops["backward"], 0);
  EXPECT_GT(ops["dense rounds"], 0);
  // Without the hook nothing is recorded.
  const std::size_t recorded = launches.size();
  solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, false));
  EXPECT_EQ(launches.size(), recorded);
}

// One int32 solve of c with every launch profiled, whose rows must equal
// `expected`'s: its launches, and their count and add-mins per pass.
struct ProfiledPasses {
  std::vector<cuda::testing::SupernodalLaunch> launches;
  std::map<std::string, std::int64_t> count;
  std::map<std::string, double> ops;
};
ProfiledPasses profiled_solve(const test::Case& c, const SolveResult& expected) {
  ProfiledPasses p;
  cuda::testing::hooks.supernodal_profile = &p.launches;
  const SolveResult r = solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, false));
  cuda::testing::hooks.supernodal_profile = nullptr;
  EXPECT_EQ(test::first_difference(expected.dist, r.dist, c.graph.n), "");
  for (const auto& l : p.launches) {
    ++p.count[l.pass];
    p.ops[l.pass] += l.ops;
  }
  return p;
}

// The batched dense factor (opt-in) records its own passes, with the size
// class of each (SupernodalLaunch::batch: 1024 for fronts of >= 1024
// vertices, else 0), and no v6 dense pass; its rows equal v6's. A uniform
// random graph (n = 4096, m = 8n: separators of thousands) has fronts of
// both classes without any hook. Counts only, never times.
TEST(GpuSupernodal, BatchedFactorRecordsItsPassesAndMatchesV6) {
  SKIP_WITHOUT_GPU();
  const test::Case c{"random_n4096", test::generated(GraphKind::random, 4096, 8 * 4096, 1, 60, 31)};
  const SolveResult v6 = solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, false));
  cuda::testing::ForceHook batched(cuda::testing::hooks.supernodal_batched_factor);
  ProfiledPasses passes = profiled_solve(c, v6);
  std::map<std::string, std::int64_t>& count = passes.count;
  std::map<std::string, double>& ops = passes.ops;
  std::map<std::int64_t, std::int64_t> classes;
  for (const auto& l : passes.launches)
    if (std::string(l.pass).rfind("dense", 0) == 0) ++classes[l.batch];
  for (const char* pass : {"dense closure", "dense batched panels", "dense batched update"}) {
    EXPECT_GT(count[pass], 0) << pass;
    EXPECT_GT(ops[pass], 0) << pass;
  }
  for (const char* pass : {"dense pad", "dense rounds", "dense unpad"}) EXPECT_EQ(count[pass], 0) << pass;
  for (const auto& [size_class, launches_of_class] : classes)
    EXPECT_TRUE(size_class == 0 || size_class == 1024) << size_class << ": " << launches_of_class;
  EXPECT_GT(classes[1024], 0);
}

// The tiled factor (opt-in): the panels and update matrices of the dense
// fronts of >= 1024 vertices on fw's 128 x 128 tile
// (kernels/supernodal/tiled_update.cuh). On the uniform graph of the
// batched test (fronts of both classes without any hook): its int32 rows
// equal v6's bit for bit (with and without predecessors); its float32 rows
// equal the batched path's within float32 rounding (its panels read the
// pre-panel values, the batched ones may read updated ones: other sums of
// the same paths); it records its pack, panel and update passes, all of
// the large class, and no v6 pass. A
// second graph whose separators are a few hundred vertices (R-MAT) checks
// the ragged tiles (s not a multiple of 128, k not of 32). Counts only,
// never times.
TEST(GpuSupernodal, TiledFactorRecordsItsPassesAndMatchesV6) {
  SKIP_WITHOUT_GPU();
  const std::vector<test::Case> cases = {
      {"random_n4096", test::generated(GraphKind::random, 4096, 8 * 4096, 1, 60, 31)},
      {"rmat_n4096", test::generated(GraphKind::rmat, 4096, 8 * 4096, 0, 30, 32)},
  };
  for (const test::Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SolveResult v6 = solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, false));
    const GraphF32 g32 = test::to_float32(test::with_real_weights(c.graph));
    SolveResultF32 batched32;
    {
      cuda::testing::ForceHook batched(cuda::testing::hooks.supernodal_batched_factor);
      batched32 = solve(g32, test::on_gpu(kAlgo));
    }
    cuda::testing::ForceHook tiled(cuda::testing::hooks.supernodal_tiled_factor);
    ProfiledPasses passes = profiled_solve(c, v6);
    std::map<std::string, std::int64_t>& count = passes.count;
    std::map<std::string, double>& ops = passes.ops;
    for (const auto& l : passes.launches)
      if (std::string(l.pass).rfind("dense tiled", 0) == 0) EXPECT_EQ(l.batch, 1024) << l.pass;
    // Whether the symbolic analysis has a dense front (more than 64
    // columns) of >= 1024 vertices with an update matrix: the uniform graph must.
    const supernodal::Symbolic sym = supernodal::analyse(to_csr(normalize(c.graph)));
    bool large = false;
    for (std::int32_t K = 0; K < sym.count; ++K)
      large = large ||
              (sym.columns(K) > 64 && sym.structure_size(K) > 0 && sym.columns(K) + sym.structure_size(K) >= 1024);
    if (c.name == "random_n4096") EXPECT_TRUE(large);
    if (large) {
      for (const char* pass : {"dense closure", "dense tiled pack", "dense tiled panels", "dense tiled update"})
        EXPECT_GT(count[pass], 0) << pass;
      EXPECT_GT(ops["dense tiled panels"], 0);
      EXPECT_GT(ops["dense tiled update"], 0);
    }
    for (const char* pass : {"dense pad", "dense rounds", "dense unpad"}) EXPECT_EQ(count[pass], 0) << pass;

    const SolveResult with_pred = solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, true));
    EXPECT_EQ(test::first_difference(v6.dist, with_pred.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, with_pred.dist, with_pred.pred), "");

    const SolveResultF32 tiled32 = solve(g32, test::on_gpu(kAlgo));
    ASSERT_EQ(tiled32.dist.size(), batched32.dist.size());
    // Both are float32 sums of the same weights along shortest paths of at
    // most n edges: within n ulps of the larger, relative, with infinity exact.
    std::int64_t differ = 0;
    const double tolerance = static_cast<double>(c.graph.n) * 6e-8;
    for (std::size_t i = 0; i < tiled32.dist.size(); ++i) {
      const double a = tiled32.dist[i], b = batched32.dist[i];
      if (std::isinf(a) || std::isinf(b) ? a != b : std::fabs(a - b) > tolerance * std::max(1.0, std::fabs(b)))
        ++differ;
    }
    EXPECT_EQ(differ, 0) << "float32 entries beyond rounding of the batched path's";
  }
}

// The merged chains (testing::hooks.supernodal_merge_chains; int32's
// default path at 10%): the tiled factor after supernodal::merge_chains,
// with the merge threshold
// lowered to fronts of 128 vertices and 100% extra add-mins so that these
// graphs merge, equals v6 bit for bit in int32 on a grid, a geometric, an
// R-MAT and a uniform graph, and gives valid predecessor trees. The host's
// merged analysis must have fewer supernodes than the default one on the
// uniform graph (else nothing merged and the test would not test the path;
// at n = 4096 the grid and geometric chains do not merge: those two cover
// the hooks' path without a merge).
TEST(GpuSupernodal, MergedChainsMatchV6) {
  SKIP_WITHOUT_GPU();
  const std::vector<test::Case> cases = {
      {"grid_n4096", test::generated(GraphKind::grid, 4096, -1, 1, 40, 41)},
      {"geometric_n4096", test::generated(GraphKind::geometric, 4096, -1, 1, 40, 42)},
      {"rmat_n4096", test::generated(GraphKind::rmat, 4096, 8 * 4096, 0, 30, 43)},
      {"random_n4096", test::generated(GraphKind::random, 4096, 8 * 4096, 1, 60, 44)},
  };
  for (const test::Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SolveResult v6 = [&] {
      cuda::testing::ForceHook only_v6(cuda::testing::hooks.supernodal_v6_factor);
      return solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, false));
    }();
    supernodal::ChainMerge rule;
    rule.min_front = 128;
    rule.max_extra_ops = 1.0;
    const supernodal::Symbolic sym = supernodal::analyse(to_csr(normalize(c.graph)));
    const supernodal::Symbolic merged = supernodal::merge_chains(sym, rule);
    if (c.name == "random_n4096") EXPECT_LT(merged.count, sym.count);
    cuda::testing::ForceHook tiled(cuda::testing::hooks.supernodal_tiled_factor);
    IntHook merge(cuda::testing::hooks.supernodal_merge_chains, 100);
    IntHook min_front(cuda::testing::hooks.supernodal_merge_min_front, 128);
    const SolveResult r = solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, false));
    EXPECT_EQ(test::first_difference(v6.dist, r.dist, c.graph.n), "");
    const SolveResult with_pred = solve(c.graph, test::on_gpu(kAlgo, Precision::automatic, true));
    EXPECT_EQ(test::first_difference(v6.dist, with_pred.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, with_pred.dist, with_pred.pred), "");
  }
}

// auto on the GPU picks supernodal on a grid deep and large enough (n =
// 40000, hop depth 398: the model's factor and solve about 0.1 s against
// about 0.4 s for sssp; fw's n^3 far above), orders it once for the probe and
// the solve, and says why in the note.
TEST(GpuSupernodal, AutoPicksItOnALargeGridAndOrdersItOnce) {
  SKIP_WITHOUT_GPU();
  if (!supernodal::ordering_available()) GTEST_SKIP() << "no METIS in this build";
  const Graph g = normalize(test::generated(GraphKind::grid, 40000, 0, 1, 100, 31));
  SolveOptions o;
  o.backend = Backend::cuda;
  NullSink sink;
  const std::int64_t before = supernodal::orderings_run();
  const SolveSummary s = solve(g, o, sink);
  EXPECT_EQ(s.algorithm, kAlgo) << s.note;
  EXPECT_EQ(supernodal::orderings_run() - before, 1);
  EXPECT_EQ(s.note.rfind("auto picked supernodal:", 0), 0u) << s.note;
  EXPECT_NE(s.note.find("top separator"), std::string::npos) << s.note;
  EXPECT_EQ(s.times.seconds("ordering"), 0);  // spent in the auto probe
  EXPECT_GT(s.times.seconds("auto probe"), 0);
  // R-MAT of the same size stays on sssp without any analysis.
  const Graph rmat = normalize(test::generated(GraphKind::rmat, 40000, 8 * 40000, 1, 100, 32));
  const std::int64_t shallow = supernodal::orderings_run();
  const SolveSummary r = solve(rmat, o, sink);
  EXPECT_EQ(r.algorithm.rfind("sssp", 0), 0u) << r.note;
  EXPECT_EQ(supernodal::orderings_run() - shallow, 0);
  EXPECT_NE(r.note.find("supernodal not tried"), std::string::npos) << r.note;
}

TEST(GpuSupernodal, RealFamilies) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c :
       {test::Case{"grid_n900", with_isolated_vertex(test::generated(GraphKind::grid, 900, 0, -2, 30, 8))},
        test::Case{"geometric_n800", test::generated(GraphKind::geometric, 800, 0, 1, 90, 9)},
        test::Case{"rmat_n512", test::generated(GraphKind::rmat, 512, 4096, 0, 30, 10)}}) {
    test::expect_real_matches_reference(test::real_case<float>(c), test::on_gpu(kAlgo, Precision::automatic, true));
    test::expect_real_matches_reference(test::real_case<double>(c), test::on_gpu(kAlgo, Precision::automatic, true));
  }
}

TEST(GpuSupernodal, RealStandardCases) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) {
    expect_real_every_path(test::real_case<float>(c), false);
    expect_real_every_path(test::real_case<double>(c), true);
  }
}

// Small cases through every path with predecessors, int32 and real: the
// filter for compute-sanitizer's memcheck and racecheck.
TEST(GpuSupernodal, SmallCasesForSanitizers) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n > 65) continue;
    expect_exact_every_path(c, true);
  }
  const test::Case grid{"grid_n100", with_isolated_vertex(test::generated(GraphKind::grid, 100, 0, -1, 9, 11))};
  expect_exact_every_path(grid, true);
  expect_real_every_path(test::real_case<float>(grid), true);
  expect_real_every_path(test::real_case<double>(grid), true);
  // The int16 working rows (their 16-bit atomic min in the forward scatter).
  const std::vector<dist_t> reference = test::reference_distances(grid.graph);
  IntHook batches(cuda::testing::hooks.supernodal_batch_rows, 7);
  const SolveResult narrow = solve(grid.graph, test::on_gpu(kAlgo, Precision::int16));
  EXPECT_EQ(narrow.precision, Precision::int16);
  EXPECT_EQ(test::first_difference(reference, narrow.dist, grid.graph.n), "");
}

TEST(GpuSupernodal, EmptySingleAndTwoVertexGraphs) {
  SKIP_WITHOUT_GPU();
  for (std::int64_t n = 0; n <= 2; ++n) {
    Graph g;
    g.n = n;
    if (n == 2) g.edges = {{0, 1, 5}};
    const SolveResult r = solve(g, test::on_gpu(kAlgo, Precision::automatic, true));
    ASSERT_EQ(r.dist.size(), static_cast<std::size_t>(n * n));
    if (n >= 1) EXPECT_EQ(r.dist[0], 0);
    if (n == 2) {
      EXPECT_EQ(r.dist[1], 5);
      EXPECT_EQ(r.dist[2], kInf);
      EXPECT_EQ(r.pred[1], 0);
      EXPECT_EQ(r.pred[2], -1);
    }
    GraphF64 real;
    real.n = n;
    if (n == 2) real.edges = {{0, 1, 0.5}};
    const SolveResultF64 f = solve(real, test::on_gpu(kAlgo));
    if (n == 2) EXPECT_EQ(f.dist[1], 0.5);
  }
}

TEST(GpuSupernodal, NegativeCycleIsReported) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::negative_cycle_case(200, 3);
  try {
    solve(c.graph, test::on_gpu(kAlgo));
    ADD_FAILURE() << "no negative cycle reported";
  } catch (const NegativeCycleError& e) {
    EXPECT_TRUE(test::lies_on_negative_cycle(c.graph, static_cast<vertex_t>(e.vertex()))) << e.what();
  }
  test::expect_negative_cycle_reported(150, kAlgo);
  EXPECT_EQ(test::check_small_negative_cycles_reported(test::on_gpu(kAlgo)), "");
}

TEST(GpuSupernodal, ZeroWeightCyclesGivePredecessorTrees) {
  SKIP_WITHOUT_GPU();
  test::expect_zero_weight_cycles_give_trees(300, kAlgo);
  test::expect_rounding_near_zero_cycle_is_no_negative_cycle(kAlgo);
  Graph g;  // int32: a ring of zero weights with chords
  g.n = 300;
  for (vertex_t v = 0; v < 300; ++v) {
    g.edges.push_back({v, static_cast<vertex_t>((v + 1) % 300), 0});
    g.edges.push_back({v, static_cast<vertex_t>((v * 11 + 5) % 300), v % 3});
  }
  expect_exact_every_path(test::Case{"zero_ring_n300", g}, true);
}

using GpuSupernodalStreaming = test::ScratchDirTest;

// A device budget of a few rows: rows stream to the sink chunk by chunk into
// a host matrix and files, with negative weights, predecessors and --verify
// on the host as rows pass; the null sink.
TEST_F(GpuSupernodalStreaming, RowsStreamInChunksWhenTheResultExceedsTheBudget) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::generated(GraphKind::grid, 900, 0, -5, 20, 12);
  const std::vector<dist_t> expected = test::reference_distances(g);
  IntHook budget(cuda::testing::hooks.sparse_row_budget, 64 * 900 * 8);  // 64 rows per chunk: 15 chunks
  const std::int64_t chunks_before = cuda::testing::hooks.sparse_chunks;
  expect_exact(test::Case{"grid_n900", g}, true, &expected);
  EXPECT_GE(cuda::testing::hooks.sparse_chunks - chunks_before, 15);

  test::expect_verified_rows_in_files(g, kAlgo, expected, path("d.bin"), path("p.npy"));
}

TEST(GpuSupernodal, VerifyOnTheDeviceWhenTheResultFits) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::generated(GraphKind::random, 700, 4200, -2, 40, 3);
  SolveOptions o = test::on_gpu(kAlgo, Precision::automatic, true);
  o.verify = true;
  const SolveResult r = solve(g, o);
  EXPECT_TRUE(r.verified);
  EXPECT_GT(r.times.seconds("verify (device)"), 0);
  EXPECT_GT(r.times.seconds("factor"), 0);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), r.dist, g.n), "");
  const SolveResultF64 real = solve(test::with_real_weights(g), o);
  EXPECT_TRUE(real.verified);
}

// Distances beyond int32 are refused as the other GPU solvers refuse them.
TEST(GpuSupernodal, RangeRefusals) {
  SKIP_WITHOUT_GPU();
  Graph g;
  g.n = 4;
  g.edges = {{0, 1, 600000000}, {1, 2, 600000000}};
  EXPECT_THROW(solve(g, test::on_gpu(kAlgo)), OverflowError);
  g.edges = {{0, 1, 600000000}, {1, 2, 473741822}};  // 0 -> 2 is kInf - 1: fits
  const SolveResult fits = solve(g, test::on_gpu(kAlgo));
  EXPECT_EQ(fits.dist[2], kInf - 1);
  EXPECT_EQ(fits.dist[3], kInf);
}

TEST(GpuSupernodal, ProgressIsMonotoneAndEndsAtOne) {
  SKIP_WITHOUT_GPU();
  const std::int64_t n = 2500;
  const Graph g = test::generated(GraphKind::grid, n, 0, 1, 9, 1);
  for (const std::int64_t budget : {std::int64_t{0}, std::int64_t{100 * n * 4}}) {
    IntHook hook(cuda::testing::hooks.sparse_row_budget, budget);
    std::vector<double> seen;
    SolveOptions o = test::on_gpu(kAlgo);
    o.progress = [&](double f) { seen.push_back(f); };
    NullSink nothing;
    solve(g, o, nothing);
    EXPECT_EQ(test::check_progress(seen), "") << "budget " << budget;
    ASSERT_GE(seen.size(), 2u) << "budget " << budget;
  }
}

// int16 working rows (issue 21): the solve's rows and min-plus tiles in
// int16 against an int16 copy of the factor, widened by the transpose and
// certified with the int16 infinity (16383), int32 rows again when the
// certificate fails.
constexpr dist_t kInf16 = 16383;

// The largest finite entry of a distance matrix (-1 when none).
dist_t largest_finite(const std::vector<dist_t>& dist) {
  dist_t largest = -1;
  for (const dist_t d : dist)
    if (d < kInf) largest = std::max(largest, d);
  return largest;
}

// Solves c with int32 working rows and with int16 ones (--precision int16,
// and `automatic` with the switch on), through both factor paths and small
// batches, and expects the same bits as int32 rows, the reference and the
// CPU supernodal solver. With non-negative weights the int16 rows certify
// exactly when the largest distance is below 16383 (else one fallback per
// solve, and int32 in the summary); with negative weights (the reweighted
// distances decide) either, consistently.
void expect_int16_rows_match(const test::Case& c) {
  const std::vector<dist_t> reference = test::reference_distances(c.graph);
  const bool negative = std::any_of(c.graph.edges.begin(), c.graph.edges.end(), [](const Edge& e) { return e.w < 0; });
  const SolveResult wide = solve(c.graph, test::on_gpu(kAlgo, Precision::int32));
  ASSERT_EQ(wide.precision, Precision::int32);
  ASSERT_EQ(test::first_difference(reference, wide.dist, c.graph.n), "");
  if (cpu_supernodal_available()) {
    SolveOptions cpu;
    cpu.backend = Backend::cpu;
    cpu.algorithm = kAlgo;
    EXPECT_EQ(test::first_difference(solve(c.graph, cpu).dist, wide.dist, c.graph.n), "");
  }
  auto check = [&](const SolveOptions& o, const std::string& path) {
    SCOPED_TRACE(c.name + ", " + path);
    const std::int64_t rows_before = cuda::testing::hooks.supernodal_int16_rows;
    const std::int64_t fallbacks_before = cuda::testing::hooks.supernodal_int16_fallbacks;
    const SolveResult narrow = solve(c.graph, o);
    EXPECT_EQ(test::first_difference(wide.dist, narrow.dist, c.graph.n), "");
    EXPECT_TRUE(narrow.dist == wide.dist);  // bit for bit
    const std::int64_t rows = cuda::testing::hooks.supernodal_int16_rows - rows_before;
    const std::int64_t fallbacks = cuda::testing::hooks.supernodal_int16_fallbacks - fallbacks_before;
    const bool in_int16 = narrow.precision == Precision::int16;
    EXPECT_EQ(fallbacks, in_int16 ? 0 : 1);
    if (in_int16) EXPECT_EQ(rows, c.graph.n);
    if (!negative) EXPECT_EQ(in_int16, largest_finite(reference) < kInf16) << "largest " << largest_finite(reference);
  };
  check(test::on_gpu(kAlgo, Precision::int16), "int16");
  {
    IntHook dense(cuda::testing::hooks.supernodal_dense_columns, 4);
    IntHook batches(cuda::testing::hooks.supernodal_batch_rows, 7);
    check(test::on_gpu(kAlgo, Precision::int16), "int16, dense fronts, small batches");
    cuda::testing::ForceHook batched(cuda::testing::hooks.supernodal_batched_factor);
    check(test::on_gpu(kAlgo, Precision::int16), "int16, batched factor, small batches");
  }
  cuda::testing::ForceHook automatic(cuda::testing::hooks.supernodal_int16_auto);
  check(test::on_gpu(kAlgo), "automatic with the switch on");
}

TEST(GpuSupernodalInt16, FamiliesMatchInt32RowsBitForBit) {
  SKIP_WITHOUT_GPU();
  std::vector<test::Case> cases = family_cases();
  cases.insert(
      cases.end(),
      {
          {"two_grids_zero_n1600", two_copies(test::generated(GraphKind::grid, 1600, 0, 0, 40, 21))},
          {"grid_long_n4900", test::generated(GraphKind::grid, 4900, 0, 200, 300, 8)},  // beyond 16383: falls back
      });
  const std::int64_t rows_before = cuda::testing::hooks.supernodal_int16_rows;
  const std::int64_t fallbacks_before = cuda::testing::hooks.supernodal_int16_fallbacks;
  for (const test::Case& c : cases) expect_int16_rows_match(c);
  EXPECT_GT(cuda::testing::hooks.supernodal_int16_rows, rows_before);            // some family ran in int16
  EXPECT_GT(cuda::testing::hooks.supernodal_int16_fallbacks, fallbacks_before);  // and one fell back
}

TEST(GpuSupernodalInt16, StandardCasesWithTheAutomaticSwitch) {
  SKIP_WITHOUT_GPU();
  cuda::testing::ForceHook automatic(cuda::testing::hooks.supernodal_int16_auto);
  for (const test::Case& c : test::standard_cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<dist_t> reference = test::reference_distances(c.graph);
    const SolveResult r = solve(c.graph, test::on_gpu(kAlgo));
    EXPECT_TRUE(r.precision == Precision::int16 || r.precision == Precision::int32);
    EXPECT_EQ(test::first_difference(reference, r.dist, c.graph.n), "");
    expect_exact(c, true, &reference);  // predecessors keep int32 rows
  }
}

// A chain whose longest distance is exactly the largest finite int16 value
// (16382: certified in int16), then one more (16383, the int16 infinity:
// the certificate fails and the rows go again in int32). Weights stay below
// fw's int16 rule (8191).
TEST(GpuSupernodalInt16, RangeBoundary) {
  SKIP_WITHOUT_GPU();
  for (const weight_t last : {2, 3}) {
    Graph g;
    g.n = 6;  // vertex 5 isolated
    g.edges = {{0, 1, 8190}, {1, 2, 8190}, {2, 3, last}, {3, 4, 0}};
    g = normalize(g);
    const test::Case c{"chain_to_" + std::to_string(16380 + last), g};
    const std::vector<dist_t> reference = test::reference_distances(g);
    ASSERT_EQ(largest_finite(reference), 16380 + last);
    expect_int16_rows_match(c);
    const SolveResult r = solve(g, test::on_gpu(kAlgo, Precision::int16));
    EXPECT_EQ(r.precision, last == 2 ? Precision::int16 : Precision::int32);
    EXPECT_EQ(r.dist[3], 16380 + last);
    EXPECT_EQ(r.dist[5], kInf);
  }
}

TEST(GpuSupernodalInt16, NegativeWeightsThroughThePotentials) {
  SKIP_WITHOUT_GPU();
  // A chain 0 -> 1 -> .. with weight -2 back edges: reweighted by the
  // potentials, the int16 rows run on non-negative weights.
  Graph g;
  g.n = 200;
  for (vertex_t v = 0; v + 1 < 200; ++v) {
    g.edges.push_back({v, static_cast<vertex_t>(v + 1), 5});
    g.edges.push_back({static_cast<vertex_t>(v + 1), v, -2});
  }
  g = normalize(g);
  const SolveResult r = solve(g, test::on_gpu(kAlgo, Precision::int16));
  EXPECT_EQ(r.precision, Precision::int16);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), r.dist, g.n), "");
  expect_int16_rows_match({"chain_negative_n200", g});
}

// Refused as fw refuses int16: predecessors, and a (reweighted) weight of
// half the int16 infinity or more; the forced certificate failure falls back.
TEST(GpuSupernodalInt16, RefusalsAndTheForcedFallback) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::generated(GraphKind::grid, 400, 0, 1, 9, 2);
  EXPECT_THROW(solve(g, test::on_gpu(kAlgo, Precision::int16, true)), UsageError);
  Graph heavy;
  heavy.n = 3;
  heavy.edges = {{0, 1, 8191}, {1, 2, 1}};
  EXPECT_THROW(solve(heavy, test::on_gpu(kAlgo, Precision::int16)), UsageError);
  heavy.edges = {{0, 1, 8190}, {1, 2, 1}};
  EXPECT_EQ(solve(heavy, test::on_gpu(kAlgo, Precision::int16)).precision, Precision::int16);
  // Without the switch, automatic keeps int32 rows.
  const std::int64_t rows_before = cuda::testing::hooks.supernodal_int16_rows;
  EXPECT_EQ(solve(g, test::on_gpu(kAlgo)).precision, Precision::int32);
  EXPECT_EQ(cuda::testing::hooks.supernodal_int16_rows, rows_before);
  cuda::testing::ForceHook fail(cuda::testing::hooks.fail_int16_certificate);
  const SolveResult forced = solve(g, test::on_gpu(kAlgo, Precision::int16));
  EXPECT_EQ(forced.precision, Precision::int32);
  EXPECT_EQ(test::first_difference(test::reference_distances(g), forced.dist, g.n), "");
}

}  // namespace
}  // namespace apsp
