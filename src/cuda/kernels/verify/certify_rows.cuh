// The GPU certificate: one block per row of the device-resident result.
//
// The row is read once (into shared memory when it fits) and checked against
// every edge with threads over the edges, which the host orders by head:
//   1. each entry is INF or a distance that fits int32 (after the potentials);
//   2. the diagonal is 0;
//   3. every edge u -> v is relaxed: d[v] <= d[u] + w when d[u] is finite;
//   4. every finite entry is reached from i by tight edges. With the row
//      relaxed, tight edges never decrease d and a cycle of them has weight 0,
//      so it lies inside one strongly connected component of the zero-weight
//      edges, where all values are equal. A finite component other than i's
//      is therefore reached iff some tight edge enters it from outside;
//      without zero-weight cycles every component is one vertex, and this is
//      "every finite d[i][j], j != i, has a tight in-edge".
// Step 4 marks entered components in a shared bitset (one bit per vertex,
// since a component is named by its lowest vertex), then checks each finite
// vertex's component. These are exactly the row verdicts of the CPU verify
// (src/core/verify.cpp), whose search over tight edges they replace.
#pragma once

#include <cstdint>

#include "../../stored_distance.hpp"
#include "../../verify_rows.hpp"
#include "apsp/graph.hpp"

namespace apsp::cuda::kernels {

struct CertifyTraits {
  static constexpr int kThreads = 1024;
  static constexpr int kBitsPerWord = 32;
  static_assert(kThreads % 32 == 0, "whole warps");
};

// Grid-strides over rows in increasing order, so a block stops at the first
// row above the lowest failure found so far (*first_bad starts at ~0ull).
// Dynamic shared memory: the bitset ((n + 31) / 32 words), then the row (n
// int32) when kRowInShared.
template <typename S, bool kRowInShared, bool kZeroCycles, bool kPotentials>
__global__ void __launch_bounds__(CertifyTraits::kThreads)
    certify_rows(const S* __restrict__ matrix, std::int64_t ld, std::int64_t n, std::int32_t int16_infinity,
                 DeviceInEdges g, const std::int64_t* __restrict__ h, unsigned long long* first_bad) {
  extern __shared__ std::uint32_t shared_words[];
  const std::int64_t words = (n + CertifyTraits::kBitsPerWord - 1) / CertifyTraits::kBitsPerWord;
  std::uint32_t* entered = shared_words;
  std::int32_t* row = reinterpret_cast<std::int32_t*>(shared_words + words);
  const int tid = threadIdx.x;
  const int stride = blockDim.x;

  for (std::int64_t i = blockIdx.x; i < n; i += gridDim.x) {
    // One verdict for the whole block (threads may read different values).
    if (__syncthreads_or(static_cast<unsigned long long>(i) > *static_cast<volatile unsigned long long*>(first_bad)))
      break;
    const S* source = matrix + i * ld;
    auto value = [&](std::int64_t j) -> std::int32_t {
      if constexpr (kRowInShared)
        return row[j];
      else
        return stored_to_int32(source[j], int16_infinity);
    };
    const std::int64_t h_i = kPotentials ? h[i] : 0;
    bool bad = false;
    for (std::int64_t j = tid; j < n; j += stride) {
      const std::int32_t v = stored_to_int32(source[j], int16_infinity);
      if constexpr (kRowInShared) row[j] = v;
      if (v != kInf) bad |= outside_int32_distances(std::int64_t{v} - h_i + (kPotentials ? h[j] : 0));
    }
    for (std::int64_t w = tid; w < words; w += stride) entered[w] = 0;
    __syncthreads();
    if (tid == 0 && value(i) != 0) bad = true;

    for (std::int64_t k = tid; k < g.m; k += stride) {
      const std::int32_t du = value(g.tail[k]);
      if (du == kInf) continue;
      const vertex_t v = g.head[k];
      const std::int32_t dv = value(v);
      const std::int64_t through = std::int64_t{du} + g.weight[k];
      if (dv == kInf || dv > through) {
        bad = true;
        continue;
      }
      if (dv != through) continue;
      const vertex_t c = kZeroCycles ? g.mark[k] : v;
      if (c < 0) continue;
      const std::uint32_t bit = 1u << (c % CertifyTraits::kBitsPerWord);
      std::uint32_t& word = entered[c / CertifyTraits::kBitsPerWord];
      if (!(word & bit)) atomicOr(&word, bit);
    }
    __syncthreads();

    const std::int64_t own = kZeroCycles ? g.rep[i] : i;
    for (std::int64_t v = tid; v < n; v += stride) {
      if (value(v) == kInf) continue;
      const std::int64_t c = kZeroCycles ? g.rep[v] : v;
      if (c != own && !(entered[c / CertifyTraits::kBitsPerWord] & (1u << (c % CertifyTraits::kBitsPerWord))))
        bad = true;
    }
    // Also the barrier before the next row overwrites shared memory.
    if (__syncthreads_or(bad) && tid == 0) atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

}  // namespace apsp::cuda::kernels
