// Blocked Floyd-Warshall on real-valued distances (and int32 rounds for
// callers holding their own matrix), in place on the device:
// the rounds of the production solver for float32 (kernels/dense/fw.cu,
// FADD + FMNMX per update in the same 128 x 128 tiles as int32) and a
// register-tiled float64 solver (kernels/dense/fw_f64.cu). IEEE +inf is
// infinity; negative weights need no reweighting (+inf absorbs any finite
// weight). Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "apsp/sink.hpp"
#include "core/progress.hpp"

namespace apsp::cuda {

// The matrix padding each width needs: n_pad is a multiple of it.
template <class D>
constexpr std::int64_t real_fw_pad();
template <>
constexpr std::int64_t real_fw_pad<float>() {
  return 128;
}
template <>
constexpr std::int64_t real_fw_pad<double>() {
  return 64;
}

// All rounds on d, an n_pad x n_pad row-major matrix (leading dimension
// n_pad): the weight or +inf off the diagonal, 0 on it, padded vertices
// isolated. Queued on `stream`; reports into `span` after each round that
// ends a 1/64 of them (waiting for the work). Throws UsageError for an n_pad
// that is not a multiple of real_fw_pad<D>(), DeviceError for a failed launch.
// float32's phase 3, the kernel ladder of docs/perf.md ("Real-valued
// weights"), all with the int32 tiles; H100, n = 32768, same run:
//   load_c_first      the int32 kernel as is: C loaded, then the k-chunks;
//                     two blocks per SM under a 128-register cap (12.34 T/s)
//   one_block_per_sm  the same with the cap lifted (11.66 T/s, earlier run)
//   fold_c            C started at +inf, the old tile prefetched into L2 and
//                     folded in after the k-chunks (kernels::FoldCTraits;
//                     13.52 T/s)
//   fold_c_l1         fold_c, the old tile also asked into L1 as the last
//                     k-chunk starts (kernels::FoldCL1Traits; 13.55 T/s):
//                     production.
enum class RealFwVariant { load_c_first, one_block_per_sm, fold_c, fold_c_l1, production = fold_c_l1 };
// pivot_rounds >= 0 runs only the first pivot_rounds rounds (pivots 0 ..
// pivot_rounds * pad - 1 eliminated; the supernodal factor's fronts).
// float32 and int32: `workspace`, when given, is the rounds' panel scratch
// of fw_panel_words(n_pad) words, for callers that run many matrices.
// `checkpoints`, when given, keeps round checkpoints of a whole run (float32 only).
void fw_rounds_real(float* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span,
                    RealFwVariant variant = RealFwVariant::production, std::int64_t pivot_rounds = -1,
                    std::int32_t* workspace = nullptr, RoundCheckpoints* checkpoints = nullptr);
void fw_rounds_real(double* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span,
                    std::int64_t pivot_rounds = -1);

// The production int32 rounds ("fw" without int16 or predecessors) on d, an
// n_pad x n_pad row-major int32 matrix (n_pad a multiple of 128), for
// callers that hold their own matrix (the supernodal factor's dense fronts):
// every entry a non-negative distance or kInf, 0 on the diagonal; the same
// pivot_rounds as above. Throws UsageError for a bad n_pad.
void fw_rounds_int32(std::int32_t* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span,
                     std::int64_t pivot_rounds = -1, std::int32_t* workspace = nullptr);
// The same rounds on an int16 matrix (n_pad a multiple of 256, entries
// non-negative or kernels' kInf16, 0 on the diagonal), all of them: the
// out-of-core solver's diagonal super-tiles. The caller certifies the range.
void fw_rounds_int16(std::int16_t* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span,
                     std::int32_t* workspace = nullptr);
// The predecessor mode's rounds (all of them) on `tagged`, an n_pad x n_pad
// matrix of TaggedWords (d << kTagBits, tag 0; kernels/common/words.cuh; n_pad
// a multiple of 128): mid[i][j] (n_pad x n_pad, -1 where no pivot improved
// the entry) becomes the last pivot k (0 <= k < n_pad) that improved d[i][j];
// row_tagged holds 128 x n_pad words of phase 3's B operand. The out-of-core
// solver's diagonal super-tiles in predecessor mode.
void fw_rounds_tagged(std::int32_t* tagged, std::int64_t n_pad, cudaStream_t stream, std::int32_t* mid,
                      std::int32_t* row_tagged, std::int32_t* workspace = nullptr);
// The words of the int32 / float32 rounds' panel scratch for an n_pad matrix.
constexpr std::int64_t fw_panel_words(std::int64_t n_pad) { return real_fw_pad<float>() * n_pad; }

}  // namespace apsp::cuda
