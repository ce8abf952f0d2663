// Host side of the real-valued GPU path's predecessors
// (kernels/dense/real_rows.cuh). Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda {

// pred (n x n of an ld-strided device matrix) from the device distances and
// the graph's in-edges `in_edges` (transpose(to_csr(g)), host), as
// kernels::real_predecessors describes. Synchronizes `stream`.
template <class D>
void real_predecessors(const D* dist, vertex_t* pred, std::int64_t n, std::int64_t ld, const BasicCsr<D>& in_edges,
                       cudaStream_t stream);

}  // namespace apsp::cuda
