// The blocked (2 x 2, recursive) closure's plan (src/supernodal/
// blocked_closure_plan.hpp), host side: its leaves partition the block on
// tile boundaries, and its phases, run on the CPU (leaves by Floyd-Warshall
// restricted to the leaf, products as min-plus products, both in place and
// from a snapshot: the two orders the device's concurrent tiles lie
// between), give Floyd-Warshall's closure exactly, on random int32 blocks
// with +inf, zero and negative entries (no negative cycle), and with
// positive diagonal entries (both then give the closure of walks of at
// least one edge); and the same as the device's work items run them (tiles
// of 32, depth shares, padding). The device runs the same phases
// (tests/gpu/test_cuda_supernodal_closure.cpp, GpuSupernodalClosure.Blocked*).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "supernodal/blocked_closure_plan.hpp"

namespace apsp {
namespace {

using Matrix = std::vector<std::int32_t>;

// w(i, j) + p(i) - p(j) with w in [0, 40] (some 0), about half the pairs
// +inf (kInf) and a few whole rows and columns; the diagonal 0, or in
// [0, 5] when `positive_diagonal`.
Matrix random_block(std::int64_t k, std::uint64_t seed, bool positive_diagonal = false) {
  Matrix x(static_cast<std::size_t>(k * k));
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> weight(0, 40), potential(0, 30), percent(0, 99), diagonal(0, 5);
  std::vector<int> p(static_cast<std::size_t>(k));
  std::vector<bool> cut(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < k; ++i) {
    p[static_cast<std::size_t>(i)] = potential(random);
    cut[static_cast<std::size_t>(i)] = percent(random) < 3;
  }
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < k; ++j) {
      std::int32_t& at = x[static_cast<std::size_t>(i * k + j)];
      if (i == j)
        at = positive_diagonal ? diagonal(random) : 0;
      else if (cut[static_cast<std::size_t>(i)] || cut[static_cast<std::size_t>(j)] || percent(random) < 50)
        at = kInf;
      else
        at = (percent(random) < 10 ? 0 : weight(random)) + p[static_cast<std::size_t>(i)] -
             p[static_cast<std::size_t>(j)];
    }
  return x;
}

// X[rows, cols] min= X[rows, depth] (x) X[depth, cols], reading `from`
// (X itself: in place, row-major order).
void product(Matrix& x, const Matrix& from, std::int64_t k, const supernodal::ClosureProduct& p) {
  for (std::int64_t i = p.rows.begin; i < p.rows.end; ++i)
    for (std::int64_t j = p.cols.begin; j < p.cols.end; ++j) {
      std::int32_t best = x[static_cast<std::size_t>(i * k + j)];
      for (std::int64_t m = p.depth.begin; m < p.depth.end; ++m)
        best = std::min(best, from[static_cast<std::size_t>(i * k + m)] + from[static_cast<std::size_t>(m * k + j)]);
      x[static_cast<std::size_t>(i * k + j)] = best;
    }
}

// Floyd-Warshall over the pivots of `r` on X[r, r] (r = [0, k): the whole closure).
void floyd_warshall(Matrix& x, std::int64_t k, supernodal::ClosureRange r) {
  for (std::int64_t m = r.begin; m < r.end; ++m)
    for (std::int64_t i = r.begin; i < r.end; ++i)
      for (std::int64_t j = r.begin; j < r.end; ++j)
        x[static_cast<std::size_t>(i * k + j)] =
            std::min(x[static_cast<std::size_t>(i * k + j)],
                     x[static_cast<std::size_t>(i * k + m)] + x[static_cast<std::size_t>(m * k + j)]);
}

// The plan's phases on the CPU: products in place, or each phase from a
// snapshot taken before it.
Matrix run_plan(Matrix x, std::int64_t k, const supernodal::BlockedClosurePlan& plan, bool snapshot) {
  for (const supernodal::ClosurePhase& phase : plan.phases) {
    if (phase.square) {
      floyd_warshall(x, k, phase.product[0].rows);
      continue;
    }
    const Matrix before = snapshot ? x : Matrix{};
    for (int p = 0; p < phase.count; ++p) product(x, snapshot ? before : x, k, phase.product[p]);
  }
  return x;
}

Matrix closure(Matrix x, std::int64_t k) {
  floyd_warshall(x, k, {0, k});
  return x;
}

// The plan as the device runs it (kernels/supernodal/blocked_closure.cuh):
// the block padded to whole 32-tiles (padding isolated), each phase's work
// items (tile_phases, blocked_item) over the padded block, items in order
// and in place or each phase from a snapshot, a leaf's squarings repeated
// until one lowers a cell of the block no more; then the k x k cells. Also
// that every phase's items cover each (C tile, depth stage) of its products
// exactly once.
Matrix run_items(const Matrix& x, std::int64_t k, const supernodal::BlockedClosurePlan& plan, int sms, bool snapshot) {
  constexpr int kTile = 32;
  const std::int64_t n = (k + kTile - 1) / kTile * kTile;
  Matrix d(static_cast<std::size_t>(n * n), kInf);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      d[static_cast<std::size_t>(i * n + j)] = i < k && j < k ? x[static_cast<std::size_t>(i * k + j)]
                                               : i == j       ? 0
                                                              : kInf;
  for (const supernodal::TilePhase& phase : supernodal::tile_phases(plan, kTile, sms, 2)) {
    const int items = supernodal::phase_items(phase);
    std::vector<int> covered(static_cast<std::size_t>(n / kTile * n / kTile * n / kTile), 0);  // (ti, tj, stage)
    for (int t = 0; t < phase.squarings; ++t) {
      const Matrix before = snapshot ? d : Matrix{};
      const Matrix& from = snapshot ? before : d;
      bool lowered = false;
      for (int item = 0; item < items; ++item) {
        const supernodal::TileItem at = supernodal::blocked_item(phase, item, kTile);
        EXPECT_LT(at.s_begin, at.s_end);
        EXPECT_EQ(
            at.split,
            phase.rect[item < phase.rect[0].tiles_i * phase.rect[0].tiles_j * phase.rect[0].splits ? 0 : 1].splits > 1);
        for (int s = at.s_begin; s < at.s_end; ++s)
          ++covered[static_cast<std::size_t>(((at.i0 / kTile) * (n / kTile) + at.j0 / kTile) * (n / kTile) + s)];
        for (std::int64_t i = at.i0; i < at.i0 + kTile && i < k; ++i)
          for (std::int64_t j = at.j0; j < at.j0 + kTile && j < k; ++j) {
            std::int32_t best = std::numeric_limits<std::int32_t>::max();
            for (std::int64_t m = std::int64_t{at.s_begin} * kTile; m < std::int64_t{at.s_end} * kTile; ++m)
              best =
                  std::min(best, from[static_cast<std::size_t>(i * n + m)] + from[static_cast<std::size_t>(m * n + j)]);
            std::int32_t& c = d[static_cast<std::size_t>(i * n + j)];
            if (best < c) {
              c = best;
              lowered = true;
            }
          }
      }
      if (t == 0) {
        for (int r = 0; r < phase.rects; ++r) {
          const supernodal::TileRect& rect = phase.rect[r];
          for (int ti = rect.ti0; ti < rect.ti0 + rect.tiles_i; ++ti)
            for (int tj = rect.tj0; tj < rect.tj0 + rect.tiles_j; ++tj)
              for (int s = rect.s0; s < rect.s1; ++s)
                --covered[static_cast<std::size_t>((ti * (n / kTile) + tj) * (n / kTile) + s)];
        }
        EXPECT_TRUE(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 0; }))
            << "a phase's items do not cover its tiles and stages exactly once";
      }
      if (phase.square && !lowered) break;
    }
  }
  Matrix out(x.size());
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < k; ++j)
      out[static_cast<std::size_t>(i * k + j)] = d[static_cast<std::size_t>(i * n + j)];
  return out;
}

TEST(SupernodalBlockedClosure, PlanEqualsFloydWarshallExactly) {
  std::uint64_t seed = 2100;
  struct Case {
    std::int64_t k, leaf;
  };
  for (const Case c : {Case{1, 32}, Case{2, 32}, Case{33, 32}, Case{64, 32}, Case{65, 32}, Case{100, 32}, Case{129, 64},
                       Case{200, 96}, Case{257, 32}, Case{300, 128}}) {
    for (const bool positive_diagonal : {false, true}) {
      SCOPED_TRACE("k " + std::to_string(c.k) + " leaf " + std::to_string(c.leaf) +
                   (positive_diagonal ? " positive diagonal" : ""));
      const Matrix x = random_block(c.k, ++seed, positive_diagonal);
      const Matrix expected = closure(x, c.k);
      const supernodal::BlockedClosurePlan plan = supernodal::plan_blocked_closure(c.k, c.leaf, 32);
      EXPECT_EQ(run_plan(x, c.k, plan, false), expected);
      EXPECT_EQ(run_plan(x, c.k, plan, true), expected);
      // As the device's items run it: one SM (no depth split) and 132 (split).
      for (const int sms : {1, 132}) {
        SCOPED_TRACE(std::to_string(sms) + " SMs");
        EXPECT_EQ(run_items(x, c.k, plan, sms, false), expected);
        EXPECT_EQ(run_items(x, c.k, plan, sms, true), expected);
      }
      if (c.k >= 64) {
        EXPECT_NE(expected, x) << "the block was closed already: the case tests nothing";
        EXPECT_TRUE(std::any_of(expected.begin(), expected.end(), [](std::int32_t v) { return v < 0; }));
      }
    }
  }
}

// Leaves in order, partitioning [0, k), each at most leaf_max_k; every
// range on a tile boundary (or ending at k); products read and write inside
// the block; a block of at most leaf_max_k is one leaf.
TEST(SupernodalBlockedClosure, PlanLeavesPartitionTheBlockOnTileBoundaries) {
  for (const std::int64_t k : {1, 31, 641, 700, 1024, 1305, 2048, 4096}) {
    for (const std::int64_t leaf : {32, 64, 352, 640, 704}) {
      SCOPED_TRACE("k " + std::to_string(k) + " leaf " + std::to_string(leaf));
      const supernodal::BlockedClosurePlan plan = supernodal::plan_blocked_closure(k, leaf, 32);
      std::int64_t next = 0, leaves = 0;
      double addmins = 0;
      auto on_tiles = [&](const supernodal::ClosureRange& r) {
        return r.begin % 32 == 0 && (r.end % 32 == 0 || r.end == k) && 0 <= r.begin && r.begin < r.end && r.end <= k;
      };
      for (const supernodal::ClosurePhase& phase : plan.phases) {
        ASSERT_GE(phase.count, 1);
        ASSERT_LE(phase.count, 2);
        for (int p = 0; p < phase.count; ++p) {
          const supernodal::ClosureProduct& x = phase.product[p];
          EXPECT_TRUE(on_tiles(x.rows) && on_tiles(x.cols) && on_tiles(x.depth));
          if (!phase.square)
            addmins += static_cast<double>(x.rows.size()) * static_cast<double>(x.cols.size()) *
                       static_cast<double>(x.depth.size());
        }
        if (!phase.square) continue;
        ++leaves;
        const supernodal::ClosureRange r = phase.product[0].rows;
        EXPECT_EQ(r.begin, next);
        EXPECT_LE(r.size(), leaf);
        next = r.end;
      }
      EXPECT_EQ(next, k);
      EXPECT_EQ(leaves, plan.leaves);
      EXPECT_EQ(addmins, plan.product_addmins);
      if (k <= leaf) EXPECT_EQ(plan.phases.size(), 1u);
    }
  }
  // R-MAT 32768's root (k = 1305) with the default leaves (704): two leaves
  // (672 and 633) and four product phases.
  const supernodal::BlockedClosurePlan root = supernodal::plan_blocked_closure(1305, 704, 32);
  ASSERT_EQ(root.phases.size(), 6u);
  EXPECT_EQ(root.phases[0].product[0].rows.end, 672);
  const double a = 672, d = 633;
  EXPECT_EQ(root.product_addmins, 2 * a * d * a + d * d * a + 2 * a * d * d + a * a * d);
  EXPECT_THROW(supernodal::plan_blocked_closure(100, 16, 32), UsageError);
  EXPECT_THROW(supernodal::plan_blocked_closure(-1, 64, 32), UsageError);
  EXPECT_TRUE(supernodal::plan_blocked_closure(0, 64, 32).phases.empty());
}

}  // namespace
}  // namespace apsp
