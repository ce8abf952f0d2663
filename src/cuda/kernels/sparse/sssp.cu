// The int32 kernels of the batched single-source solver (sssp.cuh) and the
// scratch sizes every distance type shares. The float32 and float64 kernels
// are in sssp_real.cu, so this translation unit builds the int32 kernels as
// they were before real weights came.
#include "cuda/kernels/sparse/sssp.cuh"

namespace apsp::cuda {

std::size_t sparse_scratch_bytes(std::int64_t n, bool shared_row) {
  const auto queues = static_cast<std::size_t>(4 * n) * sizeof(vertex_t);
  const auto bitmaps = shared_row ? 0 : static_cast<std::size_t>(2 * sparse_bitmap_words(n)) * sizeof(unsigned);
  return queues + bitmaps;
}

APSP_SPARSE_ROWS_INSTANTIATE(std::int32_t)

}  // namespace apsp::cuda
