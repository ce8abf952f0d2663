// A thread's 8 x 8 fragment of a 128 x 128 tile in the production kernels:
// where its rows lie, how its operands load, one k-step of add-min on it, and
// the cp.async copy of one k-chunk stage of the A and B operands.
#pragma once

#include <cstdint>

#include "cuda/kernels/common/cp_async.cuh"
#include "cuda/kernels/common/words.cuh"

namespace apsp::cuda::kernels {

// Row `r` (0..7) of this thread's fragment inside a tile: two groups of four
// rows, 64 apart, so the A operand of a k-step is two int4 loads.
template <class T>
__device__ inline int fragment_row(int ty, int r) {
  return (r < 4 ? 0 : T::kTile / 2) + ty * 4 + (r & 3);
}

// The 8 words of a fragment row or column: two int4, 64 words apart in a tile.
__device__ __forceinline__ void load_words8(const std::int32_t* lo, const std::int32_t* hi, std::int32_t (&out)[8]) {
  const int4 a = *reinterpret_cast<const int4*>(lo);
  const int4 b = *reinterpret_cast<const int4*>(hi);
  out[0] = a.x;
  out[1] = a.y;
  out[2] = a.z;
  out[3] = a.w;
  out[4] = b.x;
  out[5] = b.y;
  out[6] = b.z;
  out[7] = b.w;
}

// c[r][x] = add_min(a[r], b[x], c[r][x]): one k-step on a thread's 8x8 fragment.
template <class W>
__device__ __forceinline__ void add_min_fragment(std::int32_t (&c)[8][8], const std::int32_t (&a)[8],
                                                 const std::int32_t (&b)[8]) {
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int x = 0; x < 8; ++x) c[r][x] = W::add_min(a[r], b[x], c[r][x]);
}

// c[r][x] = add_min(A[k][row r], B[k][word x], c) over the kChunk k-rows of
// one stage: A is kChunk x kTile words (k-major), B kChunk x kTile words.
template <class T, class W>
__device__ __forceinline__ void chunk_product(std::int32_t (&c)[8][8], const std::int32_t* a_stage,
                                              const std::int32_t* b_stage, int tx, int ty) {
#pragma unroll
  for (int k = 0; k < T::kChunk; ++k) {
    std::int32_t a[8], b[8];
    load_words8(a_stage + k * T::kTile + ty * 4, a_stage + k * T::kTile + T::kTile / 2 + ty * 4, a);
    load_words8(b_stage + k * T::kTile + tx * 4, b_stage + k * T::kTile + T::kTile / 2 + tx * 4, b);
    add_min_fragment<W>(c, a, b);
  }
}

// Copies one kChunk-row stage of A (from panel_t) and B (from the row panel)
// into shared memory with cp.async; the caller commits. Thread tid copies the
// 16-byte vector at column (tid % kVectorsPerRow) * 4 of rows tid /
// kVectorsPerRow + i * kRowsPerPass, i < kPasses: a trip count the compiler
// sees, so the loop unrolls into kPasses pairs of LDGSTS on one pair of base
// addresses. (Written as "for v = tid; v < total; v += kThreads" the count
// depended on tid, and ptxas emitted a general loop with a remainder path:
// about 175 issued instructions a stage against 4224 of arithmetic, a cost
// float32, which is issue-bound, pays in full.)
template <class T>
__device__ __forceinline__ void copy_stage(std::int32_t* a_dst, const std::int32_t* a_src, std::int64_t a_ld,
                                           const std::int32_t* b_src, std::int64_t b_ld, int k0, int tid) {
  constexpr int kVectorsPerRow = T::kTile / 4;
  constexpr int kRowsPerPass = T::kThreads / kVectorsPerRow;
  constexpr int kPasses = T::kChunk / kRowsPerPass;
  static_assert(T::kThreads % kVectorsPerRow == 0, "a pass copies whole rows");
  static_assert(T::kChunk % kRowsPerPass == 0, "the passes cover the stage's rows exactly");
  std::int32_t* b_dst = a_dst + T::kChunk * T::kTile;
  const int row = tid / kVectorsPerRow, col = (tid % kVectorsPerRow) * 4;
  const std::int32_t* a_from = a_src + std::int64_t{k0 + row} * a_ld + col;
  const std::int32_t* b_from = b_src + std::int64_t{k0 + row} * b_ld + col;
  const int to = row * T::kTile + col;
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    cp_async16(a_dst + to + pass * kRowsPerPass * T::kTile, a_from + pass * kRowsPerPass * a_ld);
    cp_async16(b_dst + to + pass * kRowsPerPass * T::kTile, b_from + pass * kRowsPerPass * b_ld);
  }
}

}  // namespace apsp::cuda::kernels
