// Batched single-source shortest paths for APSP on sparse graphs ("sssp" and
// its ladder, docs/perf.md "Sparse graphs"). One thread block computes one
// source's row at a time and then takes the next source from a shared
// counter, so blocks stay resident and a slow source does not hold a wave.
//
// Per source, with weights >= 0 (the dispatcher reweights negative graphs):
//   dist[v]    tentative distance: shared memory when the row fits, else the
//              output row itself in global memory (L2);
//   queued     bitmap: v is in the next frontier (pushed once per round);
//   in_far     bitmap: v is in the far pile (pushed once until split);
//   frontier / next / far / kept: vertex queues in global scratch (n each).
// A round relaxes the out-edges of every frontier vertex with atomicMin; a
// strict improvement below the threshold pushes the head into the next
// frontier, one at or above it into the far pile (near-far). When the
// frontier is empty the far pile is split: entries below the old threshold
// are stale (scanned already at their current distance), those below
// min(far) + delta form the new frontier, the rest stay. The frontier
// variant has no threshold: every improvement joins the next frontier.
// Correctness does not depend on the order: every improved vertex is scanned
// again with its new distance, so the row ends at the fixpoint, the exact
// distances (int32: min(D, kInf): a sum reaching kInf is never offered, and
// the range check below reports such rows; float32 / float64: the fixpoint
// of the rounded sums, +inf where unreachable).
//
// Templated on the distance policy (traits.cuh), so each weight type has its
// own kernels and none branches per relaxation: sssp.cu instantiates the
// int32 kernels, sssp_real.cu the float32 and float64 ones.
#pragma once

#include <cooperative_groups.h>
#include <cuda/atomic>

#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>

#include "core/graph_probe.hpp"
#include "core/cuda_check.hpp"
#include "cuda/kernels/sparse/traits.cuh"
#include "core/cuda_memory.hpp"
#include "cuda/range_rule.hpp"
#include "cuda/sparse_rows.hpp"

namespace apsp::cuda::kernels {
namespace {

static_assert(SparseTraits<true>::kWarpDegree == core::kHeavyDegree &&
                  SparseTraits<false>::kWarpDegree == core::kHeavyDegree,
              "the probe of auto (core/graph_probe.hpp) counts heavy vertices as the kernel does");

namespace cg = cooperative_groups;

// The block's shared bookkeeping (the row and bitmaps are dynamic shared
// memory or global scratch).
template <class D>
struct SparseBlockState {
  unsigned long long source_index;
  int frontier_count;
  int next_count;
  int far_count;
  int kept_count;
  D far_min;
  D threshold;  // improvements below it join the frontier
};

// Appends v to queue[*count] with one atomicAdd per group of lanes that
// append together.
__device__ __forceinline__ void append(vertex_t* queue, int* count, vertex_t v) {
  const cg::coalesced_group group = cg::coalesced_threads();
  int base = 0;
  if (group.thread_rank() == 0) base = atomicAdd(count, static_cast<int>(group.size()));
  base = group.shfl(base, 0);
  queue[base + static_cast<int>(group.thread_rank())] = v;
}

// Sets bit v of `bits`; true when this call set it.
__device__ __forceinline__ bool claim(unsigned* bits, vertex_t v) {
  const unsigned bit = 1u << (v & 31);
  return (atomicOr(bits + (v >> 5), bit) & bit) == 0;
}

__device__ __forceinline__ void release(unsigned* bits, vertex_t v) { atomicAnd(bits + (v >> 5), ~(1u << (v & 31))); }

// A relaxed atomic load: other threads of the block may be lowering the
// entry with atomicMin at the same time (the row is the block's alone).
template <class D>
__device__ __forceinline__ D read(const D* at) {
  return ::cuda::atomic_ref<D, ::cuda::thread_scope_block>(*const_cast<D*>(at)).load(::cuda::std::memory_order_relaxed);
}

template <class D>
struct RowState {
  D* dist;
  unsigned* queued;
  unsigned* in_far;
  vertex_t* next;
  vertex_t* far;
  SparseBlockState<D>* st;
};

// Offers du + w(e) to the head of edge e.
template <class Policy, class D = typename Policy::dist_type>
__device__ __forceinline__ void relax_edge(const BasicDeviceCsr<D>& g, std::int64_t e, D du, D threshold,
                                           const RowState<D>& row) {
  const vertex_t v = g.col[e];
  const D candidate = du + g.weight[e];         // int32: both < 2^30, no overflow; real: >= +0.0
  if (candidate >= read(row.dist + v)) return;  // a stale read only costs the atomic below
  if (candidate >= Policy::atomic_min(row.dist + v, candidate)) return;
  if (candidate < threshold) {
    if (claim(row.queued, v)) append(row.next, &row.st->next_count, v);
  } else if (claim(row.in_far, v)) {
    append(row.far, &row.st->far_count, v);
  }
}

// Relaxes the out-edges of frontier[0 .. count). Every lane of a warp runs
// the same number of outer iterations, so the warp votes are complete.
// kGather: the light vertices' edges are dealt to the lanes in edge order
// (the k-th light edge of the warp to lane k mod 32), found by a binary
// search over the lanes' inclusive degree sums; else each lane walks its own
// vertex's edges.
template <class Policy, class Traits, bool kGather, class D = typename Policy::dist_type>
__device__ __forceinline__ void relax_frontier(const BasicDeviceCsr<D>& g, const vertex_t* frontier, int count,
                                               D threshold, const RowState<D>& row) {
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x) % Traits::kWarp;
  for (int base = static_cast<int>(threadIdx.x) - lane; base < count; base += Traits::kThreads) {
    const int i = base + lane;
    std::int64_t begin = 0, end = 0;
    D du = 0;
    if (i < count) {
      const vertex_t u = frontier[i];
      du = read(row.dist + u);
      begin = g.row_start[u];
      end = g.row_start[u + 1];
    }
    const bool heavy = end - begin >= Traits::kWarpDegree;
    for (unsigned heavy_lanes = __ballot_sync(kAll, heavy); heavy_lanes != 0; heavy_lanes &= heavy_lanes - 1) {
      const int leader = __ffs(heavy_lanes) - 1;
      const std::int64_t b = __shfl_sync(kAll, begin, leader), e = __shfl_sync(kAll, end, leader);
      const D d = __shfl_sync(kAll, du, leader);
      for (std::int64_t x = b + lane; x < e; x += Traits::kWarp) relax_edge<Policy>(g, x, d, threshold, row);
    }
    if constexpr (kGather) {
      static_assert(Traits::kWarp == 32, "the owner search below takes 5 halvings of 32 lanes");
      const int degree = heavy ? 0 : static_cast<int>(end - begin);  // 0 for lanes past the frontier too
      int inclusive = degree;
      for (int offset = 1; offset < Traits::kWarp; offset *= 2) {
        const int below = __shfl_up_sync(kAll, inclusive, offset);
        if (lane >= offset) inclusive += below;
      }
      const int total = __shfl_sync(kAll, inclusive, Traits::kWarp - 1);
      const int exclusive = inclusive - degree;
      for (int first = 0; first < total; first += Traits::kWarp) {
        const int k = first + lane;
        // The owner is the lowest lane whose inclusive sum exceeds k (for
        // k < total it exists; 5 halvings of 32 lanes).
        int lo = 0, hi = Traits::kWarp - 1;
        for (int step = 0; step < 5; ++step) {
          const int mid = (lo + hi) / 2;
          if (__shfl_sync(kAll, inclusive, mid) > k)
            hi = mid;
          else
            lo = mid + 1;
        }
        const std::int64_t owner_begin = __shfl_sync(kAll, begin, lo);
        const int owner_exclusive = __shfl_sync(kAll, exclusive, lo);
        const D owner_du = __shfl_sync(kAll, du, lo);
        if (k < total) relax_edge<Policy>(g, owner_begin + (k - owner_exclusive), owner_du, threshold, row);
      }
    } else {
      if (!heavy)
        for (std::int64_t x = begin; x < end; ++x) relax_edge<Policy>(g, x, du, threshold, row);
    }
    __syncwarp();
  }
}

// The minimum over lanes, then over warps into *target (atomicMin);
// Policy::kNoThreshold stands for "none".
template <class Policy, class D = typename Policy::dist_type>
__device__ __forceinline__ void block_min(D value, D* target) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = Policy::min(value, __shfl_down_sync(0xffffffffu, value, offset));
  if (threadIdx.x % 32 == 0 && value != Policy::kNoThreshold) Policy::atomic_min(target, value);
}

template <class Policy, SparseVariant kVariant, bool kSharedRow>
__global__ void __launch_bounds__(SparseTraits<kSharedRow>::kThreads)
    sparse_rows(BasicSparseRowsLaunch<typename Policy::dist_type> a) {
  using Traits = SparseTraits<kSharedRow>;
  using dist_type = typename Policy::dist_type;
  extern __shared__ __align__(
      16) unsigned char shared_bytes[];  // the row of D (8-byte aligned for double), then bitmaps
  __shared__ SparseBlockState<dist_type> st;
  const std::int64_t n = a.out.n;
  const std::int64_t words = sparse_bitmap_words(n);
  const int tid = static_cast<int>(threadIdx.x);
  vertex_t* const queues = a.queues + static_cast<std::int64_t>(blockIdx.x) * 4 * n;
  RowState<dist_type> row;
  if constexpr (kSharedRow) {
    row.dist = reinterpret_cast<dist_type*>(shared_bytes);
    row.queued = reinterpret_cast<unsigned*>(row.dist + n);
  } else {
    row.queued = a.bitmaps + static_cast<std::int64_t>(blockIdx.x) * 2 * words;
  }
  row.in_far = row.queued + words;
  row.st = &st;
  vertex_t* frontier = queues;
  row.next = queues + n;
  row.far = queues + 2 * n;
  vertex_t* kept = queues + 3 * n;

  for (;;) {
    if (tid == 0) st.source_index = atomicAdd(a.next_source, 1ull);
    __syncthreads();
    const auto k = static_cast<std::int64_t>(st.source_index);
    if (k >= a.sources) break;
    const auto source = static_cast<vertex_t>(a.first_source + k);
    dist_type* const out_row = a.dist + k * a.ld;
    if constexpr (!kSharedRow) row.dist = out_row;
    for (std::int64_t v = tid; v < n; v += Traits::kThreads) row.dist[v] = Policy::kInfinity;
    for (std::int64_t w = tid; w < 2 * words; w += Traits::kThreads) row.queued[w] = 0;  // queued and in_far
    __syncthreads();
    if (tid == 0) {
      row.dist[source] = 0;
      frontier[0] = source;
      st.frontier_count = 1;
      st.next_count = 0;
      st.far_count = 0;
      st.kept_count = 0;
      st.threshold = kVariant == SparseVariant::frontier ? Policy::kNoThreshold : a.delta;
    }
    for (;;) {
      // Near phase: rounds until the frontier is empty.
      for (;;) {
        __syncthreads();
        const int count = st.frontier_count;
        if (count == 0) break;
        relax_frontier<Policy, Traits, kVariant == SparseVariant::gather>(a.out, frontier, count, st.threshold, row);
        __syncthreads();
        const int next_count = st.next_count;
        // The next frontier's vertices may be pushed again from the next round on.
        for (int i = tid; i < next_count; i += Traits::kThreads) release(row.queued, row.next[i]);
        __syncthreads();
        if (tid == 0) {
          st.frontier_count = next_count;
          st.next_count = 0;
        }
        vertex_t* const done = frontier;
        frontier = row.next;
        row.next = done;
      }
      if constexpr (kVariant == SparseVariant::frontier) break;
      // Far phase: the live far entries' smallest distance sets the next threshold.
      if (tid == 0) st.far_min = Policy::kNoThreshold;
      __syncthreads();
      const int far_count = st.far_count;
      const dist_type old_threshold = st.threshold;
      dist_type smallest = Policy::kNoThreshold;
      for (int i = tid; i < far_count; i += Traits::kThreads) {
        const dist_type d = row.dist[row.far[i]];
        if (d >= old_threshold) smallest = Policy::min(smallest, d);
      }
      block_min<Policy>(smallest, &st.far_min);
      __syncthreads();
      const dist_type far_min = st.far_min;
      // Only stale entries: every vertex was scanned at its distance.
      if (far_min == Policy::kNoThreshold) break;
      const dist_type threshold = Policy::raise(far_min, a.delta);
      for (int i = tid; i < far_count; i += Traits::kThreads) {
        const vertex_t v = row.far[i];
        const dist_type d = row.dist[v];
        if (d < threshold) {
          release(row.in_far, v);
          if (d >= old_threshold) append(frontier, &st.frontier_count, v);
        } else {
          append(kept, &st.kept_count, v);
        }
      }
      __syncthreads();
      if (tid == 0) {
        st.far_count = st.kept_count;
        st.kept_count = 0;
        st.threshold = threshold;
      }
      vertex_t* const split = row.far;
      row.far = kept;
      kept = split;
    }
    __syncthreads();
    // The row is final. int32: its range check (range_rule.hpp) and the
    // copy out of shared memory; then the predecessors; real distances: then
    // the graph's distances into the output row.
    if constexpr (Policy::kRangeChecked) {
      const RangeView<dist_type> view{row.dist, n, 0, 0, Policy::kInfinity};
      bool escaped = false;
      for (std::int64_t v = tid; v < n; v += Traits::kThreads) {
        escaped = escaped || cell_escapes_range(view, a.out, a.max_weight, 0, v);
        if constexpr (kSharedRow) out_row[v] = row.dist[v];
      }
      if (escaped) *a.range_escaped = 1;
    }
    if (a.pred != nullptr) {
      // A tight in-edge that is no tie (Policy::beyond: positive weight,
      // or a larger distance) comes first: predecessors then only tie along
      // zero-weight edges (or ones rounding makes add nothing), and form a
      // tree unless those close a cycle (the launcher checks those rows).
      vertex_t* const pred_row = a.pred + k * a.ld;
      for (std::int64_t v = tid; v < n; v += Traits::kThreads) {
        const dist_type dv = row.dist[v];
        vertex_t tight = -1, tight_zero = -1;
        if (v != source && dv < Policy::kInfinity)
          for (std::int64_t e = a.in.row_start[v]; e < a.in.row_start[v + 1]; ++e) {
            const vertex_t u = a.in.col[e];
            const dist_type du = row.dist[u];
            if (du >= Policy::kInfinity || du + a.in.weight[e] != dv) continue;
            if (Policy::beyond(du, a.in.weight[e], dv)) {
              tight = u;
              break;
            }
            if (tight_zero < 0) tight_zero = u;
          }
        pred_row[v] = tight >= 0 ? tight : tight_zero;
      }
    }
    if constexpr (!Policy::kRangeChecked) {
      if (a.potentials != nullptr) {
        // In global memory the row is the output row, which the
        // predecessors above read across vertices: all done first.
        if constexpr (!kSharedRow) __syncthreads();
        const double h_source = a.potentials[source];
        for (std::int64_t v = tid; v < n; v += Traits::kThreads)
          out_row[v] = static_cast<dist_type>(static_cast<double>(row.dist[v]) + a.potentials[v] - h_source);
      } else if constexpr (kSharedRow) {
        for (std::int64_t v = tid; v < n; v += Traits::kThreads) out_row[v] = row.dist[v];
      }
    }
    __syncthreads();
  }
}

template <class D, SparseVariant kVariant, bool kSharedRow>
void launch(const BasicSparseRowsLaunch<D>& a, cudaStream_t stream) {
  using Traits = SparseTraits<kSharedRow>;
  using Policy = typename SparsePolicyOf<D>::type;
  const std::size_t shared = kSharedRow ? sparse_shared_bytes<D>(a.out.n) : 0;
  if (kSharedRow)
    APSP_CUDA_CHECK(cudaFuncSetAttribute(sparse_rows<Policy, kVariant, kSharedRow>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  sparse_rows<Policy, kVariant, kSharedRow><<<a.blocks, Traits::kThreads, shared, stream>>>(a);
  APSP_CUDA_CHECK_LAUNCH("sparse_rows");
}

template <class D, SparseVariant kVariant, bool kSharedRow>
int resident(std::int64_t n) {
  using Traits = SparseTraits<kSharedRow>;
  using Policy = typename SparsePolicyOf<D>::type;
  const std::size_t shared = kSharedRow ? sparse_shared_bytes<D>(n) : 0;
  if (kSharedRow)
    APSP_CUDA_CHECK(cudaFuncSetAttribute(sparse_rows<Policy, kVariant, kSharedRow>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  int per_sm = 0;
  APSP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sparse_rows<Policy, kVariant, kSharedRow>,
                                                                Traits::kThreads, shared));
  int device = 0, sms = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max(1, per_sm) * sms;
}

}  // namespace
}  // namespace apsp::cuda::kernels

namespace apsp::cuda {

template <class D>
bool sparse_shared_row_fits(std::int64_t n) {
  int device = 0, optin = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // The static SparseBlockState takes a few bytes of the same budget.
  return sparse_shared_bytes<D>(n) + sizeof(kernels::SparseBlockState<D>) <= static_cast<std::size_t>(optin);
}

template <class D>
int sparse_resident_blocks(SparseVariant variant, bool shared_row, std::int64_t n) {
  switch (variant) {
    case SparseVariant::frontier:
      return shared_row ? kernels::resident<D, SparseVariant::frontier, true>(n)
                        : kernels::resident<D, SparseVariant::frontier, false>(n);
    case SparseVariant::near_far:
      return shared_row ? kernels::resident<D, SparseVariant::near_far, true>(n)
                        : kernels::resident<D, SparseVariant::near_far, false>(n);
    case SparseVariant::gather:
      return shared_row ? kernels::resident<D, SparseVariant::gather, true>(n)
                        : kernels::resident<D, SparseVariant::gather, false>(n);
  }
  throw UsageError("unknown SparseVariant " + std::to_string(static_cast<int>(variant)));
}

template <class D>
void launch_sparse_rows(const BasicSparseRowsLaunch<D>& a, cudaStream_t stream) {
  if (a.sources <= 0) return;
  // int32 rows need the range flag and no potentials; real ones a positive delta.
  constexpr bool kInt = std::is_integral<D>::value;
  const bool bad_delta = kInt ? a.delta < 1 : !(a.delta > 0);
  if (a.out.n < 1 || a.ld < a.out.n || a.blocks < 1 || bad_delta || a.queues == nullptr || a.next_source == nullptr ||
      (kInt && (a.range_escaped == nullptr || a.potentials != nullptr)) || (!a.shared_row && a.bitmaps == nullptr) ||
      (a.pred != nullptr && a.in.row_start == nullptr))
    throw UsageError("launch_sparse_rows: incomplete launch description for " + std::to_string(a.out.n) + " vertices");
  APSP_CUDA_CHECK(cudaMemsetAsync(a.next_source, 0, sizeof(unsigned long long), stream));
  switch (a.variant) {
    case SparseVariant::frontier:
      return a.shared_row ? kernels::launch<D, SparseVariant::frontier, true>(a, stream)
                          : kernels::launch<D, SparseVariant::frontier, false>(a, stream);
    case SparseVariant::near_far:
      return a.shared_row ? kernels::launch<D, SparseVariant::near_far, true>(a, stream)
                          : kernels::launch<D, SparseVariant::near_far, false>(a, stream);
    case SparseVariant::gather:
      return a.shared_row ? kernels::launch<D, SparseVariant::gather, true>(a, stream)
                          : kernels::launch<D, SparseVariant::gather, false>(a, stream);
  }
  throw UsageError("launch_sparse_rows: unknown SparseVariant " + std::to_string(static_cast<int>(a.variant)));
}

// The entry points for distance type D, instantiated once per type (sssp.cu, sssp_real.cu).
#define APSP_SPARSE_ROWS_INSTANTIATE(D)                                      \
  template bool sparse_shared_row_fits<D>(std::int64_t);                     \
  template int sparse_resident_blocks<D>(SparseVariant, bool, std::int64_t); \
  template void launch_sparse_rows<D>(const BasicSparseRowsLaunch<D>&, cudaStream_t);

}  // namespace apsp::cuda
