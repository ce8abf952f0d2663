// RowVerifier, the row-block form of verify() that --verify uses on each
// rank: the same verdict as verify() / verify_predecessors() on every block
// split, for correct and for corrupted matrices.
#include <gtest/gtest.h>

#include <vector>

#include "apsp/solver.hpp"
#include "apsp/verify.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

TEST(RowVerifier, AgreesWithVerifyOnEveryBlock) {
  const Graph g = normalize(test::generated(GraphKind::random, 150, 600, -5, 40, 23));
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "fw-blocked";
  o.predecessors = true;
  const SolveResult r = solve(g, o);
  const RowVerifier verifier(g);
  const std::int64_t n = g.n;
  for (std::int64_t first = 0; first < n; first += 37) {
    const std::int64_t rows = std::min<std::int64_t>(37, n - first);
    EXPECT_TRUE(verifier.check(first, rows, r.dist.data() + first * n, r.pred.data() + first * n).ok);
  }
  // A wrong distance in row 80 and a wrong predecessor in row 20: found by
  // the blocks holding them (with verify's own message), not by the others.
  HostVector<dist_t> bad = r.dist;
  bad[80 * n + 3] = bad[80 * n + 3] == kInf ? 7 : bad[80 * n + 3] + 1;
  const VerifyReport whole = verify(g, bad);
  ASSERT_FALSE(whole.ok);
  const VerifyReport block = verifier.check(74, 37, bad.data() + 74 * n);
  EXPECT_FALSE(block.ok);
  EXPECT_EQ(block.first_violation, whole.first_violation);
  EXPECT_TRUE(verifier.check(0, 37, bad.data()).ok);
  HostVector<vertex_t> bad_pred = r.pred;
  for (std::int64_t j = 0; j < n; ++j)
    if (j != 20 && r.dist[20 * n + j] != kInf) {
      bad_pred[20 * n + j] = static_cast<vertex_t>(j);  // j -> j is no edge
      break;
    }
  const VerifyReport pred_block = verifier.check(0, 37, r.dist.data(), bad_pred.data());
  EXPECT_FALSE(pred_block.ok);
  EXPECT_EQ(pred_block.first_violation, verify_predecessors(g, r.dist, bad_pred).first_violation);
}

}  // namespace
}  // namespace apsp
