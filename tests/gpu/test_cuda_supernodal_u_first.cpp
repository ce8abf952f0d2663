// U-first panels of the supernodal tiled factor (testing::hooks.supernodal_u_first;
// src/cuda/supernodal_solver.cu's plan_tiled): the panels' launch computes
// U_K = C_KK (x) F[K,S] alone, the update matrices F[S,S] min= F[S,K] (x) U_K
// read the raw panel, and L_K = F[S,K] (x) C_KK runs after them in their
// launch. C_KK is closed with a zero diagonal, so the int32 rows must be the
// default's bit for bit: grid (negative weights), geometric, R-MAT (zero
// weights), uniform (negative weights) at n = 4096 and two disjoint parts
// (+inf pairs), the large class lowered (support/lookahead_cases.hpp) so
// that the tiled path has fronts; with the 64 tile too; with predecessors
// (the solve phase reads L_K and U_K); float32 rows keep the default order
// (the hook plans nothing for them); a small case for compute-sanitizer.
// Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"
#include "support/lookahead_cases.hpp"

namespace apsp {
namespace {

using test::IntHook;

// The default path with the lowered large class, U-first on or off, the 64
// tile at `tile64` (0 off, 3 every tiled launch).
template <class G>
auto solve_u_first(const G& g, bool u_first, std::int64_t tile64 = 0, bool predecessors = false) {
  IntHook dense(cuda::testing::hooks.supernodal_dense_columns, test::kLookaheadDenseColumns);
  IntHook large(cuda::testing::hooks.supernodal_large_front, test::kLookaheadLargeFront);
  IntHook first(cuda::testing::hooks.supernodal_u_first, u_first ? 1 : 0);
  IntHook tile(cuda::testing::hooks.supernodal_tile64, tile64);
  return solve(g, test::on_gpu("supernodal", Precision::automatic, predecessors));
}

TEST(GpuSupernodalUFirst, TheHookIsOffByDefault) { EXPECT_EQ(cuda::testing::hooks.supernodal_u_first.load(), 0); }

TEST(GpuSupernodalUFirst, RowsMatchTheDefaultOrderBitForBit) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tiled_shape_cases()) {
    SCOPED_TRACE(c.name);
    const std::int64_t before_plain = cuda::testing::hooks.supernodal_u_first_fronts;
    const SolveResult plain = solve_u_first(c.graph, false);
    EXPECT_EQ(cuda::testing::hooks.supernodal_u_first_fronts, before_plain) << "U-first with the hook off";
    for (const std::int64_t tile64 : {std::int64_t{0}, std::int64_t{3}}) {
      SCOPED_TRACE("tile64 " + std::to_string(tile64));
      const std::int64_t before = cuda::testing::hooks.supernodal_u_first_fronts;
      const SolveResult first = solve_u_first(c.graph, true, tile64);
      EXPECT_GT(cuda::testing::hooks.supernodal_u_first_fronts, before) << "no front planned U-first";
      EXPECT_EQ(test::first_difference(plain.dist, first.dist, c.graph.n), "");
    }
    const SolveResult with_pred = solve_u_first(c.graph, true, 0, true);
    EXPECT_EQ(test::first_difference(plain.dist, with_pred.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, with_pred.dist, with_pred.pred), "");
  }
}

// Against the default path (not lowered) and the CPU solver, on the graph with +inf pairs.
TEST(GpuSupernodalUFirst, MatchesTheDefaultPathAndTheCpuSolver) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::tiled_shape_cases()[4];
  const SolveResult first = solve_u_first(c.graph, true, 1);
  EXPECT_EQ(test::first_difference(solve(c.graph, test::on_gpu("supernodal")).dist, first.dist, c.graph.n), "");
  if (!test::cpu_algorithm_available("supernodal")) GTEST_SKIP() << "no CPU supernodal in this build";
  SolveOptions cpu;
  cpu.backend = Backend::cpu;
  cpu.algorithm = "supernodal";
  EXPECT_EQ(test::first_difference(solve(c.graph, cpu).dist, first.dist, c.graph.n), "");
}

// float32 rows on the tiled path (its hook): the reassociation is not exact
// in floating point, so U-first plans nothing for them and the rows stay.
TEST(GpuSupernodalUFirst, Float32RowsKeepTheDefaultOrder) {
  SKIP_WITHOUT_GPU();
  const test::Case c = test::tiled_shape_cases()[3];
  GraphF32 g;
  g.n = c.graph.n;
  for (const Edge& e : c.graph.edges) g.edges.push_back({e.src, e.dst, static_cast<float>(e.w)});
  test::BoolHook tiled_path(cuda::testing::hooks.supernodal_tiled_factor, true);
  const SolveResultF32 plain = solve_u_first(g, false);
  const std::int64_t before = cuda::testing::hooks.supernodal_u_first_fronts;
  const SolveResultF32 first = solve_u_first(g, true);
  EXPECT_EQ(cuda::testing::hooks.supernodal_u_first_fronts, before) << "float32 rows planned U-first";
  EXPECT_EQ(plain.dist, first.dist);
}

// A small case for compute-sanitizer (racecheck: L_K's tiles write F[S,K]
// in the launch whose updates read its pack), against the exact reference.
TEST(GpuSupernodalUFirst, SmallCaseForSanitizers) {
  SKIP_WITHOUT_GPU();
  const Graph g = test::lookahead_sanitizer_case().graph;
  const std::vector<dist_t> reference = test::reference_distances(g);
  const std::int64_t before = cuda::testing::hooks.supernodal_u_first_fronts;
  const SolveResult r = solve_u_first(g, true, 0, true);
  EXPECT_GT(cuda::testing::hooks.supernodal_u_first_fronts, before) << "no front planned U-first";
  EXPECT_EQ(test::first_difference(reference, r.dist, g.n), "");
  EXPECT_EQ(test::check_predecessors(g, r.dist, r.pred), "");
}

}  // namespace
}  // namespace apsp
