// Min-plus peak microbenchmark: independent chains of add+min in registers,
// so % of peak in the benchmark tables refers to a number measured in the same run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"

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
        c[i] = static_cast<int>(
            __viaddmin_s16x2(static_cast<unsigned>(a[i]), static_cast<unsigned>(b), static_cast<unsigned>(c[i])));
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

namespace apsp::bench {

// The same chains in a floating-point type: c = fmin(a + b, c), one FADD and
// one FMNMX (DADD and DMNMX for double) per update, the instructions of the
// real-valued fw (kernels/dense/fw_f64.cuh, Float32Words).
template <int kChains, class T>
__global__ void __launch_bounds__(256) peak_chains_real(int seed, int steps, int* sink) {
  T c[kChains];
  T a[kChains];
#pragma unroll
  for (int i = 0; i < kChains; ++i) {
    c[i] = static_cast<T>(seed * (i + 3) + threadIdx.x);
    a[i] = static_cast<T>(seed ^ (i * 7919)) * static_cast<T>(0.5);
  }
  T b = static_cast<T>(seed + blockIdx.x);
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int i = 0; i < kChains; ++i) c[i] = fmin(a[i] + b, c[i]);
    b -= static_cast<T>(1);
  }
  T total = 0;
#pragma unroll
  for (int i = 0; i < kChains; ++i) total += c[i];
  if (total == static_cast<T>(0.25)) sink[threadIdx.x] = 1;
}

}  // namespace apsp::bench

namespace apsp::bench {

// Updates per second of a peak kernel: launch(stream, rep) queues run `rep`
// (0..5) of `updates` updates; run 0 warms up, the median of the other five
// is returned. Times with CUDA events.
template <class Launch>
double median_peak_rate(Launch&& launch, double updates) {
  apsp::cuda::Stream stream;
  apsp::cuda::Event begin, end;
  std::vector<double> rates;
  for (int rep = 0; rep < 6; ++rep) {
    begin.record(stream.get());
    launch(stream.get(), rep);
    APSP_CUDA_CHECK_LAUNCH("peak kernel");
    end.record(stream.get());
    const double seconds = apsp::cuda::elapsed_ms(begin, end) / 1e3;
    if (rep > 0) rates.push_back(updates / seconds);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

// Blocks for a peak kernel: eight per SM of device 0.
inline int peak_blocks() {
  int sms = 0;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return sms * 8;
}

}  // namespace apsp::bench
