// Streaming download of a device-resident result into an apsp::Sink.
//
// Row blocks of up to StagingTraits::kBufferBytes move through the device's
// reusable pinned staging set (staging.hpp), several copies in flight on two
// streams; while they run, the calling thread hands the oldest finished block
// to the sink from several OpenMP threads (so a host-matrix sink's memcpy or
// a file sink's pwrite runs in parallel). Every block reaches the sink as
// int32 rows: int16 results are widened (on the host or on the device, see
// Int16Widening), unreachable becomes kInf, and Johnson potentials are undone
// on the device. Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "device_rows.hpp"

namespace apsp::cuda {

// Where an int16 result becomes int32. Both are kept so the benchmark
// (bench/gpu_download_bench.cu) can compare them on the device.
enum class Int16Widening {
  host,    // int16 crosses the link (half the bytes); OpenMP threads widen
           // into the sink's own memory (row_address) or a staging buffer
  device,  // a kernel widens each block into device staging; int32 crosses
};

struct DownloadOptions {
  // Rows [first_row, first_row + rows) of the matrix; rows < 0 means through
  // the last row.
  std::int64_t first_row = 0;
  std::int64_t rows = -1;
  // For Stored::int16 without potentials; with potentials the device
  // widens, since it undoes the potentials in the same pass.
  Int16Widening int16_widening = Int16Widening::host;
  // When the sink exposes row_address() and the block crosses the link as
  // int32: page-lock the sink's memory (cudaHostRegister) for the download
  // and copy straight into it, skipping the staging buffers. Falls back to
  // staging when registration fails. Registering costs time per GiB, so this
  // is for measurement (see the benchmark) until it wins.
  bool register_sink_memory = false;
  // Called on the calling thread after each block reached the sink, with the
  // fraction of the requested rows done.
  std::function<void(double)> progress;
  // Called on the calling thread with each finished block (host memory,
  // `rows` rows of the matrix's columns() int32 entries, leading dimension `stride`) before it
  // goes to the sink; may rewrite rows in place (e.g. the host repair of
  // predecessor rows).
  std::function<void(std::int64_t first_row, std::int64_t rows, std::int32_t* data, std::int64_t stride)> patch;
};

struct DownloadStats {
  std::int64_t link_bytes = 0;   // bytes that crossed the host link
  std::int64_t blocks = 0;       // row blocks handed to the sink
  bool registered_sink = false;  // copies went straight into the sink's memory
};

// Puts rows of `matrix` into `sink` as int32 RowBlocks of `plane` (the sink's
// begin() has been called; commit() is the caller's). Distances: unreachable
// becomes kInf; with non-empty `potentials` a finite stored v at (i, j)
// becomes v - h[i] + h[j]. Predecessors: Stored::int32, no potentials, values
// copied as they are. Work on the device queued on `producer` before the call
// finishes before any copy starts. On return every block is in the sink.
// Throws OverflowError naming the first entry in row-major order whose
// distance leaves int32 ("distance i->j = d does not fit the int32 output"),
// UsageError for a bad matrix description, or what the sink throws; blocks of
// later rows may have reached the sink by then (discard() it).
DownloadStats download_to_sink(const DeviceRows& matrix, Plane plane, const DevicePotentials& potentials, Sink& sink,
                               const DownloadOptions& options, cudaStream_t producer);

// Row `row` of a distance matrix as the graph's int32 distances (the same
// widening, potentials and OverflowError as download_to_sink).
std::vector<dist_t> download_distance_row(const DeviceRows& matrix, const DevicePotentials& potentials,
                                          std::int64_t row, cudaStream_t producer);

}  // namespace apsp::cuda
