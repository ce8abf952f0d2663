// Integer rounding helpers, the one home for "(a + b - 1) / b": host code,
// CUDA host code and device code include this header (constexpr, and
// __host__ __device__ under nvcc).
#pragma once

#if defined(__CUDACC__)
#define APSP_HOST_DEVICE __host__ __device__
#else
#define APSP_HOST_DEVICE
#endif

namespace apsp {

// ceil(a / b) for a >= 0 and b > 0, in the type of a + b (operands may be
// of different integer types, e.g. an int64 size and an int tile).
template <class A, class B>
APSP_HOST_DEVICE constexpr auto ceil_div(A a, B b) -> decltype(a + b) {
  return (a + b - 1) / b;
}

// The smallest multiple of `multiple` that is >= a, for a >= 0 and multiple > 0.
template <class A, class B>
APSP_HOST_DEVICE constexpr auto round_up(A a, B multiple) -> decltype(a + multiple) {
  return ceil_div(a, multiple) * multiple;
}

static_assert(ceil_div(0, 64) == 0 && ceil_div(1, 64) == 1 && ceil_div(64, 64) == 1 && ceil_div(65, 64) == 2);
static_assert(round_up(0, 128) == 0 && round_up(1, 128) == 128 && round_up(129, 128) == 256);

}  // namespace apsp
