// fw-seq (the textbook triple loop) and fw-blocked (three-phase tiled
// Floyd-Warshall, OpenMP over tiles, register-blocked min-plus kernel).
//
// Memory: fw-blocked works in padded tile-major matrices (distances, and
// predecessors when asked for) and copies them out a few tile rows at a
// time, handing those back to the OS once copied, so the peak is the result
// plus about 4 MiB per matrix (plus the int64 working distances' extra width
// when sums could overflow int32). No hop-count matrix: see below.
//
// Predecessors: on a strict improvement pred[i][j] takes pred[k][j]. Each
// d[i][j] is then the weight of a walk ending in the edge pred[i][j] -> j,
// so at the end every link is tight (d[i][u] + w(u, j) == d[i][j]). The
// blocked schedule can still close zero-weight cycles of tight links in a
// row's chains; such rows are rebuilt as breadth-first trees over tight
// edges (core::repair_predecessor_rows), so every row is a tree.
//
// fw-blocked treats a missing edge as an edge of weight M = infinity<D>() and
// skips the per-element "is it infinite" test: with (n-1) * max|w| = X < M/2
// every real distance lies in [-X, X], every path through a missing edge
// weighs at least M - X > X, stored values never exceed M (so a sum of two
// fits in D), and a value above M/2 at the end means unreachable.
//
// Real weights (float, double) compute in their own type with +inf for a
// missing edge: +inf + w is +inf, so neither the bound above nor a test is
// needed, and the min/add kernels are vminps/vaddps (vminpd/vaddpd).
//
// Negative cycles: the diagonal is checked after every pivot of the diagonal
// tile and after every round. Up to the first negative diagonal entry every
// value is the length of a simple path, so values stay within [-4X, M] and
// the vertex named is on a negative cycle (for real weights: a diagonal entry
// below minus the rounding tolerance, negative_cycle_threshold): the pivot k whose diagonal-tile
// step made some d[v][v] < 0, or the vertex v outside the round's tile whose
// d[v][v] went negative in the round (the closed walk v -> k -> v meets v once
// and all its other cycles lie among vertices already checked).
// Real weights: entries below 0 but above that threshold that are left after
// the rounds are candidates that the one rule judges by the cycle's own
// edges (confirm_candidate_cycle, core/negative_cycle.hpp), so a small
// cycle is not hidden by a threshold that grows with n.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "core/dense_cells.hpp"
#include "core/negative_cycle.hpp"
#include "core/tight_edges.hpp"
#include "core/stages.hpp"
#include "core/super_rounds.hpp"
#include "cpu/backend.hpp"
#include "cpu/deliver.hpp"
#include "cpu/fw_tiles.hpp"

namespace apsp::cpu::detail {
namespace {

// c[i][j] = min(c[i][j], a + b[k][j]) for j < len, where a is the (i, k)
// entry of the left operand, read by the caller. Rows i of c and k of b must
// differ (restrict); the callers skip i == k, a no-op since d[k][k] = 0.
// With predecessors pc[j] = pb[j] on a strict improvement.
template <class D, bool kPred>
[[gnu::always_inline]] inline void relax_row(Block<D> c, std::int64_t row_i, Block<D> b, std::int64_t row_k, D a,
                                             std::int64_t len) {
  D* __restrict cd = c.d + row_i;
  const D* __restrict bd = b.d + row_k;
  if constexpr (kPred) {
    vertex_t* __restrict cp = c.p + row_i;
    const vertex_t* __restrict bp = b.p + row_k;
    for (std::int64_t j = 0; j < len; ++j) {
      const D s = a + bd[j];
      const bool better = s < cd[j];  // no branches: vectorises
      cd[j] = better ? s : cd[j];
      cp[j] = better ? bp[j] : cp[j];
    }
  } else {
    for (std::int64_t j = 0; j < len; ++j) {
      const D s = a + bd[j];
      cd[j] = s < cd[j] ? s : cd[j];
    }
  }
}

template <class D, bool kPred>
[[gnu::always_inline]] inline std::int64_t diagonal_body(Block<D> t, D negative_below) {
  for (std::int64_t k = 0; k < kTile; ++k) {
    for (std::int64_t i = 0; i < kTile; ++i)
      if (i != k) relax_row<D, kPred>(t, i * kTile, t, k * kTile, t.d[i * kTile + k], kTile);
    for (std::int64_t i = 0; i < kTile; ++i)
      if (t.d[i * kTile + i] < negative_below) return k;
  }
  return -1;
}

// Row panel: tile (r, c) relaxed through the finished diagonal tile, pivots in order.
template <class D, bool kPred>
[[gnu::always_inline]] inline void row_panel_body(Block<D> diag, Block<D> panel) {
  for (std::int64_t k = 0; k < kTile; ++k)
    for (std::int64_t i = 0; i < kTile; ++i)
      if (i != k) relax_row<D, kPred>(panel, i * kTile, panel, k * kTile, diag.d[i * kTile + k], kTile);
}

// Column panel: tile (c, r); each row is independent, pivots in order within it.
template <class D, bool kPred>
[[gnu::always_inline]] inline void column_panel_body(Block<D> diag, Block<D> panel) {
  for (std::int64_t i = 0; i < kTile; ++i)
    for (std::int64_t k = 0; k < kTile; ++k)
      relax_row<D, kPred>(panel, i * kTile, diag, k * kTile, panel.d[i * kTile + k], kTile);
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
// the tile. With predecessors each distance accumulator has a predecessor
// accumulator (int32 lanes, as many as D lanes) that takes the right
// operand's predecessor on a strict improvement, as in relax_row.
template <class D, bool kPred, int Bytes, int R, int W>
[[gnu::always_inline]] inline void update_body(Block<D> target, Block<D> left, Block<D> right) {
  using V = typename Lanes<D, Bytes>::vector;
  constexpr std::int64_t L = Lanes<D, Bytes>::count;
  constexpr int kPredBytes = static_cast<int>(4 * L);  // L int32 lanes
  using VP = typename Lanes<vertex_t, kPredBytes>::vector;
  static_assert(kTile % R == 0 && kTile % (W * L) == 0, "tile must split into register blocks");
  for (std::int64_t j0 = 0; j0 < kTile; j0 += W * L)
    for (std::int64_t i0 = 0; i0 < kTile; i0 += R) {
      V acc[R][W];
      [[maybe_unused]] VP acc_pred[R][W];
      for (int r = 0; r < R; ++r)
        for (int w = 0; w < W; ++w) {
          const std::int64_t at = (i0 + r) * kTile + j0 + w * L;
          load<D, Bytes>(acc[r][w], target.d + at);
          if constexpr (kPred) load<vertex_t, kPredBytes>(acc_pred[r][w], target.p + at);
        }
      for (std::int64_t k = 0; k < kTile; ++k) {
        V b[W];
        [[maybe_unused]] VP b_pred[W];
        for (int w = 0; w < W; ++w) {
          load<D, Bytes>(b[w], right.d + k * kTile + j0 + w * L);
          if constexpr (kPred) load<vertex_t, kPredBytes>(b_pred[w], right.p + k * kTile + j0 + w * L);
        }
        for (int r = 0; r < R; ++r) {
          const V a = V{} + left.d[(i0 + r) * kTile + k];
          for (int w = 0; w < W; ++w) {
            const V s = a + b[w];
            if constexpr (kPred && std::is_floating_point<D>::value) {
              // Real lanes: the comparison mask selects (vblendvps / vblendvpd,
              // or masked moves under AVX-512).
              const auto better = s < acc[r][w];
              const VP better_lanes = __builtin_convertvector(better, VP);
              acc[r][w] = better ? s : acc[r][w];
              acc_pred[r][w] = better_lanes ? b_pred[w] : acc_pred[r][w];
            } else if constexpr (kPred) {
              // One comparison and bitwise selects: GCC keeps these as single
              // vector instructions in these inlined templates.
              const V better = s < acc[r][w];
              const VP better_lanes = __builtin_convertvector(better, VP);
              acc[r][w] = (s & better) | (acc[r][w] & ~better);
              acc_pred[r][w] = (b_pred[w] & better_lanes) | (acc_pred[r][w] & ~better_lanes);
            } else {
              // For real lanes this is exactly vminps / vminpd's definition.
              acc[r][w] = s < acc[r][w] ? s : acc[r][w];
            }
          }
        }
      }
      for (int r = 0; r < R; ++r)
        for (int w = 0; w < W; ++w) {
          const std::int64_t at = (i0 + r) * kTile + j0 + w * L;
          store_vector<D, Bytes>(target.d + at, acc[r][w]);
          if constexpr (kPred) store_vector<vertex_t, kPredBytes>(target.p + at, acc_pred[r][w]);
        }
    }
}

// Returns, for the diagonal step, the pivot (within the tile) whose step made
// a diagonal entry negative, else -1.
template <class D, bool kPred, int Bytes, int R, int W>
[[gnu::always_inline]] inline std::int64_t step_body(const StepArgs<D>& s) {
  switch (s.step) {
    case Step::diagonal: return diagonal_body<D, kPred>(s.target, s.negative_below);
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
  return step_body < D, kPred, 64, 4, kPred ? 2 : 4 > (s);
}
template <class D, bool kPred>
__attribute__((target("avx2"))) std::int64_t step_avx2(const StepArgs<D>& s) {
  return step_body < D, kPred, 32, kPred ? 2 : 4, 2 > (s);
}
template <class D, bool kPred>
std::int64_t step_baseline(const StepArgs<D>& s) {
  return step_body < D, kPred, 16, kPred ? 2 : 4, 2 > (s);
}

template <class D, bool kPred>
StepFunction<D> pick_step() {
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

// An N x N working matrix in an anonymous mapping of its own, so that ranges
// of it can be handed back to the OS (the resident size drops) as soon as
// they have been copied out. Page-aligned, so tiles are cache-line aligned.
template <class T>
class WorkMatrix {
 public:
  WorkMatrix(std::int64_t side, const char* what) {
    if (side == 0) return;
    bytes_ = matrix_bytes(side, sizeof(T), what);
    cells_ = side * side;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw_out_of_memory(what, static_cast<std::int64_t>(bytes_));
    data_ = static_cast<T*>(p);
  }
  WorkMatrix(const WorkMatrix&) = delete;
  WorkMatrix& operator=(const WorkMatrix&) = delete;
  ~WorkMatrix() {
    if (data_) munmap(data_, bytes_);
  }

  T* data() const { return data_; }
  T& operator[](std::int64_t x) const { return data_[x]; }

  // Hands the pages wholly inside entries [first, first + count) (clipped to
  // the matrix) back to the OS; they read as zero afterwards. Best effort: if
  // madvise fails the pages stay resident until the destructor unmaps them.
  void release(std::int64_t first, std::int64_t count) {
    if (!data_ || first >= cells_) return;
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(data_ + first);
    const auto end = reinterpret_cast<std::uintptr_t>(data_ + std::min(first + count, cells_));
    const std::uintptr_t from = round_up(begin, page), to = end / page * page;
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  }

 private:
  T* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::int64_t cells_ = 0;
};

// Hands the n x n distances (and predecessors) to the sink as rows of the
// job's weight type W; `at(i, j)` is where entry (i, j) lives in `d` and `p`.
// Integer D: values above infinity<D>() / 2 are unreachable. Real D: +inf is.
// Row blocks are converted in parallel, straight into the sink's memory when
// it has some (deliver_rows). With `repair_edges` (the graph's CSR), each
// predecessor row whose chains loop (ties on zero-weight cycles in a blocked
// schedule) is rebuilt as a tight-edge tree, within `slack` for real
// weights, before it goes to the sink.
// Rows [first_row, first_row + row_count) only, with row_count >= 0.
template <class D, class W, class Offset>
void store(const BasicJob<W>& job, const D* d, const vertex_t* p, Offset at, const BasicCsr<W>* repair_edges,
           double slack, std::int64_t first_row = 0, std::int64_t row_count = -1) {
  const std::int64_t n = job.graph.n;
  deliver_rows(
      job, [&] { return core::PredecessorRepair(repair_edges ? n : 0); },
      [&](core::PredecessorRepair& repair, std::int64_t first, std::int64_t rows, W* dist, vertex_t* pred) {
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::int64_t i = first + r;
          for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t x = at(i, j);
            bool reachable;
            if constexpr (std::is_floating_point<D>::value)
              reachable = d[x] < infinity<D>();
            else
              reachable = d[x] <= infinity<D>() / 2;
            if (!reachable)
              dist[r * n + j] = kUnreachable<W>;
            else if (std::is_floating_point<D>::value && i == j)
              dist[r * n + j] = 0;  // rounding may leave it a little below 0 (see fw_seq_typed)
            else if constexpr (std::is_same<D, W>::value)
              dist[r * n + j] = d[x];
            else
              dist[r * n + j] = to_output(d[x], i, j);
            if (pred) pred[r * n + j] = reachable && i != j ? p[x] : -1;
          }
        }
        if (pred && repair_edges)
          for (std::int64_t r = 0; r < rows; ++r)
            repair.row(*repair_edges, dist + r * n, static_cast<vertex_t>(first + r), pred + r * n, slack);
      },
      /*report_progress=*/false, first_row, row_count);
}

// Bytes of the result rows a solve hands to the sink, for the store stage's rate.
template <class W>
std::uint64_t result_bytes(const BasicJob<W>& job) {
  const auto cells = static_cast<std::uint64_t>(job.graph.n) * static_cast<std::uint64_t>(job.graph.n);
  return cells * (sizeof(W) + (job.predecessors ? sizeof(vertex_t) : 0));
}

// Integer D: throws OverflowError when (n-1) * max|w| could exceed `bound`.
// Real D: nothing to check (a sum too large becomes +inf, i.e. unreachable,
// and is well defined).
template <class D, class W>
void check_dense_range(const BasicJob<W>& job, D bound) {
  if constexpr (std::is_integral<D>::value) {
    const std::int64_t hops = job.graph.n > 0 ? job.graph.n - 1 : 0;
    if (job.stats.max_abs > 0 && hops > bound / job.stats.max_abs)
      throw OverflowError("Floyd-Warshall on " + std::to_string(job.graph.n) + " vertices with |w| up to " +
                          std::to_string(job.stats.max_abs) + " could overflow int64");
  }
}

// The predecessor repair's slack: 0 for int32, the distances' rounding
// tolerance for real weights.
template <class W>
double repair_slack(const BasicJob<W>& job) {
  return negative_cycle_threshold(job);
}

// Real weights, after the rounds: a diagonal entry below 0 (but above the
// threshold, else the rounds threw) is a candidate negative cycle, which the
// one rule (core::vertex_on_negative_cycle, on the cycle's own edges, not n)
// confirms or dismisses as rounding. `diagonal(v)` reads entry (v, v).
template <class W, class Diagonal>
void confirm_candidate_cycle(const BasicJob<W>& job, const Diagonal& diagonal) {
  if constexpr (std::is_floating_point<W>::value) {
    bool candidate = false;
    for (std::int64_t v = 0; v < job.graph.n && !candidate; ++v) candidate = diagonal(v) < 0;
    if (!candidate) return;
    std::int64_t on_cycle = -1;
    if (job.dense) {
      // The view's graph in the solve's weight type W (the rule's unit
      // roundoff is W's); its edges stay sorted, so it stays normalized.
      BasicGraph<W> solved;
      std::visit(
          [&](const auto& g) {
            solved.n = g.n;
            solved.edges.reserve(g.edges.size());
            for (const auto& e : g.edges) solved.edges.push_back({e.src, e.dst, static_cast<W>(e.w)});
          },
          dense_to_graph(*job.dense));
      on_cycle = core::vertex_on_negative_cycle(to_csr(solved));
    } else
      on_cycle = core::vertex_on_negative_cycle(to_csr(job.graph));
    if (on_cycle >= 0) throw NegativeCycleError(on_cycle);
  } else {
    (void)job, (void)diagonal;
  }
}

template <class D, class W>
void fw_seq_typed(const BasicJob<W>& job) {
  StageClock clock(job.times);
  constexpr D inf = infinity<D>();
  check_dense_range(job, inf / 2);
  const D negative_below = static_cast<D>(-negative_cycle_threshold(job));
  const std::int64_t n = job.graph.n;
  // When D is the output type (int32, float, double) the working matrix is
  // the result itself: it is computed in the sink's memory when the sink has
  // some, and handed over without a copy.
  D* d = nullptr;
  vertex_t* p = nullptr;
  if constexpr (std::is_same<D, W>::value) {
    const RowTargets<W> targets(job);
    d = targets.dist;
    p = targets.pred;
  }
  const bool in_sink = d != nullptr;
  HostVector<D> own_d;
  HostVector<vertex_t> own_p;
  if (!in_sink && n > 0) {
    own_d = working_matrix<D>(n, "the working distance matrix");
    d = own_d.data();
    if (job.predecessors) {
      own_p = working_matrix<vertex_t>(n, "the working predecessor matrix");
      p = own_p.data();
    }
  }
  if (job.dense) {  // no predecessors (BasicJob::dense)
    core::fill_from_dense<D>(
        *job.dense, n, std::max<std::int64_t>(n, 1), [n](std::int64_t i, std::int64_t j) { return i * n + j; }, d, inf,
        job.threads);
  } else {
#pragma omp parallel for num_threads(job.threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      std::fill(d + i * n, d + (i + 1) * n, inf);
      d[i * n + i] = 0;
      if (p) std::fill(p + i * n, p + (i + 1) * n, -1);
    }
    for (const BasicEdge<W>& e : job.graph.edges) {
      d[e.src * n + e.dst] = e.w;
      if (p) p[e.src * n + e.dst] = e.src;
    }
  }
  clock.lap("initialize");
  // Progress (and so a caller's cancellation) about every 2^24 relaxations.
  const std::int64_t report_every =
      std::max<std::int64_t>(1, (std::int64_t{1} << 24) / std::max<std::int64_t>(1, n * n));
  for (std::int64_t k = 0; k < n; ++k) {
    const D* row_k = &d[k * n];
    for (std::int64_t i = 0; i < n; ++i) {
      const D dik = d[i * n + k];
      if (dik == inf) continue;
      D* row_i = &d[i * n];
      for (std::int64_t j = 0; j < n; ++j) {
        if (row_k[j] == inf || dik + row_k[j] >= row_i[j]) continue;
        row_i[j] = dik + row_k[j];
        if (p) p[i * n + j] = p[k * n + j];
      }
      if (row_i[i] < negative_below) throw NegativeCycleError(k);
    }
    if ((k + 1) % report_every == 0 || k + 1 == n) job.report(static_cast<double>(k + 1) / static_cast<double>(n));
  }
  confirm_candidate_cycle(job, [d, n](std::int64_t v) { return d[v * n + v]; });
  // Real weights: rounding may leave a diagonal entry a little below 0
  // (a cycle the rule judged not negative); the distance is 0 and the
  // source has no predecessor.
  if constexpr (std::is_floating_point<D>::value)
    for (std::int64_t i = 0; i < n; ++i) {
      d[i * n + i] = 0;
      if (p) p[i * n + i] = -1;
    }
  clock.lap("compute");
  // In the sink's memory, unreachable entries are kUnreachable<W> and pred -1
  // already (an entry changes only to a finite sum, and a diagonal one never
  // without a negative cycle): the rows only need handing over. With integer
  // weights fw-seq's predecessor rows are trees. With real ones, a cycle that
  // rounding alone makes negative can close a loop of links, so those rows
  // are rebuilt over tight edges (within the tolerance), as in fw-blocked.
  const bool repair = std::is_floating_point<W>::value && p != nullptr;
  const BasicCsr<W> repair_edges = repair ? to_csr(job.graph) : BasicCsr<W>{};
  if (in_sink)
    deliver_rows(
        job, [&] { return core::PredecessorRepair(repair ? n : 0); },
        [&](core::PredecessorRepair& repairer, std::int64_t first, std::int64_t rows, W* dist, vertex_t* pred) {
          if (repair)
            for (std::int64_t r = 0; r < rows; ++r)
              repairer.row(repair_edges, dist + r * n, static_cast<vertex_t>(first + r), pred + r * n,
                           repair_slack(job));
        },
        /*report_progress=*/false);
  else
    store<D>(
        job, d, p, [n](std::int64_t i, std::int64_t j) { return i * n + j; }, repair ? &repair_edges : nullptr,
        repair_slack(job));
  clock.lap("store", result_bytes(job));
}

// The out-of-core schedule (core/super_rounds.hpp) on fw-blocked's
// tile-major matrix: super-tile (I, J) is tiles (I*m .. I*m+m-1) x
// (J*m .. J*m+m-1), m = width / kTile. This is the host's model of the GPU
// executor (src/cuda/fw_out_of_core.cu): the same steps in the same order,
// each super-tile's product a loop over the m tile products of the pivot
// block. The panel steps read a copy of the panel they overwrite, as the
// GPU's do (the tile step takes no aliased operands).
template <class D, bool kPred>
class CpuSuperExecutor final : public core::SuperRoundExecutor {
 public:
  using BlockAt = std::function<Block<D>(std::int64_t, std::int64_t)>;
  CpuSuperExecutor(StepFunction<D> step, BlockAt block, std::int64_t m, std::int64_t tiles, D negative_below,
                   int threads, std::function<D(std::int64_t)> diagonal, std::function<void(double)> report)
      : step_(step),
        block_(std::move(block)),
        m_(m),
        tiles_(tiles),
        negative_below_(negative_below),
        threads_(threads),
        diagonal_(std::move(diagonal)),
        report_(std::move(report)),
        old_d_(static_cast<std::size_t>(m * m * kTileCells)),
        old_p_(kPred ? old_d_.size() : 0) {}

  void run(const core::SuperJob& job) override {
    using Super = core::SuperJob::Step;
    const std::int64_t k0 = job.round * m_, i0 = job.row * m_, j0 = job.col * m_;
    switch (job.step) {
      case Super::diagonal: close_diagonal(k0); break;
      case Super::row_panel:  // (K, J) <- D*(K, K) (x) old (K, J)
        save(i0, j0);
        products([&](std::int64_t a, std::int64_t c, std::int64_t b) {
          step_(StepArgs<D>{Step::update, block_(i0 + a, j0 + c), block_(k0 + a, k0 + b), old(b, c)});
        });
        break;
      case Super::column_panel:  // (I, K) <- old (I, K) (x) D*(K, K)
        save(i0, j0);
        products([&](std::int64_t a, std::int64_t c, std::int64_t b) {
          step_(StepArgs<D>{Step::update, block_(i0 + a, j0 + c), old(a, b), block_(k0 + b, k0 + c)});
        });
        break;
      case Super::update:  // (I, J) <- min((I, J), (I, K) (x) (K, J))
        products([&](std::int64_t a, std::int64_t c, std::int64_t b) {
          step_(StepArgs<D>{Step::update, block_(i0 + a, j0 + c), block_(i0 + a, k0 + b), block_(k0 + b, j0 + c)});
        });
        break;
    }
  }

  void end_round(std::int64_t round) override {
    for (std::int64_t v = 0; v < tiles_ * kTile; ++v)
      if (diagonal_(v) < negative_below_) throw NegativeCycleError(v);
    report_(static_cast<double>(round + 1) / static_cast<double>(tiles_ / m_));
  }

 private:
  // fw-blocked's rounds on the m x m tiles of the diagonal super-tile at tile k0.
  void close_diagonal(std::int64_t k0) {
    for (std::int64_t r = k0; r < k0 + m_; ++r) {
      blocked_round(step_, block_, k0, m_, r, negative_below_, threads_);
      // As fw-blocked after each round, within the super-tile.
      for (std::int64_t v = k0 * kTile; v < (k0 + m_) * kTile; ++v)
        if (diagonal_(v) < negative_below_) throw NegativeCycleError(v);
    }
  }

  // For every target tile (a, c) of a super-tile, in parallel, the m tile
  // products b = 0..m-1 of the pivot block in order.
  template <class Product>
  void products(const Product& product) {
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t x = 0; x < m_ * m_; ++x)
      for (std::int64_t b = 0; b < m_; ++b) product(x / m_, x % m_, b);
  }

  // Copies the super-tile at tiles (i0, j0) into old_d_ / old_p_.
  void save(std::int64_t i0, std::int64_t j0) {
    for (std::int64_t a = 0; a < m_; ++a)
      for (std::int64_t c = 0; c < m_; ++c) {
        const Block<D> from = block_(i0 + a, j0 + c), to = old(a, c);
        std::copy(from.d, from.d + kTileCells, to.d);
        if (kPred) std::copy(from.p, from.p + kTileCells, to.p);
      }
  }
  Block<D> old(std::int64_t a, std::int64_t c) {
    const std::int64_t start = (a * m_ + c) * kTileCells;
    return Block<D>{&old_d_[start], kPred ? &old_p_[start] : nullptr};
  }

  StepFunction<D> step_;
  BlockAt block_;
  std::int64_t m_, tiles_;
  D negative_below_;
  int threads_;
  std::function<D(std::int64_t)> diagonal_;
  std::function<void(double)> report_;
  std::vector<D> old_d_;
  std::vector<vertex_t> old_p_;
};

// fw-blocked; with super_width > 0 (a multiple of kTile), its rounds are the
// out-of-core schedule's super-rounds of that width instead (fw-ooc).
template <class D, bool kPred, class W>
void fw_blocked_typed(const BasicJob<W>& job, std::int64_t super_width = 0) {
  StageClock clock(job.times);
  constexpr D inf = infinity<D>();
  check_dense_range(job, inf / 2);
  const D negative_below = static_cast<D>(-negative_cycle_threshold(job));
  const auto step = pick_step<D, kPred>();
  const std::int64_t n = job.graph.n, N = round_up(n, super_width > 0 ? super_width : kTile), tiles = N / kTile;
  // The padded N x N working matrices, tile by tile: tile (R, C) is a
  // contiguous row-major kTile x kTile block at (R * tiles + C) * kTileCells,
  // so no tile row strides across a power-of-two distance (cache-set
  // conflicts), and tile row R (kTile rows of the matrix) is one contiguous
  // range. Padding vertices are isolated, so they change no distance.
  const std::int64_t tile_row_cells = tiles * kTileCells;
  const auto at = [tiles](std::int64_t i, std::int64_t j) {
    return ((i / kTile) * tiles + j / kTile) * kTileCells + (i % kTile) * kTile + j % kTile;
  };
  WorkMatrix<D> dist(N, "the working distance matrix");
  WorkMatrix<vertex_t> pred(kPred ? N : 0, "the working predecessor matrix");
  // Round checkpoints (a resumable file output) at the boundaries of the
  // tile rounds, or of fw-ooc's super-rounds: the working matrices as they
  // are, named by this solver's rounds, element types and padded size.
  RoundCheckpoints* checkpoints = job.sink.round_checkpoints();
  const std::int64_t rounds = super_width > 0 ? N / super_width : tiles;
  RoundState state;
  if (checkpoints != nullptr) {
    state.layout = (super_width > 0 ? "cpu fw-ooc super-rounds of " + std::to_string(super_width) : "cpu fw-blocked") +
                   " tiles " + std::to_string(kTile) + " N " + std::to_string(N) + " distance bytes " +
                   std::to_string(sizeof(D)) + (kPred ? " with predecessors" : "");
    state.rounds = rounds;
    const auto bytes = [N](std::size_t cell) { return static_cast<std::size_t>(N * N) * cell; };
    state.planes.push_back({dist.data(), bytes(sizeof(D))});
    if (kPred) state.planes.push_back({pred.data(), bytes(sizeof(vertex_t))});
  }
  const std::int64_t first_round = checkpoints != nullptr ? checkpoints->restore(state) : 0;
  if (first_round > 0) {
    job.report(static_cast<double>(first_round) / static_cast<double>(rounds));
  } else if (job.dense) {  // no predecessors (BasicJob::dense)
    core::fill_from_dense<D>(*job.dense, N, kTile, at, dist.data(), inf, job.threads);
  } else {
#pragma omp parallel for num_threads(job.threads) schedule(static)
    for (std::int64_t i = 0; i < N; ++i)
      for (std::int64_t col = 0; col < tiles; ++col) {
        const std::int64_t row_start = at(i, col * kTile);
        std::fill(&dist[row_start], &dist[row_start + kTile], inf);
        if (kPred) std::fill(&pred[row_start], &pred[row_start + kTile], static_cast<vertex_t>(i));
      }
    for (std::int64_t v = 0; v < N; ++v) dist[at(v, v)] = 0;
    for (const BasicEdge<W>& e : job.graph.edges) dist[at(e.src, e.dst)] = e.w;
  }
  clock.lap("initialize");

  auto block = [&](std::int64_t row, std::int64_t col) {
    const std::int64_t start = row * tile_row_cells + col * kTileCells;
    return Block<D>{&dist[start], kPred ? &pred[start] : nullptr};
  };
  if (super_width > 0) {
    CpuSuperExecutor<D, kPred> executor(
        step, block, super_width / kTile, tiles, negative_below, job.threads,
        [&](std::int64_t v) { return dist[at(v, v)]; }, [&](double fraction) { job.report(fraction); });
    core::RoundBoundary at_boundary;
    if (checkpoints != nullptr)
      at_boundary = [&](std::int64_t rounds_done, std::int64_t) {
        state.round = rounds_done;
        checkpoints->round_done(state);
      };
    core::run_super_rounds(executor, rounds, first_round, at_boundary);
  }
  for (std::int64_t r = first_round; r < tiles && super_width == 0; ++r) {
    blocked_round(step, block, 0, tiles, r, negative_below, job.threads);
    for (std::int64_t v = 0; v < N; ++v)
      if (dist[at(v, v)] < negative_below) throw NegativeCycleError(v);
    if (checkpoints != nullptr) {
      state.round = r + 1;
      checkpoints->round_done(state);
    }
    job.report(static_cast<double>(r + 1) / static_cast<double>(tiles));
  }
  confirm_candidate_cycle(job, [&](std::int64_t v) { return dist[at(v, v)]; });
  clock.lap("compute");
  job.precision = std::is_same<D, std::int64_t>::value ? Precision::int64 : Precision::int32;
  const BasicCsr<W> repair_edges = kPred ? to_csr(job.graph) : BasicCsr<W>{};
  // Stored in groups of whole tile rows, about kStoreGroupBytes of output
  // each, every group's working pages handed back before the next: the peak
  // is the result plus the working matrices that are left, never both whole.
  constexpr std::int64_t kStoreGroupBytes = std::int64_t{4} << 20;
  const std::int64_t tile_rows_per_group =
      std::max<std::int64_t>(1, kStoreGroupBytes / (kTile * std::max<std::int64_t>(n, 1) * std::int64_t{sizeof(W)}));
  for (std::int64_t r = 0; r < tiles; r += tile_rows_per_group) {
    const std::int64_t first_row = r * kTile, rows = std::min(tile_rows_per_group * kTile, n - first_row);
    if (rows > 0)
      store<D>(job, dist.data(), kPred ? pred.data() : nullptr, at, kPred ? &repair_edges : nullptr, repair_slack(job),
               first_row, rows);
    dist.release(r * tile_row_cells, tile_rows_per_group * tile_row_cells);
    pred.release(r * tile_row_cells, tile_rows_per_group * tile_row_cells);
  }
  clock.lap("store", result_bytes(job));
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
template StepFunction<float> tile_step<float, false>();
template StepFunction<float> tile_step<float, true>();
template StepFunction<double> tile_step<double, false>();
template StepFunction<double> tile_step<double, true>();

void fw_seq(const Job& job) {
  job.precision = job.int32_arithmetic ? Precision::int32 : Precision::int64;
  if (job.int32_arithmetic)
    fw_seq_typed<std::int32_t>(job);
  else
    fw_seq_typed<std::int64_t>(job);
}
void fw_seq(const JobF32& job) { fw_seq_typed<float>(job); }
void fw_seq(const JobF64& job) { fw_seq_typed<double>(job); }

void fw_blocked(const Job& job) {
  if (job.int32_arithmetic) {
    if (job.predecessors)
      fw_blocked_typed<std::int32_t, true>(job);
    else
      fw_blocked_typed<std::int32_t, false>(job);
  } else {
    if (job.predecessors)
      fw_blocked_typed<std::int64_t, true>(job);
    else
      fw_blocked_typed<std::int64_t, false>(job);
  }
}

// Real weights compute in their own type: +inf + w stays +inf, so no
// "missing edge as a large weight" bound is needed.
template <class W>
void fw_blocked_real(const BasicJob<W>& job) {
  if (job.predecessors)
    fw_blocked_typed<W, true>(job);
  else
    fw_blocked_typed<W, false>(job);
}
void fw_blocked(const JobF32& job) { fw_blocked_real(job); }
void fw_blocked(const JobF64& job) { fw_blocked_real(job); }

// fw-ooc on the host: two tiles per super-tile, so the standard cases
// (n up to 257) run up to three super-rounds with multi-tile products.
constexpr std::int64_t kHostSuperWidth = 2 * kTile;

template <class W>
void fw_out_of_core_typed(const BasicJob<W>& job) {
  if constexpr (std::is_floating_point<W>::value) {
    if (job.predecessors)
      fw_blocked_typed<W, true>(job, kHostSuperWidth);
    else
      fw_blocked_typed<W, false>(job, kHostSuperWidth);
  } else if (job.int32_arithmetic) {
    if (job.predecessors)
      fw_blocked_typed<std::int32_t, true>(job, kHostSuperWidth);
    else
      fw_blocked_typed<std::int32_t, false>(job, kHostSuperWidth);
  } else {
    if (job.predecessors)
      fw_blocked_typed<std::int64_t, true>(job, kHostSuperWidth);
    else
      fw_blocked_typed<std::int64_t, false>(job, kHostSuperWidth);
  }
}
void fw_out_of_core(const Job& job) { fw_out_of_core_typed(job); }
void fw_out_of_core(const JobF32& job) { fw_out_of_core_typed(job); }
void fw_out_of_core(const JobF64& job) { fw_out_of_core_typed(job); }

}  // namespace apsp::cpu::detail
