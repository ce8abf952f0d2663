// Host side of the batched single-source kernels (kernels/sparse/sssp.cuh,
// instantiated for int32 in sssp.cu, for float32 and float64 in
// sssp_real.cu): what one launch computes, the scratch it needs, and its
// shapes. The launcher of a solve (sparse_solver.hpp) sizes and owns the
// buffers. Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "apsp/graph.hpp"
#include "core/ceil_div.hpp"  // APSP_HOST_DEVICE
#include "cuda/algorithm.hpp"
#include "cuda/sparse_variant.hpp"

namespace apsp::cuda {

// Rows first_source .. first_source + sources - 1 of the distance matrix (and
// predecessors), each computed by one thread block from its source. Blocks
// take sources from *next_source (zeroed by the launcher) until none is left.
// D is the distance type: int32 (kInf as infinity, the row range-checked)
// or float32 / float64 (+inf as infinity, no range check, potentials undone
// by the kernel).
template <class D>
struct BasicSparseRowsLaunch {
  BasicDeviceCsr<D> out;  // out-edges, every weight >= +0.0 (Johnson-reweighted when needed; never -0.0)
  BasicDeviceCsr<D> in;   // in-edges (transpose of out, with weights); read only when pred != nullptr
  D max_weight = 0;
  std::int64_t first_source = 0;
  std::int64_t sources = 0;
  D* dist = nullptr;         // sources x ld: row k holds the distances from first_source + k
  vertex_t* pred = nullptr;  // the same shape, or nullptr
  std::int64_t ld = 0;       // >= out.n
  SparseVariant variant = SparseVariant::gather;
  bool shared_row = true;                     // the working row in shared memory (sparse_shared_row_fits)
  D delta = 1;                                // near-far bucket width: >= 1 for int32, > 0 for real distances
  int blocks = 0;                             // resident blocks, each with its own scratch
  vertex_t* queues = nullptr;                 // blocks x 4 n: frontier, next frontier, far pile and its copy
  unsigned* bitmaps = nullptr;                // blocks x 2 words(n) (global-row mode only)
  unsigned long long* next_source = nullptr;  // one counter
  // int32: set to 1 by a block whose row has a finite distance with an edge
  // to an INF entry close enough to have been clamped (range_rule.hpp): the
  // int32 range does not hold the result. Never cleared by the kernels;
  // never set for real distances.
  int* range_escaped = nullptr;
  // Real distances only: Johnson potentials h (out.n entries, device), or
  // nullptr when the weights were not reweighted. The kernel writes the
  // graph's distance d + h[v] - h[source] (in double, rounded to D) for a
  // reweighted distance d. int32 rows leave the potentials to the download.
  const double* potentials = nullptr;
};
using SparseRowsLaunch = BasicSparseRowsLaunch<dist_t>;

// 32-bit words of one n-bit bitmap.
APSP_HOST_DEVICE inline std::int64_t sparse_bitmap_words(std::int64_t n) { return (n + 31) / 32; }
// Per-block scratch in global memory, bytes (the same for every distance type).
std::size_t sparse_scratch_bytes(std::int64_t n, bool shared_row);
// Shared memory a block of the shared-row kernel takes for n vertices:
// the row of n D entries and two bitmaps.
template <class D>
std::size_t sparse_shared_bytes(std::int64_t n) {
  return static_cast<std::size_t>(n) * sizeof(D) +
         static_cast<std::size_t>(2 * sparse_bitmap_words(n)) * sizeof(unsigned);
}
// True when the shared-row kernel for D fits n vertices on the current
// device (float64 fits about half the n of int32 and float32).
template <class D>
bool sparse_shared_row_fits(std::int64_t n);
// Resident blocks of the kernel for (D, variant, shared_row, n) on the current device.
template <class D>
int sparse_resident_blocks(SparseVariant variant, bool shared_row, std::int64_t n);
// Queues the launch on `stream` (zeroes *next_source first). Checked.
// Throws UsageError for an incomplete description.
template <class D>
void launch_sparse_rows(const BasicSparseRowsLaunch<D>& launch, cudaStream_t stream);

}  // namespace apsp::cuda
