// Blocked Floyd-Warshall on real-valued distances, in place on the device:
// the rounds of the production solver for float32 (kernels/dense/fw.cu,
// FADD + FMNMX per update in the same 128 x 128 tiles as int32) and a
// register-tiled float64 solver (kernels/dense/fw_f64.cu). IEEE +inf is
// infinity; negative weights need no reweighting (+inf absorbs any finite
// weight). Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/progress.hpp"

namespace apsp::cuda {

// The matrix padding each width needs: n_pad is a multiple of it.
template <class D>
constexpr std::int64_t real_fw_pad();
template <>
constexpr std::int64_t real_fw_pad<float>() { return 128; }
template <>
constexpr std::int64_t real_fw_pad<double>() { return 64; }

// All rounds on d, an n_pad x n_pad row-major matrix (leading dimension
// n_pad): the weight or +inf off the diagonal, 0 on it, padded vertices
// isolated. Queued on `stream`; reports into `span` after each round that
// ends a 1/64 of them (waiting for the work). Throws UsageError for an n_pad
// that is not a multiple of real_fw_pad<D>(), DeviceError for a failed launch.
// float32's phase 3 in two versions (docs/perf.md, "Real-valued weights"):
// the int32 kernel's two blocks per SM under a 128-register cap, or one
// block per SM with the cap lifted. `production` is the one that measured faster.
// H100, n = 32768: 11.95 T/s against 11.66 T/s for one block per SM (before
// the paired add+min of Float32Words; two blocks per SM: 12.79 T/s since).
enum class RealFwVariant { two_blocks_per_sm, one_block_per_sm, production = two_blocks_per_sm };
void fw_rounds_real(float* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span,
                    RealFwVariant variant = RealFwVariant::production);
void fw_rounds_real(double* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span);

}  // namespace apsp::cuda
