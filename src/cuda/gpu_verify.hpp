// `--verify` on the device: the O(n * m) certificate of a device-resident
// distance matrix, run before the download. Same verdicts, first-violation
// messages (and so exit codes) as apsp::verify on the downloaded matrix: the
// kernel finds the lowest failing row, then that one row is downloaded and
// the CPU verifier's row check (core/verify_row.hpp) words the message.
// Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/verify.hpp"
#include "device_rows.hpp"
#include "core/cuda_memory.hpp"
#include "verify_rows.hpp"

namespace apsp::cuda {

// The graph as the certificate reads it, uploaded once; verify() may run on
// any number of matrices of that graph.
class DeviceVerifier {
 public:
  // `normalized` is the graph as apsp::verify takes it (the message is worded
  // from it; kept by reference, so it must outlive the verifier). `matrix_edges` are its edges in the device matrix's terms, every
  // weight >= 0: the Johnson-reweighted edges when the matrix is reweighted
  // (tightness, relaxation and the zero diagonal do not change under
  // reweighting), else normalized.edges. Throws UsageError on a negative
  // weight. The upload is ordered on `stream`.
  DeviceVerifier(const Graph& normalized, const std::vector<Edge>& matrix_edges, cudaStream_t stream);

  // The verdict on `matrix` (n = normalized.n), whose finite stored values
  // are the graph's distances plus h[i] - h[j] for `potentials` (empty: none).
  // Throws OverflowError, as the download would, when the lowest failing row
  // holds a distance beyond int32. Synchronizes `stream`.
  VerifyReport verify(const DeviceRows& matrix, const DevicePotentials& potentials, cudaStream_t stream,
                      RowPlacement placement = RowPlacement::automatic) const;

  // Only the kernel: the lowest failing row, or -1. Synchronizes `stream`.
  std::int64_t lowest_failing_row(const DeviceRows& matrix, const DevicePotentials& potentials, cudaStream_t stream,
                                  RowPlacement placement = RowPlacement::automatic) const;

  // True when some cycle has weight zero, so the kernel checks tight edges
  // per zero-weight component instead of per vertex.
  bool has_zero_weight_cycle() const { return edges_.rep != nullptr; }

 private:
  void check_matrix(const DeviceRows& matrix, const DevicePotentials& potentials) const;

  const Graph& normalized_;
  DeviceBuffer<vertex_t> tail_, head_, rep_, mark_;
  DeviceBuffer<weight_t> weight_;
  DeviceInEdges edges_;
};

// Strongly connected components of the zero-weight edges of `out`
// (iterative Tarjan, O(n + m)), each named by its lowest vertex.
// `any_cycle` tells whether some component has more than one vertex, i.e.
// whether the graph has a zero-weight cycle.
std::vector<vertex_t> zero_weight_components(const Csr& out, bool& any_cycle);

// One-shot form: DeviceVerifier(normalized, matrix_edges).verify(matrix, potentials).
VerifyReport verify_on_device(const Graph& normalized, const std::vector<Edge>& matrix_edges, const DeviceRows& matrix,
                              const DevicePotentials& potentials, cudaStream_t stream);

}  // namespace apsp::cuda
