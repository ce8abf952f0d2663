// The float64 blocked Floyd-Warshall (kernels/dense/fw_f64.cu is its host
// side): 64 x 64 tiles, 256 threads, each holding a 4 x 4 fragment of C in
// registers (16 doubles), A and B in shared memory. A round kb is the same
// three phases as the int32 production solver (kernels/dense/fw.cu):
//   f64_close_diagonal  one block closes tile (kb, kb);
//   f64_update_panels   row panel (kb, j) = D* (x) P, column panel (i, kb) = P (x) D*;
//   f64_update_rest     C(i, j) = min(C, A(i, kb) (x) B(kb, j)) for i, j != kb.
// Each update is one DADD and one DMNMX (fmin); +inf absorbs any finite
// weight, so negative weights need no reweighting.
#pragma once

#include <cstdint>

namespace apsp::cuda::kernels {

struct Float64Traits {
  static constexpr int kTile = 64;
  static constexpr int kThreadsX = 16;
  static constexpr int kThreadsY = 16;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kRows = kTile / kThreadsY;  // fragment rows: ty * kRows + r (contiguous)
  static constexpr int kCols = kTile / kThreadsX;  // fragment columns: tx + kThreadsX * c (coalesced)
  // Shared A tiles are row-major with one double of padding: the two ty of
  // a warp read rows kRows apart, kRows * kAStride * 2 words apart, which
  // lands them in different banks (8 words apart for kRows = 4).
  static constexpr int kAStride = kTile + 1;
  static constexpr std::size_t kProductSharedBytes = sizeof(double) * (kTile * kAStride + kTile * kTile);

  static_assert(kTile % kThreadsX == 0 && kTile % kThreadsY == 0, "threads must tile the C tile");
  static_assert(kRows == 4 && kCols == 4, "the fragment is 4 x 4 doubles");
  static_assert((kRows * kAStride * 2) % 32 != 0, "the two ty of a warp must read different banks of A");
};

// One fragment: rows ty * kRows + r, columns tx + kThreadsX * c of a tile.
template <class T>
struct F64Fragment {
  double c[T::kRows][T::kCols];
};

// frag = min(frag, A (x) B) over the tile's kTile k: A row-major with stride
// kAStride, B row-major with stride kTile, both in shared memory.
template <class T>
__device__ __forceinline__ void f64_product(F64Fragment<T>& f, const double* a, const double* b, int tx, int ty) {
#pragma unroll 8
  for (int k = 0; k < T::kTile; ++k) {
    double av[T::kRows], bv[T::kCols];
#pragma unroll
    for (int r = 0; r < T::kRows; ++r) av[r] = a[(ty * T::kRows + r) * T::kAStride + k];
#pragma unroll
    for (int c = 0; c < T::kCols; ++c) bv[c] = b[k * T::kTile + tx + T::kThreadsX * c];
#pragma unroll
    for (int r = 0; r < T::kRows; ++r)
#pragma unroll
      for (int c = 0; c < T::kCols; ++c) f.c[r][c] = fmin(av[r] + bv[c], f.c[r][c]);
  }
}

// Copies tile (ti, tj) of d into shared memory with row stride `stride`.
template <class T>
__device__ __forceinline__ void f64_load_tile(double* dst, int stride, const double* __restrict__ d, std::int64_t ld,
                                              int ti, int tj, int tid) {
  for (int idx = tid; idx < T::kTile * T::kTile; idx += T::kThreads) {
    const int i = idx / T::kTile, j = idx % T::kTile;
    dst[i * stride + j] = d[(std::int64_t{ti} * T::kTile + i) * ld + std::int64_t{tj} * T::kTile + j];
  }
}

template <class T>
__device__ __forceinline__ double* f64_cell(double* d, std::int64_t ld, int ti, int tj, int tx, int ty, int r, int c) {
  return d + (std::int64_t{ti} * T::kTile + ty * T::kRows + r) * ld + std::int64_t{tj} * T::kTile + tx +
         T::kThreadsX * c;
}

// Phase 1: one block closes tile (kb, kb) in shared memory, one k per step:
// every thread reads row k and column k, the block waits, then each thread
// writes its fragment, so no thread reads a value another is rewriting.
template <class T>
__global__ void __launch_bounds__(T::kThreads) f64_close_diagonal(double* __restrict__ d, std::int64_t ld, int kb) {
  __shared__ double tile[T::kTile * T::kAStride];
  const int tid = threadIdx.x, tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  f64_load_tile<T>(tile, T::kAStride, d, ld, kb, kb, tid);
  __syncthreads();
  F64Fragment<T> f;
#pragma unroll
  for (int r = 0; r < T::kRows; ++r)
#pragma unroll
    for (int c = 0; c < T::kCols; ++c) f.c[r][c] = tile[(ty * T::kRows + r) * T::kAStride + tx + T::kThreadsX * c];
#pragma unroll 1
  for (int k = 0; k < T::kTile; ++k) {
    double av[T::kRows], bv[T::kCols];
#pragma unroll
    for (int r = 0; r < T::kRows; ++r) av[r] = tile[(ty * T::kRows + r) * T::kAStride + k];
#pragma unroll
    for (int c = 0; c < T::kCols; ++c) bv[c] = tile[k * T::kAStride + tx + T::kThreadsX * c];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < T::kRows; ++r)
#pragma unroll
      for (int c = 0; c < T::kCols; ++c) {
        f.c[r][c] = fmin(av[r] + bv[c], f.c[r][c]);
        tile[(ty * T::kRows + r) * T::kAStride + tx + T::kThreadsX * c] = f.c[r][c];
      }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < T::kRows; ++r)
#pragma unroll
    for (int c = 0; c < T::kCols; ++c) *f64_cell<T>(d, ld, kb, kb, tx, ty, r, c) = f.c[r][c];
}

// Phase 2. Grid 2 * (nb - 1): blocks 0..nb-2 take row-panel tiles (kb, j),
// the rest column-panel tiles (i, kb), j and i skipping kb. Each is a single
// product with the closed diagonal D*, read before anything is written.
template <class T>
__global__ void __launch_bounds__(T::kThreads)
    f64_update_panels(double* __restrict__ d, std::int64_t ld, int kb, int nb) {
  extern __shared__ double shared_f64[];
  double* const a = shared_f64;                           // kTile x kAStride
  double* const b = shared_f64 + T::kTile * T::kAStride;  // kTile x kTile
  const int tid = threadIdx.x, tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  const bool row_panel = static_cast<int>(blockIdx.x) < nb - 1;
  const int other = row_panel ? blockIdx.x : blockIdx.x - (nb - 1);
  const int t = other + (other >= kb);
  const int ti = row_panel ? kb : t, tj = row_panel ? t : kb;
  // Row panel: D* (x) P, so A = D*, B = P. Column panel: P (x) D*.
  f64_load_tile<T>(a, T::kAStride, d, ld, row_panel ? kb : ti, kb, tid);
  f64_load_tile<T>(b, T::kTile, d, ld, kb, row_panel ? tj : kb, tid);
  __syncthreads();
  F64Fragment<T> f;
#pragma unroll
  for (int r = 0; r < T::kRows; ++r)
#pragma unroll
    for (int c = 0; c < T::kCols; ++c) f.c[r][c] = *f64_cell<T>(d, ld, ti, tj, tx, ty, r, c);
  f64_product<T>(f, a, b, tx, ty);
#pragma unroll
  for (int r = 0; r < T::kRows; ++r)
#pragma unroll
    for (int c = 0; c < T::kCols; ++c) *f64_cell<T>(d, ld, ti, tj, tx, ty, r, c) = f.c[r][c];
}

// Phase 3. Grid (nb - 1) x (nb - 1): tile (i, j), i and j skipping kb.
template <class T>
__global__ void __launch_bounds__(T::kThreads) f64_update_rest(double* __restrict__ d, std::int64_t ld, int kb) {
  extern __shared__ double shared_f64[];
  double* const a = shared_f64;
  double* const b = shared_f64 + T::kTile * T::kAStride;
  const int tid = threadIdx.x, tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  const int ti = blockIdx.y + (static_cast<int>(blockIdx.y) >= kb);
  const int tj = blockIdx.x + (static_cast<int>(blockIdx.x) >= kb);
  f64_load_tile<T>(a, T::kAStride, d, ld, ti, kb, tid);
  f64_load_tile<T>(b, T::kTile, d, ld, kb, tj, tid);
  F64Fragment<T> f;
#pragma unroll
  for (int r = 0; r < T::kRows; ++r)
#pragma unroll
    for (int c = 0; c < T::kCols; ++c) f.c[r][c] = *f64_cell<T>(d, ld, ti, tj, tx, ty, r, c);
  __syncthreads();
  f64_product<T>(f, a, b, tx, ty);
#pragma unroll
  for (int r = 0; r < T::kRows; ++r)
#pragma unroll
    for (int c = 0; c < T::kCols; ++c) *f64_cell<T>(d, ld, ti, tj, tx, ty, r, c) = f.c[r][c];
}

}  // namespace apsp::cuda::kernels
