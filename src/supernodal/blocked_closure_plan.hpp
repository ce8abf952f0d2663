// The phases of the blocked (2 x 2, recursive) min-plus closure of a k x k
// block (issue 21: the root front's large diagonal block, k = 1305 on R-MAT
// 32768, where fw's rounds are latency and four squarings of 1305^3 are too
// much work). With the block split at h (a multiple of `align`) into
// [[A, B], [C, D]], the closure is a front elimination of A followed by its
// back substitution:
//   1. A <- A*                      (recursively; a leaf is squared)
//   2. B <- min(B, A (x) B), C <- min(C, C (x) A)
//   3. D <- min(D, C (x) B)         (the Schur update)
//   4. D <- D*                      (recursively)
//   5. B <- min(B, B (x) D), C <- min(C, D (x) C)
//   6. A <- min(A, B (x) C)
// Every step is a restricted product on the one matrix, X[rows, cols] min=
// X[rows, depth] (x) X[depth, cols]; this header plans them, cuts each
// phase into the device's work items (tiles x depth shares: tile_phases,
// blocked_item; the kernel, kernels/supernodal/blocked_closure.cuh, reads
// these records and calls blocked_item), all host arithmetic checked by the
// CPU tests against Floyd-Warshall, item by item as the device runs them
// (tests/cpu/test_supernodal_blocked_closure.cpp). The device runs a plan
// in one cooperative launch (cuda/persistent_rounds.hpp, BlockedClosure).
// Why it is the closure (X+, walks of at least one edge; X* = I (+) X+):
// after step 1 A = A+, after 2 B = A* B and C = C A* (min(B, A+ B) = A* B),
// after 3 D = D + C A* B, after 4 D = (D + C A* B)+, after 5 B = A* B (D +
// C A* B)* and C = (D + C A* B)* C A*, after 6 A = A+ + A* B (D + C A* B)* C
// A* (B (x) C of step 5's B and C is that: a star is idempotent): the 2 x 2
// Kleene formula for X+, blockwise. With no negative cycle every value the
// steps ever write is the length of some walk (a sum of such lengths), so it
// is at least the closure's, and the formula makes it at most: exact,
// whatever the order of the add-mins, so in int32 (entries at most kInf,
// sums of two within int32, a min never raises a cell) it is fw's closure
// bit for bit. In place is exact too (steps 2 and 5 read B and C while they
// are lowered): a read sees a value between the step's old and new one, and
// the product with a closed factor maps both to the new value (A+ (x) A* B
// >= A* B; B' (x) D* = B' for B' = B D*), so mixed reads give the new value.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"

namespace apsp::supernodal {

// Indices [begin, end) of the block; begin a multiple of the plan's align,
// end too or k.
struct ClosureRange {
  std::int64_t begin = 0, end = 0;
  std::int64_t size() const { return end - begin; }
};

// X[rows, cols] min= X[rows, depth] (x) X[depth, cols].
struct ClosureProduct {
  ClosureRange rows, cols, depth;
};

// A phase: one leaf closed by repeated squaring (one product with rows =
// cols = depth = the leaf), or one or two products that read nothing the
// other writes (they run at once).
struct ClosurePhase {
  bool square = false;
  int count = 0;
  ClosureProduct product[2];
};

struct BlockedClosurePlan {
  std::vector<ClosurePhase> phases;
  std::int64_t leaves = 0;
  double product_addmins = 0;  // the products' add-mins (m n depth), not the leaves'
};

// The phases of the closure of a k x k block: blocks of more than
// leaf_max_k split at h = ceil(size / 2) rounded up to `align` (so that
// every range starts on a tile), recursively; blocks of at most leaf_max_k
// are leaves. A block of at most leaf_max_k is one leaf.
inline BlockedClosurePlan plan_blocked_closure(std::int64_t k, std::int64_t leaf_max_k, std::int64_t align) {
  if (k < 0) throw UsageError("the blocked closure's order " + std::to_string(k) + " is negative", "k");
  if (align < 1 || leaf_max_k < align)
    throw UsageError("the blocked closure's leaves (" + std::to_string(leaf_max_k) +
                         ") must be at least its alignment " + std::to_string(align),
                     "leaf_max_k");
  BlockedClosurePlan plan;
  auto product = [](ClosureRange rows, ClosureRange cols, ClosureRange depth) {
    return ClosureProduct{rows, cols, depth};
  };
  auto phase = [&](std::initializer_list<ClosureProduct> products) {
    ClosurePhase p;
    for (const ClosureProduct& x : products) {
      p.product[p.count++] = x;
      plan.product_addmins += static_cast<double>(x.rows.size()) * static_cast<double>(x.cols.size()) *
                              static_cast<double>(x.depth.size());
    }
    plan.phases.push_back(p);
  };
  auto close = [&](auto&& self, ClosureRange r) -> void {
    if (r.size() <= 0) return;
    if (r.size() <= leaf_max_k) {
      ClosurePhase p;
      p.square = true;
      p.count = 1;
      p.product[0] = ClosureProduct{r, r, r};
      plan.phases.push_back(p);
      ++plan.leaves;
      return;
    }
    std::int64_t h = ((r.size() + 1) / 2 + align - 1) / align * align;
    if (h >= r.size()) h = align;  // r.size() > leaf_max_k >= align
    const ClosureRange a{r.begin, r.begin + h}, d{r.begin + h, r.end};
    self(self, a);                                // 1. A*
    phase({product(a, d, a), product(d, a, a)});  // 2. B, C
    phase({product(d, d, a)});                    // 3. Schur
    self(self, d);                                // 4. D*
    phase({product(a, d, d), product(d, a, d)});  // 5. B, C
    phase({product(a, a, d)});                    // 6. A
  };
  close(close, ClosureRange{0, k});
  return plan;
}

// A phase's product in tiles of the padded block (tile == depth stage): C
// tiles [ti0, ti0 + tiles_i) x [tj0, tj0 + tiles_j), depth stages [s0, s1)
// cut into `splits` shares (each at least one stage).
struct TileRect {
  int ti0, tiles_i, tj0, tiles_j, s0, s1, splits;
};
// A phase in tiles: `square` (rect[0] a leaf, squared up to `squarings`
// times, stopping after one that lowers nothing) or `rects` products run
// once. Plain ints: the device reads these records as they are.
struct TilePhase {
  int square, squarings, rects;
  TileRect rect[2];
};
// Work item `item` of a phase (rect 0's tiles x shares, then rect 1's): the
// C tile's first row and column, its depth stages [s_begin, s_end), and
// whether the depth is split (then several items write the tile).
struct TileItem {
  int i0, j0, s_begin, s_end;
  bool split;
};
inline APSP_HOST_DEVICE int phase_items(const TilePhase& p) {
  int items = 0;
  for (int x = 0; x < p.rects; ++x) items += p.rect[x].tiles_i * p.rect[x].tiles_j * p.rect[x].splits;
  return items;
}
inline APSP_HOST_DEVICE TileItem blocked_item(const TilePhase& p, int item, int tile) {
  const int items0 = p.rect[0].tiles_i * p.rect[0].tiles_j * p.rect[0].splits;
  const bool first = item < items0;
  const TileRect r = first ? p.rect[0] : p.rect[1];
  const int local = first ? item : item - items0;
  const int tiles = r.tiles_i * r.tiles_j, at = local % tiles, share = local / tiles;
  const int stages = r.s1 - r.s0;
  return TileItem{(r.ti0 + at / r.tiles_j) * tile, (r.tj0 + at % r.tiles_j) * tile, r.s0 + share * stages / r.splits,
                  r.s0 + (share + 1) * stages / r.splits, r.splits > 1};
}

// The leaves' squarings that close any leaf of `size` vertices: ceil(log2
// size), at least 1 (the squaring closure's bound).
constexpr int leaf_squarings(std::int64_t size) {
  int t = 1;
  while ((std::int64_t{1} << t) < size) ++t;
  return t;
}

// A plan's phases in tiles of `tile` (ranges on its boundaries: align a
// multiple of it; an end at k takes the isolated padding up to the next
// tile), the depth of each phase split until it has about items_per_sm
// items per SM of `sms` (as the squaring closure splits).
inline std::vector<TilePhase> tile_phases(const BlockedClosurePlan& plan, int tile, int sms, int items_per_sm) {
  std::vector<TilePhase> phases;
  for (const ClosurePhase& p : plan.phases) {
    TilePhase d{};
    d.square = p.square ? 1 : 0;
    d.squarings = p.square ? leaf_squarings(p.product[0].rows.size()) : 1;
    d.rects = p.count;
    int tiles = 0;
    for (int x = 0; x < p.count; ++x) {
      const ClosureProduct& product = p.product[x];
      TileRect& r = d.rect[x];
      r.ti0 = static_cast<int>(product.rows.begin / tile);
      r.tiles_i = static_cast<int>(ceil_div(product.rows.end, std::int64_t{tile})) - r.ti0;
      r.tj0 = static_cast<int>(product.cols.begin / tile);
      r.tiles_j = static_cast<int>(ceil_div(product.cols.end, std::int64_t{tile})) - r.tj0;
      r.s0 = static_cast<int>(product.depth.begin / tile);
      r.s1 = static_cast<int>(ceil_div(product.depth.end, std::int64_t{tile}));
      tiles += r.tiles_i * r.tiles_j;
    }
    for (int x = 0; x < p.count; ++x) {
      TileRect& r = d.rect[x];
      const int wanted = items_per_sm * sms / (tiles > 0 ? tiles : 1);
      r.splits = wanted < 1 ? 1 : wanted > r.s1 - r.s0 ? r.s1 - r.s0 : wanted;
    }
    phases.push_back(d);
  }
  return phases;
}

}  // namespace apsp::supernodal
