// The float32 and float64 kernels of the batched single-source solver
// (sssp.cuh, SparseReal policies in traits.cuh).
#include "cuda/kernels/sparse/sssp.cuh"

namespace apsp::cuda {

APSP_SPARSE_ROWS_INSTANTIATE(float)
APSP_SPARSE_ROWS_INSTANTIATE(double)

}  // namespace apsp::cuda
