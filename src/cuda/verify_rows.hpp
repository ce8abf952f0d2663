// Host launcher of the GPU certificate kernel (kernels/verify/certify_rows.cuh)
// and the graph layout it reads. Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "apsp/graph.hpp"
#include "device_rows.hpp"

namespace apsp::cuda {

// The graph in the matrix's terms (every weight >= 0, i.e. Johnson-reweighted
// when the matrix is), on the device, one entry per edge, ordered by head so
// that neighbouring threads read neighbouring heads.
struct DeviceInEdges {
  const vertex_t* tail = nullptr;    // u of edge k (u -> v)
  const vertex_t* head = nullptr;    // v of edge k
  const weight_t* weight = nullptr;  // w(u, v)
  std::int64_t m = 0;
  // Only when some cycle has weight zero (else nullptr): the strongly
  // connected components of the zero-weight edges, named by their lowest
  // vertex. rep[v]: v's component; mark[k]: the component of head[k], or -1
  // when edge k lies inside one component.
  const vertex_t* rep = nullptr;
  const vertex_t* mark = nullptr;
};

// Where the kernel keeps the row it checks: in shared memory when it fits
// (automatic), or always read from global memory (the path of rows too long
// for shared memory, selectable so tests reach it with small matrices).
enum class RowPlacement { automatic, global_memory };

// The lowest row i of `matrix` that fails the certificate, or -1 if none:
//  - d[i][i] != 0;
//  - a finite entry whose graph distance (stored value - h[i] + h[j] with
//    `potentials`, device, n entries or nullptr) leaves (-kInf, kInf);
//  - an edge u -> v with d[i][u] finite and d[i][v] = INF or > d[i][u] + w;
//  - a finite d[i][j] that no path of tight edges (d[i][u] + w == d[i][v])
//    from i reaches: with every edge relaxed, one tight in-edge from outside
//    its zero-weight component for each finite component but i's proves it.
// Synchronizes `stream`.
std::int64_t lowest_failing_row(const DeviceRows& matrix, const DeviceInEdges& edges, const std::int64_t* potentials,
                                cudaStream_t stream, RowPlacement placement = RowPlacement::automatic);

}  // namespace apsp::cuda
