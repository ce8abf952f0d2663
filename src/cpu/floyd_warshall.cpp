// fw-seq (the textbook triple loop) and fw-blocked (three-phase tiled
// Floyd-Warshall, OpenMP over tiles, register-blocked min-plus kernel).
//
// fw-blocked treats a missing edge as an edge of weight M = infinity<D>() and
// skips the per-element "is it infinite" test: with (n-1) * max|w| = X < M/2
// every real distance lies in [-X, X], every path through a missing edge
// weighs at least M - X > X, stored values never exceed M (so a sum of two
// fits in D), and a value above M/2 at the end means unreachable.
//
// Negative cycles: the diagonal is checked after every pivot of the diagonal
// tile and after every round. Up to the first negative diagonal entry every
// value is the length of a simple path, so values stay within [-4X, M] and
// the vertex named is on a negative cycle: the pivot k whose diagonal-tile
// step made some d[v][v] < 0, or the vertex v outside the round's tile whose
// d[v][v] went negative in the round (the closed walk v -> k -> v meets v once
// and all its other cycles lie among vertices already checked).
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>

#include "apsp/error.hpp"
#include "cpu/backend.hpp"
#include "cpu/fw_tiles.hpp"

namespace apsp::cpu::detail {
namespace {

// c[i][j] = min(c[i][j], a + b[k][j]) for j < len, where a is the (i, k)
// entry of the left operand, read by the caller. Rows i of c and k of b must
// differ (restrict); the callers skip i == k, a no-op since d[k][k] = 0.
//
// With predecessors the order is lexicographic on (distance, hops) and
// pc[j] = pb[j] on improvement. Ordering by distance alone lets the blocked
// schedule (which relaxes through panel values later than the sequential
// order would) close zero-weight cycles in the predecessor chains; with hops
// every predecessor edge (u, j) of the final matrix has hops[i][u] + 1 =
// hops[i][j], so the chains cannot cycle.
template <class D, bool kPred>
[[gnu::always_inline]] inline void relax_row(Block<D> c, std::int64_t row_i, Block<D> b, std::int64_t row_k,
                                             D a, std::int32_t ha, std::int64_t len) {
  D* __restrict cd = c.d + row_i;
  const D* __restrict bd = b.d + row_k;
  if constexpr (kPred) {
    vertex_t* __restrict cp = c.p + row_i;
    std::int32_t* __restrict ch = c.h + row_i;
    const vertex_t* __restrict bp = b.p + row_k;
    const std::int32_t* __restrict bh = b.h + row_k;
    for (std::int64_t j = 0; j < len; ++j) {
      const D s = a + bd[j];
      const std::int32_t hops = ha + bh[j];
      const bool better = (s < cd[j]) | ((s == cd[j]) & (hops < ch[j]));  // no branches: vectorises
      cd[j] = better ? s : cd[j];
      ch[j] = better ? hops : ch[j];
      cp[j] = better ? bp[j] : cp[j];
    }
  } else {
    for (std::int64_t j = 0; j < len; ++j) {
      const D s = a + bd[j];
      cd[j] = s < cd[j] ? s : cd[j];
    }
  }
}

// The hop count of entry x of a block (0 without predecessors).
template <class D, bool kPred>
std::int32_t hops_at(Block<D> b, std::int64_t x) {
  if constexpr (kPred) return b.h[x]; else return 0;
}

template <class D, bool kPred>
[[gnu::always_inline]] inline std::int64_t diagonal_body(Block<D> t) {
  for (std::int64_t k = 0; k < kTile; ++k) {
    for (std::int64_t i = 0; i < kTile; ++i)
      if (i != k)
        relax_row<D, kPred>(t, i * kTile, t, k * kTile, t.d[i * kTile + k], hops_at<D, kPred>(t, i * kTile + k),
                            kTile);
    for (std::int64_t i = 0; i < kTile; ++i)
      if (t.d[i * kTile + i] < 0) return k;
  }
  return -1;
}

// Row panel: tile (r, c) relaxed through the finished diagonal tile, pivots in order.
template <class D, bool kPred>
[[gnu::always_inline]] inline void row_panel_body(Block<D> diag, Block<D> panel) {
  for (std::int64_t k = 0; k < kTile; ++k)
    for (std::int64_t i = 0; i < kTile; ++i)
      if (i != k)
        relax_row<D, kPred>(panel, i * kTile, panel, k * kTile, diag.d[i * kTile + k],
                            hops_at<D, kPred>(diag, i * kTile + k), kTile);
}

// Column panel: tile (c, r); each row is independent, pivots in order within it.
template <class D, bool kPred>
[[gnu::always_inline]] inline void column_panel_body(Block<D> diag, Block<D> panel) {
  for (std::int64_t i = 0; i < kTile; ++i)
    for (std::int64_t k = 0; k < kTile; ++k)
      relax_row<D, kPred>(panel, i * kTile, diag, k * kTile, panel.d[i * kTile + k],
                          hops_at<D, kPred>(panel, i * kTile + k), kTile);
}

// GCC vector extensions: one SIMD register of `Bytes` bytes holding D lanes.
template <class D, int Bytes>
struct Lanes {
  typedef D vector __attribute__((vector_size(Bytes)));
  typedef D unaligned __attribute__((vector_size(Bytes), aligned(alignof(D))));
  static constexpr std::int64_t count = Bytes / sizeof(D);
};

// Loads / stores one SIMD vector from / to memory aligned only to its lanes.
// (By reference: vectors passed or returned by value trip -Wpsabi.)
template <class D, int Bytes>
[[gnu::always_inline]] inline void load(typename Lanes<D, Bytes>::vector& to, const D* from) {
  to = *reinterpret_cast<const typename Lanes<D, Bytes>::unaligned*>(from);
}
template <class D, int Bytes>
[[gnu::always_inline]] inline void store_vector(D* to, const typename Lanes<D, Bytes>::vector& v) {
  *reinterpret_cast<typename Lanes<D, Bytes>::unaligned*>(to) = v;
}

// target = min(target, left (x) right) in the min-plus semiring, R rows x W
// vectors of `Bytes` bytes of accumulators kept in registers while k runs over
// the tile. With predecessors the accumulators are (distance, hops,
// predecessor) triples ordered by (distance, hops), as in relax_row.
template <class D, bool kPred, int Bytes, int R, int W>
[[gnu::always_inline]] inline void update_body(Block<D> target, Block<D> left, Block<D> right) {
  using V = typename Lanes<D, Bytes>::vector;
  constexpr std::int64_t L = Lanes<D, Bytes>::count;
  constexpr int kHopBytes = static_cast<int>(4 * L);  // L int32 lanes
  using VI = typename Lanes<std::int32_t, kHopBytes>::vector;
  constexpr D kMaxHops = std::numeric_limits<std::int32_t>::max();
  static_assert(kTile % R == 0 && kTile % (W * L) == 0, "tile must split into register blocks");
  for (std::int64_t j0 = 0; j0 < kTile; j0 += W * L)
    for (std::int64_t i0 = 0; i0 < kTile; i0 += R) {
      V acc[R][W];
      [[maybe_unused]] VI acc_hops[R][W], acc_pred[R][W];
      for (int r = 0; r < R; ++r)
        for (int w = 0; w < W; ++w) {
          const std::int64_t at = (i0 + r) * kTile + j0 + w * L;
          load<D, Bytes>(acc[r][w], target.d + at);
          if constexpr (kPred) {
            load<std::int32_t, kHopBytes>(acc_hops[r][w], target.h + at);
            load<vertex_t, kHopBytes>(acc_pred[r][w], target.p + at);
          }
        }
      for (std::int64_t k = 0; k < kTile; ++k) {
        V b[W];
        [[maybe_unused]] VI b_hops[W], b_pred[W];
        for (int w = 0; w < W; ++w) {
          load<D, Bytes>(b[w], right.d + k * kTile + j0 + w * L);
          if constexpr (kPred) {
            load<std::int32_t, kHopBytes>(b_hops[w], right.h + k * kTile + j0 + w * L);
            load<vertex_t, kHopBytes>(b_pred[w], right.p + k * kTile + j0 + w * L);
          }
        }
        for (int r = 0; r < R; ++r) {
          const V a = V{} + left.d[(i0 + r) * kTile + k];
          if constexpr (kPred) {
            const VI a_hops = VI{} + left.h[(i0 + r) * kTile + k];
            for (int w = 0; w < W; ++w) {
              const V s = a + b[w];
              const VI hops = a_hops + b_hops[w];
              // (s, hops) < (acc, acc_hops) as one comparison: GCC lowers
              // masks combined with | and & lane by lane in these inlined
              // templates, but keeps single comparisons and bitwise selects.
              const V hops_wide = __builtin_convertvector(hops, V);
              const V tie_break = s == acc[r][w] ? hops_wide : (s < acc[r][w] ? V{} - 1 : V{} + kMaxHops);
              const V better = tie_break < __builtin_convertvector(acc_hops[r][w], V);
              const VI better_lanes = __builtin_convertvector(better, VI);
              acc[r][w] = (s & better) | (acc[r][w] & ~better);
              acc_hops[r][w] = (hops & better_lanes) | (acc_hops[r][w] & ~better_lanes);
              acc_pred[r][w] = (b_pred[w] & better_lanes) | (acc_pred[r][w] & ~better_lanes);
            }
          } else {
            for (int w = 0; w < W; ++w) {
              const V s = a + b[w];
              acc[r][w] = s < acc[r][w] ? s : acc[r][w];
            }
          }
        }
      }
      for (int r = 0; r < R; ++r)
        for (int w = 0; w < W; ++w) {
          const std::int64_t at = (i0 + r) * kTile + j0 + w * L;
          store_vector<D, Bytes>(target.d + at, acc[r][w]);
          if constexpr (kPred) {
            store_vector<std::int32_t, kHopBytes>(target.h + at, acc_hops[r][w]);
            store_vector<vertex_t, kHopBytes>(target.p + at, acc_pred[r][w]);
          }
        }
    }
}

template <class D, bool kPred, int Bytes, int R, int W>
[[gnu::always_inline]] inline std::int64_t step_body(const StepArgs<D>& s) {
  switch (s.step) {
    case Step::diagonal: return diagonal_body<D, kPred>(s.target);
    case Step::row_panel: row_panel_body<D, kPred>(s.left, s.target); return -1;
    case Step::column_panel: column_panel_body<D, kPred>(s.right, s.target); return -1;
    case Step::update: update_body<D, kPred, Bytes, R, W>(s.target, s.left, s.right); return -1;
  }
  return -1;
}

// The same code compiled for three instruction sets (CI builds without
// -march=native). The best one the running CPU supports is used, unless the
// environment variable APSP_CPU_ISA names another (avx512, avx2, baseline):
// for benchmarking the variants and testing them on one machine.
template <class D, bool kPred>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) std::int64_t step_avx512(const StepArgs<D>& s) {
  return step_body<D, kPred, 64, kPred ? 2 : 4, kPred ? 2 : 4>(s);
}
template <class D, bool kPred>
__attribute__((target("avx2"))) std::int64_t step_avx2(const StepArgs<D>& s) {
  return step_body<D, kPred, 32, kPred ? 1 : 4, 2>(s);
}
template <class D, bool kPred>
std::int64_t step_baseline(const StepArgs<D>& s) {
  return step_body<D, kPred, 16, kPred ? 1 : 4, 2>(s);
}

template <class D, bool kPred>
auto pick_step() -> std::int64_t (*)(const StepArgs<D>&) {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  const bool avx2 = __builtin_cpu_supports("avx2");
  const char* forced = std::getenv("APSP_CPU_ISA");
  const std::string isa = forced && *forced ? forced : avx512 ? "avx512" : avx2 ? "avx2" : "baseline";
  if (isa == "avx512" && avx512) return step_avx512<D, kPred>;
  if (isa == "avx2" && avx2) return step_avx2<D, kPred>;
  if (isa == "baseline") return step_baseline<D, kPred>;
  if (isa == "avx512" || isa == "avx2") throw UsageError("APSP_CPU_ISA=" + isa + ", but this CPU does not support it");
  throw UsageError("APSP_CPU_ISA='" + isa + "' is not one of avx512, avx2, baseline");
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

template <class T>
std::unique_ptr<T[], FreeDeleter> aligned_matrix(std::int64_t side, const char* what) {
  const std::size_t bytes = matrix_bytes(side, sizeof(T), what);
  void* p = std::aligned_alloc(64, std::max<std::size_t>(64, (bytes + 63) / 64 * 64));
  if (!p) throw_out_of_memory(what, static_cast<std::int64_t>(bytes));
  return std::unique_ptr<T[], FreeDeleter>(static_cast<T*>(p));
}

// Copies the n x n distances (and predecessors) to the int32 output; `at(i, j)`
// is where entry (i, j) lives in `d` and `p`. Values above infinity<D>() / 2
// are unreachable.
template <class D, class Offset>
void store(const Job& job, const D* d, const vertex_t* p, Offset at, SolveResult& out) {
  const std::int64_t n = job.graph.n;
  out.dist = square_matrix<dist_t>(n, kInf, "the distance matrix");
  if (job.predecessors) out.pred = square_matrix<vertex_t>(n, -1, "the predecessor matrix");
  constexpr D unreachable_above = infinity<D>() / 2;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t x = at(i, j);
      if (d[x] > unreachable_above) continue;
      out.dist[i * n + j] = std::is_same<D, dist_t>::value ? static_cast<dist_t>(d[x]) : to_output(d[x], i, j);
      if (p && i != j) out.pred[i * n + j] = p[x];
    }
}

void check_dense_range(const Job& job, std::int64_t bound) {
  const std::int64_t hops = job.graph.n > 0 ? job.graph.n - 1 : 0;
  if (job.stats.max_abs > 0 && hops > bound / job.stats.max_abs)
    throw OverflowError("Floyd-Warshall on " + std::to_string(job.graph.n) + " vertices with |w| up to " +
                        std::to_string(job.stats.max_abs) + " could overflow int64");
}

template <class D>
void fw_seq_typed(const Job& job, SolveResult& out) {
  constexpr D inf = infinity<D>();
  check_dense_range(job, inf / 2);
  const std::int64_t n = job.graph.n;
  std::vector<D> d = square_matrix<D>(n, inf, "the working distance matrix");
  std::vector<vertex_t> p;
  if (job.predecessors) p = square_matrix<vertex_t>(n, -1, "the working predecessor matrix");
  for (std::int64_t i = 0; i < n; ++i) d[i * n + i] = 0;
  for (const Edge& e : job.graph.edges) {
    d[e.src * n + e.dst] = e.w;
    if (job.predecessors) p[e.src * n + e.dst] = e.src;
  }
  for (std::int64_t k = 0; k < n; ++k) {
    const D* row_k = &d[k * n];
    for (std::int64_t i = 0; i < n; ++i) {
      const D dik = d[i * n + k];
      if (dik == inf) continue;
      D* row_i = &d[i * n];
      for (std::int64_t j = 0; j < n; ++j) {
        if (row_k[j] == inf || dik + row_k[j] >= row_i[j]) continue;
        row_i[j] = dik + row_k[j];
        if (job.predecessors) p[i * n + j] = p[k * n + j];
      }
      if (row_i[i] < 0) throw NegativeCycleError(k);
    }
    if ((k & 255) == 255 || k + 1 == n) job.report(static_cast<double>(k + 1) / static_cast<double>(n));
  }
  store<D>(job, d.data(), job.predecessors ? p.data() : nullptr,
           [n](std::int64_t i, std::int64_t j) { return i * n + j; }, out);
}

template <class D, bool kPred>
void fw_blocked_typed(const Job& job, SolveResult& out) {
  constexpr D inf = infinity<D>();
  check_dense_range(job, inf / 2);
  const auto step = pick_step<D, kPred>();
  const std::int64_t N = (job.graph.n + kTile - 1) / kTile * kTile, tiles = N / kTile;
  // The padded N x N working matrices, tile by tile: tile (R, C) is a
  // contiguous row-major kTile x kTile block at (R * tiles + C) * kTile^2, so
  // no tile row strides across a power-of-two distance (cache-set conflicts).
  // Padding vertices are isolated, so they change no distance.
  constexpr std::int64_t kTileCells = kTile * kTile;
  const auto at = [tiles](std::int64_t i, std::int64_t j) {
    return ((i / kTile) * tiles + j / kTile) * kTileCells + (i % kTile) * kTile + j % kTile;
  };
  const auto dist = aligned_matrix<D>(N, "the working distance matrix");
  std::unique_ptr<vertex_t[], FreeDeleter> pred;
  std::unique_ptr<std::int32_t[], FreeDeleter> hops;
  if (kPred) {
    pred = aligned_matrix<vertex_t>(N, "the working predecessor matrix");
    hops = aligned_matrix<std::int32_t>(N, "the working hop-count matrix");
  }
#pragma omp parallel for num_threads(job.threads) schedule(static)
  for (std::int64_t i = 0; i < N; ++i)
    for (std::int64_t col = 0; col < tiles; ++col) {
      const std::int64_t row_start = at(i, col * kTile);
      std::fill(&dist[row_start], &dist[row_start + kTile], inf);
      if (kPred) {
        std::fill(&pred[row_start], &pred[row_start + kTile], static_cast<vertex_t>(i));
        std::fill(&hops[row_start], &hops[row_start + kTile], 1);
      }
    }
  for (std::int64_t v = 0; v < N; ++v) {
    dist[at(v, v)] = 0;
    if (kPred) hops[at(v, v)] = 0;
  }
  for (const Edge& e : job.graph.edges) dist[at(e.src, e.dst)] = e.w;

  auto block = [&](std::int64_t row, std::int64_t col) {
    const std::int64_t start = (row * tiles + col) * kTileCells;
    return Block<D>{&dist[start], kPred ? &pred[start] : nullptr, kPred ? &hops[start] : nullptr};
  };
  for (std::int64_t r = 0; r < tiles; ++r) {
    const Block<D> diag = block(r, r);
    const std::int64_t pivot = step(StepArgs<D>{Step::diagonal, diag, diag, diag});
    if (pivot >= 0) throw NegativeCycleError(r * kTile + pivot);
    const std::int64_t others = tiles - 1;
#pragma omp parallel num_threads(job.threads)
    {
#pragma omp for schedule(static)
      for (std::int64_t x = 0; x < 2 * others; ++x) {
        const std::int64_t c = x / 2 < r ? x / 2 : x / 2 + 1;
        if (x % 2 == 0)
          step(StepArgs<D>{Step::row_panel, block(r, c), diag, diag});
        else
          step(StepArgs<D>{Step::column_panel, block(c, r), diag, diag});
      }
#pragma omp for schedule(static)
      for (std::int64_t x = 0; x < others * others; ++x) {
        const std::int64_t a = x / others < r ? x / others : x / others + 1;
        const std::int64_t c = x % others < r ? x % others : x % others + 1;
        step(StepArgs<D>{Step::update, block(a, c), block(a, r), block(r, c)});
      }
    }
    for (std::int64_t v = 0; v < N; ++v)
      if (dist[at(v, v)] < 0) throw NegativeCycleError(v);
    job.report(static_cast<double>(r + 1) / static_cast<double>(tiles));
  }
  store<D>(job, dist.get(), kPred ? pred.get() : nullptr, at, out);
}

}  // namespace

template <class D, bool kPred>
StepFunction<D> tile_step() {
  return pick_step<D, kPred>();
}
template StepFunction<std::int32_t> tile_step<std::int32_t, false>();
template StepFunction<std::int32_t> tile_step<std::int32_t, true>();
template StepFunction<std::int64_t> tile_step<std::int64_t, false>();
template StepFunction<std::int64_t> tile_step<std::int64_t, true>();

void fw_seq(const Job& job, SolveResult& out) {
  if (job.int32_arithmetic)
    fw_seq_typed<std::int32_t>(job, out);
  else
    fw_seq_typed<std::int64_t>(job, out);
}

void fw_blocked(const Job& job, SolveResult& out) {
  if (job.int32_arithmetic) {
    if (job.predecessors)
      fw_blocked_typed<std::int32_t, true>(job, out);
    else
      fw_blocked_typed<std::int32_t, false>(job, out);
  } else {
    if (job.predecessors)
      fw_blocked_typed<std::int64_t, true>(job, out);
    else
      fw_blocked_typed<std::int64_t, false>(job, out);
  }
}

}  // namespace apsp::cpu::detail
