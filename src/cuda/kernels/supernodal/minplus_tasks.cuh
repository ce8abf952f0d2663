// Grouped min-plus products for the supernodal factor and solve: one launch
// runs a list of independent products C min= A (x) B of different shapes
// (the fronts of one etree level, or the supernodes of one level for a batch
// of sources), each cut into kTileM x kTileN tiles of C, one thread block per
// tile. A's columns and C's columns may be gathered / scattered through an
// index list (the structure S_K of a supernode, for the rows X of the solve).
#pragma once

#include <cstdint>

#include "cuda/kernels/supernodal/arith.cuh"

namespace apsp::cuda::kernels::supernodal {

inline constexpr int kTileM = 64;     // rows of C per block
inline constexpr int kTileN = 64;     // columns of C per block
inline constexpr int kTileK = 16;     // inner indices per shared-memory stage
inline constexpr int kThreads = 256;  // 16 x 16 threads, 4 x 4 entries of C each
static_assert(kTileM == 4 * 16 && kTileN == 4 * 16 && kThreads == 16 * 16, "each thread holds 4 x 4 entries of C");
static_assert(kTileM * kTileK % kThreads == 0 && kTileK * kTileN % kThreads == 0, "whole loads per thread");

// One product C(r, c) = min(C(r, c), min_t A(r, t) + B(t, c)) for r < m,
// c < n, t < k, where
//   A(r, t) = a[r * lda + (a_cols ? a_cols[t] : t)]
//   B(t, c) = b[t * ldb + c]
//   C(r, c) = c[r * ldc + (c_cols ? c_cols[c] : c)]
// Its tiles are tile_begin .. tile_begin + ceil(m / kTileM) * tiles_n - 1 of
// the launch (row-major over the tile grid). C may overlap A or B (in-place
// panels and closures): every value read is a length of a real path, at
// least the final value, and min-plus with a closed block is idempotent, so
// reading a neighbour's updated value early only reaches the result sooner.
template <class D>
struct MinPlusTask {
  const D* a;
  const std::int32_t* a_cols;
  std::int64_t lda;
  const D* b;
  std::int64_t ldb;
  D* c;
  const std::int32_t* c_cols;
  std::int64_t ldc;
  std::int32_t m, n, k;
  std::int32_t tiles_n;
  std::int64_t tile_begin;
};

// Runs tasks[0 .. task_count - 1] (sorted by tile_begin, the first at 0),
// gridDim.x = their total tiles; rows of every task beyond row_limit are
// left alone (the solve's last, shorter batch). kAtomic: C is written with
// an atomic min (tasks of the launch whose scattered columns may coincide).
template <class D, bool kAtomic>
__global__ void __launch_bounds__(kThreads)
    minplus_tasks(const MinPlusTask<D>* __restrict__ tasks, int task_count, int row_limit) {
  using A = Arith<D>;
  __shared__ D a_tile[kTileK][kTileM + 1];  // a_tile[t][r], padded against bank conflicts on the store
  __shared__ D b_tile[kTileK][kTileN];

  const std::int64_t tile = blockIdx.x;
  int lo = 0, hi = task_count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (tasks[mid].tile_begin <= tile)
      lo = mid;
    else
      hi = mid - 1;
  }
  const MinPlusTask<D> task = tasks[lo];
  const int local = static_cast<int>(tile - task.tile_begin);
  const int row0 = local / task.tiles_n * kTileM;
  const int col0 = local % task.tiles_n * kTileN;
  const int m = min(task.m, row_limit);
  if (row0 >= m) return;  // the whole block: before any barrier

  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const D inf = A::infinity();
  D acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = inf;

  for (int k0 = 0; k0 < task.k; k0 += kTileK) {
#pragma unroll
    for (int q = 0; q < kTileM * kTileK / kThreads; ++q) {
      const int e = threadIdx.x + q * kThreads;
      const int r = e / kTileK, t = e % kTileK;
      D v = inf;
      if (row0 + r < m && k0 + t < task.k)
        v = task.a[std::int64_t{row0 + r} * task.lda + (task.a_cols ? task.a_cols[k0 + t] : k0 + t)];
      a_tile[t][r] = v;
    }
#pragma unroll
    for (int q = 0; q < kTileK * kTileN / kThreads; ++q) {
      const int e = threadIdx.x + q * kThreads;
      const int t = e / kTileN, c = e % kTileN;
      D v = inf;
      if (k0 + t < task.k && col0 + c < task.n) v = task.b[std::int64_t{k0 + t} * task.ldb + col0 + c];
      b_tile[t][c] = v;
    }
    __syncthreads();
#pragma unroll
    for (int t = 0; t < kTileK; ++t) {
      D a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = a_tile[t][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = b_tile[t][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = A::add_min(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + ty + 16 * i;
    if (r >= m) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int c = col0 + tx + 16 * j;
      if (c >= task.n) continue;
      D* at = task.c + std::int64_t{r} * task.ldc + (task.c_cols ? task.c_cols[c] : c);
      if constexpr (kAtomic) {
        if (acc[i][j] < inf) A::atomic_min(at, acc[i][j]);
      } else if (acc[i][j] < *at) {
        *at = acc[i][j];
      }
    }
  }
}

}  // namespace apsp::cuda::kernels::supernodal
