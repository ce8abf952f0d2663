#include "gather_columns.hpp"

#include <algorithm>

#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "kernels/download/gather_columns.cuh"

namespace apsp::cuda {
namespace {

template <class T>
void launch(const T* rows, std::int64_t ld, std::int64_t count, const std::int32_t* columns, std::int64_t width, T* out,
            cudaStream_t stream) {
  if (count <= 0 || width <= 0) return;
  constexpr int kThreads = 256;
  // Blocks enough to cover a row (at most 1024 across), rows over y (at most 65535).
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>(ceil_div(width, std::int64_t{kThreads}), 1024)),
                  static_cast<unsigned>(std::min<std::int64_t>(count, 65535)));
  kernels::gather_columns<<<grid, kThreads, 0, stream>>>(rows, ld, count, columns, width, out);
  APSP_CUDA_CHECK_LAUNCH("gather_columns");
}

}  // namespace

void gather_columns(const std::int32_t* rows, std::int64_t ld, std::int64_t count, const std::int32_t* columns,
                    std::int64_t width, std::int32_t* out, cudaStream_t stream) {
  launch(rows, ld, count, columns, width, out, stream);
}
void gather_columns(const float* rows, std::int64_t ld, std::int64_t count, const std::int32_t* columns,
                    std::int64_t width, float* out, cudaStream_t stream) {
  launch(rows, ld, count, columns, width, out, stream);
}
void gather_columns(const double* rows, std::int64_t ld, std::int64_t count, const std::int32_t* columns,
                    std::int64_t width, double* out, cudaStream_t stream) {
  launch(rows, ld, count, columns, width, out, stream);
}

}  // namespace apsp::cuda
