// The supernodal solver's CPU numeric factor and solve phase over the
// (min, +) semiring, on the shared symbolic structure (symbolic.hpp, whose
// header comment documents the stored blocks C_KK, L_K, U_K). Host-only,
// templated on the distance type D the arithmetic runs in (int32 or int64
// for integer weights, float or double for real ones) and on the weight type W.
//
// Values: `inf` stands for a missing entry. Integer D uses fw-blocked's rule:
// inf = infinity<D>() is a weight like any other, no entry is tested for
// it, every stored value stays <= inf (each update is a min with a stored
// value), and with X = (n - 1) * max|w| < inf / 4 every real distance lies in
// [-X, X] while a walk through a missing entry weighs >= inf - 2X > inf / 2,
// so a value above inf / 2 means unreachable (the caller checks the bound).
// Real D: inf = +infinity, and +infinity + w stays +infinity.
//
// Factor (multifrontal, every supernode after its children): the
// front of K, (k + s) x (k + s) row-major over [K's columns, S_K], holds the
// original entries whose lower endpoint is in K, 0 on K's diagonal, and the
// children's update matrices (extend-add with min through struct_rel);
// Floyd-Warshall over K's k pivots then leaves C_KK, L_K = F[S,K] (x) C_KK,
// U_K = C_KK (x) F[K,S] and the update F[S,S] min= L_K (x) F[K,S] in the
// front. A diagonal entry below `negative_below` after a pivot is a negative
// cycle through that pivot. Cost: sum over K of (k + s)^2 * k.
//
// Solve (rows of sources, independent per row, the one row split's unit):
// x = +inf except x[src] = 0 (new order); forward over the etree path from
// src's supernode to its root: x_K = x_K (x) C_KK, x[S_K] min= x_K (x) U_K;
// backward over every supernode in reverse order: x_K min= x[S_K] (x) L_K.
// For a shortest path s -> t with highest vertex h, the prefix s -> h has
// every intermediate below h and is composed by the forward pass along s's
// etree path; the suffix h -> t descends and is composed by the backward pass.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "core/first_error.hpp"
#include "supernodal/symbolic.hpp"

namespace apsp::supernodal {

// The stored blocks of every supernode (layout: symbolic.hpp).
template <class D>
struct Factor {
  std::vector<D> diag;   // Symbolic::diag_offset.back() entries: C_KK
  std::vector<D> lower;  // Symbolic::panel_offset.back() entries: L_K
  std::vector<D> upper;  // Symbolic::panel_offset.back() entries: U_K
};

// Whether value v of type D (with missing-entry value inf) is a distance.
template <class D>
inline bool is_distance(D v, D inf) {
  if constexpr (std::is_floating_point<D>::value)
    return v < inf;
  else
    return v <= inf / 2;
}

namespace detail {

// row[j] = min(row[j], a + pivot_row[j]) for j < len (vectorises).
template <class D>
[[gnu::always_inline]] inline void relax(D* __restrict row, const D* __restrict pivot_row, D a, std::int64_t len) {
  for (std::int64_t j = 0; j < len; ++j) {
    const D sum = a + pivot_row[j];
    row[j] = sum < row[j] ? sum : row[j];
  }
}

// Pivots per block of the front's Floyd-Warshall: a block's rows (kPivotBlock
// x front width) stay in L2 while every other row of the front passes them.
inline constexpr std::int64_t kPivotBlock = 32;
static_assert(kPivotBlock >= 1, "a pivot block holds at least one pivot");

// Per-thread scratch of the factor: the front and the position map.
template <class D>
struct FrontScratch {
  std::vector<D> front;
  std::vector<std::int32_t> position;  // n entries, -1 outside the current front
};

// Assembles, closes and stores supernode K (see the header comment); the
// children's updates are consumed and K's own is left in updates[K].
// `threads` OpenMP threads share the pivots' row loops.
template <class D, class W>
void factor_supernode(const Symbolic& s, std::int32_t K, const BasicCsr<W>& out, const BasicCsr<W>& in, D inf,
                      D negative_below, int threads, FrontScratch<D>& scratch, Factor<D>& f,
                      std::vector<std::vector<D>>& updates) {
  const std::int64_t k = s.columns(K), sk = s.structure_size(K), w = k + sk;
  const std::int32_t first = s.first[K], last = s.first[K + 1] - 1;
  const std::int32_t* S = s.struct_idx.data() + s.struct_ptr[K];
  std::vector<D>& front = scratch.front;
  front.assign(static_cast<std::size_t>(w * w), inf);
  D* F = front.data();
  std::vector<std::int32_t>& pos = scratch.position;
  if (pos.empty()) pos.assign(static_cast<std::size_t>(s.n), -1);
  for (std::int64_t p = 0; p < k; ++p) pos[first + p] = static_cast<std::int32_t>(p);
  for (std::int64_t i = 0; i < sk; ++i) pos[S[i]] = static_cast<std::int32_t>(k + i);
  // Original entries whose lower endpoint is in K: out-edges j -> v with v >=
  // first, in-edges v -> j with v > last (those inside K are out-edges too).
  for (std::int64_t p = 0; p < k; ++p) {
    F[p * w + p] = 0;
    const vertex_t u = s.perm[first + p];
    for (std::int64_t e = out.row_start[u]; e < out.row_start[u + 1]; ++e) {
      const std::int32_t j = s.iperm[out.col[e]];
      if (j < first) continue;
      D& cell = F[p * w + pos[j]];
      cell = std::min(cell, static_cast<D>(out.weight[e]));
    }
    for (std::int64_t e = in.row_start[u]; e < in.row_start[u + 1]; ++e) {
      const std::int32_t j = s.iperm[in.col[e]];
      if (j <= last) continue;
      D& cell = F[pos[j] * w + p];
      cell = std::min(cell, static_cast<D>(in.weight[e]));
    }
  }
  for (std::int64_t p = 0; p < k; ++p) pos[first + p] = -1;
  for (std::int64_t i = 0; i < sk; ++i) pos[S[i]] = -1;
  for (std::int32_t c = s.child_ptr[K]; c < s.child_ptr[K + 1]; ++c) {
    const std::int32_t C = s.child_idx[c];
    const std::int64_t sc = s.structure_size(C);
    const std::int32_t* rel = s.struct_rel.data() + s.struct_ptr[C];
    const D* update = updates[C].data();
    for (std::int64_t a = 0; a < sc; ++a) {
      D* row = F + rel[a] * w;
      for (std::int64_t b = 0; b < sc; ++b) row[rel[b]] = std::min(row[rel[b]], update[a * sc + b]);
    }
    std::vector<D>().swap(updates[C]);
  }
  // Floyd-Warshall over K's pivots on the whole front, kPivotBlock pivots at
  // a time (blocked FW): first the block's own rows through its pivots in
  // order (exactly FW restricted to those rows), then every other row
  // through the block's finished rows, each row staying in cache for the
  // whole block. Using finished pivot rows in place of FW's partial ones
  // only shortens walks, so every value is still a walk weight and the end
  // result is FW's. A diagonal entry below negative_below is checked after
  // each pivot of each row, before it can compound.
  std::int64_t negative_pivot = -1;
  for (std::int64_t p0 = 0; p0 < k && negative_pivot < 0; p0 += kPivotBlock) {
    const std::int64_t p1 = std::min(k, p0 + kPivotBlock);
    for (std::int64_t p = p0; p < p1 && negative_pivot < 0; ++p) {
      const D* pivot_row = F + p * w;
      for (std::int64_t i = p0; i < p1; ++i) {
        if (i == p) continue;
        const D a = F[i * w + p];
        if (is_distance(a, inf)) relax(F + i * w, pivot_row, a, w);
        if (F[i * w + i] < negative_below) {
          negative_pivot = p;
          break;
        }
      }
    }
    if (negative_pivot >= 0) break;
    std::int64_t first_bad = -1;
#pragma omp parallel for num_threads(threads) \
    schedule(static) if (threads > 1 && (w - (p1 - p0)) * w * (p1 - p0) >= (1 << 18))
    for (std::int64_t i = 0; i < w; ++i) {
      if (i >= p0 && i < p1) continue;
      D* row = F + i * w;
      for (std::int64_t p = p0; p < p1; ++p) {
        const D a = row[p];
        if (!is_distance(a, inf)) continue;
        relax(row, F + p * w, a, w);
        if (row[i] < negative_below) {
#pragma omp critical(supernodal_negative_cycle)
          if (first_bad < 0 || p < first_bad) first_bad = p;
          break;
        }
      }
    }
    negative_pivot = first_bad;
  }
  if (negative_pivot >= 0) throw NegativeCycleError(s.perm[first + negative_pivot]);
  // Rounding may leave a real diagonal entry a little below 0 (within the
  // tolerance): the distance is 0.
  for (std::int64_t p = 0; p < k; ++p)
    if (F[p * w + p] < 0) F[p * w + p] = 0;
  D* diag = f.diag.data() + s.diag_offset[K];
  D* lower = f.lower.data() + s.panel_offset[K];
  D* upper = f.upper.data() + s.panel_offset[K];
  for (std::int64_t i = 0; i < k; ++i) {
    std::copy(F + i * w, F + i * w + k, diag + i * k);
    std::copy(F + i * w + k, F + i * w + w, upper + i * sk);
  }
  for (std::int64_t i = 0; i < sk; ++i) std::copy(F + (k + i) * w, F + (k + i) * w + k, lower + i * k);
  if (s.parent[K] != -1) {
    std::vector<D> update(static_cast<std::size_t>(sk * sk));
    for (std::int64_t i = 0; i < sk; ++i) std::copy(F + (k + i) * w + k, F + (k + i) * w + w, update.data() + i * sk);
    updates[K] = std::move(update);
  }
}

}  // namespace detail

// The factor of graph (out: its CSR in original ids, in: transpose(out)) on
// symbolic structure s (analysed from the same graph). Two phases, one
// parallel region each: the subtrees whose work is below 1 / (4 threads) of
// the whole (maximal ones, a contiguous range of supernodes each) go to the
// threads whole, largest first, each in postorder; then the remaining top
// supernodes run in order, each front's rows shared by the threads.
// progress(fraction of the factor's work done) is called from the calling
// thread (it may throw to cancel). Throws NegativeCycleError naming a vertex
// (an original id) on a negative cycle.
template <class D, class W, class Progress>
Factor<D> factor(const Symbolic& s, const BasicCsr<W>& out, const BasicCsr<W>& in, D inf, D negative_below, int threads,
                 Progress progress) {
  Factor<D> f;
  f.diag.resize(static_cast<std::size_t>(s.diag_offset.back()));
  f.lower.resize(static_cast<std::size_t>(s.panel_offset.back()));
  f.upper.resize(static_cast<std::size_t>(s.panel_offset.back()));
  std::vector<std::vector<D>> updates(static_cast<std::size_t>(s.count));
  threads = std::max(1, threads);
  std::vector<detail::FrontScratch<D>> scratch(static_cast<std::size_t>(threads));
  // Work and size of every subtree (children come before parents).
  std::vector<double> work(static_cast<std::size_t>(s.count)), subtree_work(static_cast<std::size_t>(s.count));
  std::vector<std::int32_t> subtree_size(static_cast<std::size_t>(s.count), 1);
  for (std::int32_t K = 0; K < s.count; ++K) {
    const double k = s.columns(K), w = k + static_cast<double>(s.structure_size(K));
    work[K] = w * w * k;
    subtree_work[K] += work[K];
    if (s.parent[K] != -1) {
      subtree_work[s.parent[K]] += subtree_work[K];
      subtree_size[s.parent[K]] += subtree_size[K];
    }
  }
  const double total = std::max(1.0, s.factor_ops);
  const double small_subtree = total / (4.0 * threads);
  std::vector<std::int32_t> small_roots, top;
  for (std::int32_t K = 0; K < s.count; ++K) {
    const bool small = subtree_work[K] <= small_subtree;
    const bool parent_small = s.parent[K] != -1 && subtree_work[s.parent[K]] <= small_subtree;
    if (small && !parent_small) small_roots.push_back(K);
    if (!small) top.push_back(K);
  }
  std::sort(small_roots.begin(), small_roots.end(),
            [&](std::int32_t a, std::int32_t b) { return subtree_work[a] > subtree_work[b]; });
  double done = 0;
  {
    FirstError errors;
    std::atomic<double> finished{0};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (std::size_t r = 0; r < small_roots.size(); ++r) {
      if (errors.stopped()) continue;
      errors.run([&] {
        const std::int32_t root = small_roots[r];
        for (std::int32_t K = root - subtree_size[root] + 1; K <= root; ++K)
          detail::factor_supernode(s, K, out, in, inf, negative_below, 1,
                                   scratch[static_cast<std::size_t>(omp_get_thread_num())], f, updates);
        double seen = finished.load();
        while (!finished.compare_exchange_weak(seen, seen + subtree_work[root])) {
        }
        if (omp_get_thread_num() == 0) progress(std::min(1.0, finished.load() / total));
      });
    }
    errors.rethrow();
    done = finished.load();
  }
  for (const std::int32_t K : top) {
    detail::factor_supernode(s, K, out, in, inf, negative_below, threads, scratch[0], f, updates);
    done += work[K];
    progress(std::min(1.0, done / total));
  }
  progress(1.0);
  return f;
}

// Per-thread scratch of solve_rows: a gathered S_K (max_front entries) and a
// product row.
template <class D>
struct SolveScratch {
  std::vector<D> gathered, product;
};

// The distances from `count` sources (new-order ids) to every vertex, into
// x (count rows of s.n, new-order columns): x[b][j] = d(sources[b], j), or a
// value above inf / 2 (integer D) / +inf (real D) when unreachable. Rows are
// independent: any split of the sources into calls gives the same rows.
template <class D>
void solve_rows(const Symbolic& s, const Factor<D>& f, const std::int32_t* sources, std::int64_t count, D* x, D inf,
                SolveScratch<D>& scratch) {
  const std::int64_t n = s.n;
  scratch.gathered.resize(static_cast<std::size_t>(s.max_front));
  scratch.product.resize(static_cast<std::size_t>(s.max_front));
  D* g = scratch.gathered.data();
  D* y = scratch.product.data();
  for (std::int64_t b = 0; b < count; ++b) {
    D* row = x + b * n;
    std::fill(row, row + n, inf);
    row[sources[b]] = 0;
    for (std::int32_t K = s.supernode_of[sources[b]]; K != -1; K = s.parent[K]) {
      const std::int64_t k = s.columns(K), sk = s.structure_size(K);
      D* xk = row + s.first[K];
      const D* C = f.diag.data() + s.diag_offset[K];
      std::fill(y, y + k, inf);
      for (std::int64_t i = 0; i < k; ++i)
        if (is_distance(xk[i], inf)) detail::relax(y, C + i * k, xk[i], k);
      std::copy(y, y + k, xk);
      const std::int32_t* S = s.struct_idx.data() + s.struct_ptr[K];
      for (std::int64_t j = 0; j < sk; ++j) g[j] = row[S[j]];
      const D* U = f.upper.data() + s.panel_offset[K];
      for (std::int64_t i = 0; i < k; ++i)
        if (is_distance(xk[i], inf)) detail::relax(g, U + i * sk, xk[i], sk);
      for (std::int64_t j = 0; j < sk; ++j) row[S[j]] = g[j];
    }
  }
  for (std::int32_t K = s.count - 1; K >= 0; --K) {
    const std::int64_t k = s.columns(K), sk = s.structure_size(K);
    if (sk == 0) continue;
    const std::int32_t* S = s.struct_idx.data() + s.struct_ptr[K];
    const D* L = f.lower.data() + s.panel_offset[K];
    for (std::int64_t b = 0; b < count; ++b) {
      D* row = x + b * n;
      D* xk = row + s.first[K];
      for (std::int64_t i = 0; i < sk; ++i) {
        const D a = row[S[i]];
        if (is_distance(a, inf)) detail::relax(xk, L + i * k, a, k);
      }
    }
  }
}

}  // namespace apsp::supernodal
