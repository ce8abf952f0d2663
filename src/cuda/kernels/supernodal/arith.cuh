// The supernodal kernels' arithmetic on one distance type D: infinity, the
// add-min, and an atomic min. Every value they see is a non-negative
// distance or infinity (the solver runs on Johnson-reweighted, non-negative
// weights), so:
//  - int32: kInf = 2^30 - 1 leaves room for the sum of two stored values and
//    min(a + b, c) with c <= kInf never exceeds kInf (range_rule.hpp);
//  - int16 (the solve's narrow working rows, issue 21): kInf16 = 16383
//    (fw's int16 infinity, kernels/common/words.cuh): two stored values sum
//    below 2^15, and every stored value is min(path length, kInf16), so the
//    range certificate (range_rule.hpp, infinity kInf16) decides the result;
//    CUDA has no 16-bit atomicMin: a compare-and-swap on the aligned 32-bit
//    word that holds the value;
//  - float32 / float64: IEEE +inf absorbs any finite value, and a
//    non-negative IEEE value orders as its bit pattern read as a signed
//    integer of the same width, so the integer atomicMin is the float min
//    (-0.0 reads as the smallest integer, and is 0: still the minimum).
#pragma once

#include <cstdint>
#include <limits>

#include "apsp/graph.hpp"
#include "cuda/kernels/common/words.cuh"

namespace apsp::cuda::kernels::supernodal {

template <class D>
struct Arith;

template <>
struct Arith<std::int32_t> {
  __device__ static std::int32_t infinity() { return kInf; }
  __device__ static std::int32_t add_min(std::int32_t a, std::int32_t b, std::int32_t c) {
    return __viaddmin_s32(a, b, c);
  }
  __device__ static void atomic_min(std::int32_t* at, std::int32_t v) { atomicMin(at, v); }
};

template <>
struct Arith<std::int16_t> {
  __device__ static std::int16_t infinity() { return static_cast<std::int16_t>(kInf16); }
  __device__ static std::int16_t add_min(std::int16_t a, std::int16_t b, std::int16_t c) {
    return static_cast<std::int16_t>(min(int{a} + int{b}, int{c}));
  }
  // A 16-bit compare-and-swap (sm_70 and newer) on the value itself: a CAS on
  // the aligned 32-bit word around it would read two bytes past the end of a
  // buffer whose size is not a multiple of 4 (compute-sanitizer memcheck
  // reported it on the int16 working rows).
  __device__ static void atomic_min(std::int16_t* at, std::int16_t v) {
    auto* half = reinterpret_cast<unsigned short*>(at);
    unsigned short old = *half;
    while (static_cast<std::int16_t>(old) > v) {
      const unsigned short seen = atomicCAS(half, old, static_cast<unsigned short>(v));
      if (seen == old) return;
      old = seen;
    }
  }
};

template <>
struct Arith<float> {
  __device__ static float infinity() { return __int_as_float(0x7f800000); }
  __device__ static float add_min(float a, float b, float c) { return fminf(a + b, c); }
  __device__ static void atomic_min(float* at, float v) { atomicMin(reinterpret_cast<int*>(at), __float_as_int(v)); }
};

template <>
struct Arith<double> {
  __device__ static double infinity() { return __longlong_as_double(0x7ff0000000000000LL); }
  __device__ static double add_min(double a, double b, double c) { return fmin(a + b, c); }
  __device__ static void atomic_min(double* at, double v) {
    atomicMin(reinterpret_cast<long long*>(at), __double_as_longlong(v));
  }
};

}  // namespace apsp::cuda::kernels::supernodal
