// Min-plus peak microbenchmark: independent chains of add+min in registers,
// so % of peak in the benchmark tables refers to a number measured in the same run.
#pragma once

#include <cstdint>

namespace apsp::bench {

// Each thread runs kChains independent chains c = min(a + b, c) for `steps`
// steps. `seed` keeps the compiler from folding; `sink` keeps results live.
template <int kChains, bool kPacked16>
__global__ void __launch_bounds__(256) peak_chains(int seed, int steps, int* sink) {
  int c[kChains];
  int a[kChains];
#pragma unroll
  for (int i = 0; i < kChains; ++i) {
    c[i] = seed * (i + 3) + threadIdx.x;
    a[i] = seed ^ (i * 7919);
  }
  int b = seed + blockIdx.x;
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int i = 0; i < kChains; ++i) {
      if constexpr (kPacked16)
        c[i] = static_cast<int>(__viaddmin_s16x2(static_cast<unsigned>(a[i]), static_cast<unsigned>(b), static_cast<unsigned>(c[i])));
      else
        c[i] = __viaddmin_s32(a[i], b, c[i]);
    }
    b += 1;
  }
  int total = 0;
#pragma unroll
  for (int i = 0; i < kChains; ++i) total ^= c[i];
  if (total == 0x7fffffff) sink[threadIdx.x] = total;
}

}  // namespace apsp::bench
