// What the CUDA backend's dispatchers share (backend.cpp for int32 weights,
// real_backend.cpp for float32 and float64): the registry lookup, the device
// choice, the sink's memory committed while the device computes, and the
// predecessor download with the host's repair of rows that are not trees.
// Host-only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"
#include "core/tight_edges.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/download.hpp"
#include "cuda/testing.hpp"

namespace apsp::cuda {

// The registry line of `name`; "auto" is the production solver.
const GpuAlgorithm& find_gpu_algorithm(const std::string& name);

// Checks that opts.device exists and makes it current. Throws
// ResourceError without a device, UsageError (option "device") for a bad ordinal.
void use_device(const SolveOptions& opts);

// Touches every page of the sink's own memory for an n x n result of
// `element_bytes` distances (and int32 predecessors), so the download's
// copies land in committed pages. Run while the device computes.
void commit_sink_memory(Sink& sink, std::int64_t n, std::size_t element_bytes, bool predecessors);

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Puts the predecessor plane (n x n int32 on the device, leading dimension
// ld) into `sink`. Rows listed in `broken_rows` (not trees: ties on
// zero-weight cycles) are rebuilt on the host as tight-edge trees over the
// graph `normalized`: fetch_row(i, row) fills `row` (n entries of D) with the
// graph's distances from i, and an edge is tight within `slack` (0 for
// integer distances).
template <class W, class D, class FetchRow>
void download_predecessors(const vertex_t* pred, std::int64_t n, std::int64_t ld, std::vector<std::int64_t> broken_rows,
                           const BasicGraph<W>& normalized, FetchRow fetch_row, double slack, Sink& sink,
                           cudaStream_t stream) {
  DownloadOptions options;
  std::sort(broken_rows.begin(), broken_rows.end());
  std::unique_ptr<BasicCsr<W>> csr;
  if (!broken_rows.empty()) {
    csr = std::make_unique<BasicCsr<W>>(to_csr(normalized));
    testing::hooks.repaired_rows += static_cast<std::int64_t>(broken_rows.size());
    // (fetch_row makes plain copies: the download in progress holds the staging pool.)
    options.patch = [&](std::int64_t first_row, std::int64_t count, std::int32_t* data, std::int64_t stride) {
      core::TightEdgeSearch search(n);
      std::vector<D> row(static_cast<std::size_t>(n));
      for (auto it = std::lower_bound(broken_rows.begin(), broken_rows.end(), first_row);
           it != broken_rows.end() && *it < first_row + count; ++it) {
        fetch_row(*it, row.data());
        core::tight_predecessor_row(*csr, row.data(), static_cast<vertex_t>(*it), data + (*it - first_row) * stride,
                                    search, slack);
      }
    };
  }
  download_to_sink(DeviceRows::of_int32(pred, n, ld), Plane::predecessors, DevicePotentials{}, sink, options, stream);
}

}  // namespace apsp::cuda
