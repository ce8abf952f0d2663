// What the CUDA backend's dispatchers share (backend.cpp for int32 weights,
// real_backend.cpp for float32 and float64): the registry lookup, the device
// choice, the host's warm-up while the device computes, and the
// predecessor download with the host's repair of rows that are not trees.
// Host-only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
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

// UsageError (option "algorithm") when opts.row_split is set and `algo` is
// not one of the row solvers (the sssp ladder, supernodal) that draw their
// rows from it.
void require_row_split_honoured(const GpuAlgorithm& algo, const SolveOptions& opts);

// Host work that overlaps the device's: the download's pinned staging
// buffers that a download of the result uses, page-locked before their
// first use (about 0.1 s for the whole pool of 192 MiB) and, for a result of at least
// kMinPreparedBytes, the sink's memory committed (Sink::prepare), on a side
// thread started at construction on the constructing thread's device. finish() waits for it and rethrows what it
// threw; the destructor (an error path) waits and drops it.
//
// Why the floor: the side thread touches every page with an OpenMP team of
// its own (a new thread has none), and small solves compute for less time
// than that takes. On the H100 host a 16 MiB result of `sssp` at n = 2048
// (2.8 ms of compute) downloaded in 1.35 ms with the pages faulted by the
// download's own parallel puts and in 3.65 ms waiting for the warm-up
// (docs/perf.md, Python on the H100, 2026-11-25), while a fresh 4 GiB host
// matrix faulted by the copies held the download to 15 GB/s.
class HostWarmup {
 public:
  static constexpr std::uint64_t kMinPreparedBytes = std::uint64_t{64} << 20;
  // result_bytes: the host bytes the solve's rows fill (both planes).
  HostWarmup(Sink& sink, std::uint64_t result_bytes);
  HostWarmup(const HostWarmup&) = delete;
  HostWarmup& operator=(const HostWarmup&) = delete;
  ~HostWarmup();
  void finish();

 private:
  std::exception_ptr failure_;
  std::thread thread_;
};

// The calling thread's current CUDA device. Every thread the backend starts
// sets it first (cudaSetDevice): a new thread starts on device 0.
int current_device();

// Checks that opts.device exists and makes it current. Throws
// ResourceError without a device, UsageError (option "device") for a bad ordinal.
void use_device(const SolveOptions& opts);

// use_device, then the device's primary context made ready (created here
// unless an earlier call or the CLI's helper thread did), timed into the
// solve's stage "device start": the CUDA start that was part of "other".
void start_device(const SolveOptions& opts, StageTimes& times);

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
