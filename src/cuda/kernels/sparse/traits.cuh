// Shapes and arithmetic of the batched single-source solver ("sssp",
// kernels/sparse/sssp.cuh): threads per block for each row placement, the
// degree from which a warp shares a vertex's edges, and the distance
// policies (int32, float32, float64).
#pragma once

#include <cuda/std/limits>

#include <climits>
#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/sparse_variant.hpp"

namespace apsp::cuda::kernels {

// The distance policy: the type, its infinity, the "no threshold" value of
// the frontier variant, and the operations the kernel applies to distances.
// Every distance the kernel stores or offers is >= 0 (weights are reweighted
// to be non-negative): the policies rely on it.
//
// int32 distances with kInf as infinity: two stored values below 2^30 never
// overflow an int32 sum, so du + w is formed without a bound (range_rule.hpp).
// The row is range-checked; potentials are undone by the download.
struct SparseInt32 {
  using dist_type = std::int32_t;
  static constexpr dist_type kInfinity = kInf;
  static constexpr dist_type kNoThreshold = INT_MAX;  // above every sum of two stored values
  static constexpr bool kRangeChecked = true;
  __device__ static dist_type atomic_min(dist_type* at, dist_type v) { return atomicMin(at, v); }
  __device__ static dist_type min(dist_type a, dist_type b) { return ::min(a, b); }
  // The next near-far threshold, far_min + delta clamped to kNoThreshold.
  __device__ static dist_type raise(dist_type far_min, dist_type delta) {
    const long long raised = static_cast<long long>(far_min) + delta;
    return raised < INT_MAX ? static_cast<dist_type>(raised) : INT_MAX;
  }
  // A tight in-edge u -> v that is no tie: its weight is positive.
  __device__ static bool beyond(dist_type, dist_type w, dist_type) { return w > 0; }
};

// float32 / float64 distances with +inf as infinity. atomicMin on the bits:
// IEEE floats >= +0.0 (and +inf) order as their bit patterns do read as
// signed int32 (float) or unsigned 64-bit integers (double), so an integer
// atomicMin on the reinterpreted bits is the float minimum. Precondition
// (guaranteed by the host, cuda/sparse_input.hpp): every weight is >= +0.0
// and never -0.0 (whose bits would order below every other value as int32,
// above every other as uint64) nor NaN; then every sum du + w is >= +0.0 too.
// No range check (floats do not wrap); the kernel undoes the potentials.
template <class D>
struct SparseReal {
  using dist_type = D;
  static constexpr dist_type kInfinity = ::cuda::std::numeric_limits<D>::infinity();
  static constexpr dist_type kNoThreshold = kInfinity;
  static constexpr bool kRangeChecked = false;
  __device__ static dist_type atomic_min(dist_type* at, dist_type v) {
    if constexpr (sizeof(D) == 4) {
      return __int_as_float(atomicMin(reinterpret_cast<int*>(at), __float_as_int(v)));
    } else {
      static_assert(sizeof(D) == 8, "float or double");
      return __longlong_as_double(static_cast<long long>(atomicMin(
          reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(__double_as_longlong(v)))));
    }
  }
  __device__ static dist_type min(dist_type a, dist_type b) { return a < b ? a : b; }
  // far_min + delta, or the next value above far_min where delta is below
  // its rounding (the threshold must rise, or the split would keep every
  // far entry and never end).
  __device__ static dist_type raise(dist_type far_min, dist_type delta) {
    const dist_type raised = far_min + delta;
    if (raised > far_min) return raised;
    if constexpr (sizeof(D) == 4)
      return nextafterf(far_min, kInfinity);
    else
      return nextafter(far_min, kInfinity);
  }
  // A tight in-edge u -> v that is no tie: du < dv. A positive weight below
  // half an ulp of du adds nothing, so the weight alone cannot tell.
  __device__ static bool beyond(dist_type du, dist_type, dist_type dv) { return du < dv; }
};

// The policy of distance type D.
template <class D>
struct SparsePolicyOf;
template <>
struct SparsePolicyOf<std::int32_t> {
  using type = SparseInt32;
};
template <>
struct SparsePolicyOf<float> {
  using type = SparseReal<float>;
};
template <>
struct SparsePolicyOf<double> {
  using type = SparseReal<double>;
};

// kSharedRow: the source's distance row (and the queued/far bitmaps) live in
// shared memory, one large block per SM; otherwise the row is the output row
// itself in global memory (L2) and more, smaller blocks share an SM.
template <bool kSharedRow>
struct SparseTraits {
  static constexpr int kThreads = kSharedRow ? 1024 : 256;
  static constexpr int kWarp = 32;
  // A frontier vertex with at least this many out-edges is relaxed by its
  // whole warp (one edge per lane); lighter ones by their own lane, so hubs
  // do not serialize a lane while 31 wait.
  static constexpr int kWarpDegree = 32;
  static_assert(kThreads % kWarp == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  static_assert(kWarpDegree >= 1, "a positive degree threshold");
};

}  // namespace apsp::cuda::kernels
