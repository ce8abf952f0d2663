// Out-of-core dense Floyd-Warshall on one GPU: the matrix stays in host
// memory and the device works through it super-tile by super-tile in the
// schedule of core/super_rounds.hpp, with the production fw kernels
// (kernels/dense): the diagonal super-tile closed by the fw rounds, every
// other product as rank-128 phase-3 updates (update_rest) through panels kept
// on the device. Copies in, compute and copies out run on three streams over
// a ring of three super-tile buffers, so the link works while the kernels do.
// The results are the in-core fw rounds' bit for bit (every entry ends as
// min(distance, the width's infinity) either way). fw_out_of_core_tagged is
// in-core fw's predecessor mode likewise: bit for bit at 128-wide super-tiles
// (in-core's own rounds), the same distances and shortest-path midpoints at
// wider ones. Host-safe header.
#pragma once

#include <cstdint>
#include <memory>

#include "apsp/solver.hpp"
#include "core/super_rounds.hpp"

namespace apsp::cuda {

// Bytes per second over the host link (host to device, page-locked) and
// cell updates per second of the phase-3 kernel, measured on the current
// device in about a tenth of a second.
struct OutOfCoreRates {
  double link_bytes_per_second = 0;
  double updates_per_second = 0;
};
OutOfCoreRates measure_out_of_core_rates(Precision precision);

// The shape for n vertices in `precision` (int32, or int16 with widths a
// multiple of 256): core::choose_super_shape with the device's free memory
// less 1 GiB (or `device_budget` bytes when > 0) and `rates` (measured when
// null). forced_width > 0 imposes the width. `predecessors`: the shape of
// fw_out_of_core_tagged (int32). Throws ResourceError when no width fits,
// UsageError for a width that is no multiple of the granule.
core::SuperShape out_of_core_shape(std::int64_t n, Precision precision, std::uint64_t device_budget,
                                   std::int64_t forced_width, const OutOfCoreRates* rates, bool predecessors = false);

struct OutOfCoreRun {
  std::int64_t first_round = 0;  // > 0: continue a solve whose host matrix holds that many super-rounds
  core::RoundBoundary at_boundary;
};

// Runs the super-rounds on `host`: shape.order() x shape.order() cells,
// row-major, each a non-negative distance or the width's infinity (kInf;
// kernels' kInf16 = 16383 for int16), 0 on the diagonal, padding vertices
// isolated; sums of two entries must not overflow (as in-core fw). Memory
// not page-locked is registered for the run. Throws ResourceError when the
// device buffers do not fit, DeviceError for a failed CUDA call.
void fw_out_of_core(std::int32_t* host, const core::SuperShape& shape, const OutOfCoreRun& run = {});
void fw_out_of_core(std::int16_t* host, const core::SuperShape& shape, const OutOfCoreRun& run = {});

// Predecessor mode, the in-core solver's (kernels/dense/tagged_predecessors.cuh):
// `tagged` holds min(d, kInfTagged) << kTagBits for the same matrix as above
// (tags 0), `mid` (order x order) -1 everywhere. Afterwards tagged holds the
// closed distances, still shifted and with tags 0, and mid[i][j] the last
// pivot vertex that improved d[i][j] (-1: none, the entry is the edge's own),
// from which predecessors follow as pred[i][j] = pred[mid[i][j]][j]. The
// caller certifies the tagged range (22 bits of distance). Both matrices are
// registered when not page-locked.
void fw_out_of_core_tagged(std::int32_t* tagged, std::int32_t* mid, const core::SuperShape& shape,
                           const OutOfCoreRun& run = {});

// fw_out_of_core's device engine on super-tiles that the caller keeps in
// host memory and addresses itself (a distributed rank's share,
// src/distributed/gpu_ooc_engine.cu): the same ring of three super-tiles,
// streams and kernels, step by step. Each call queues its copies and
// kernels and returns; finish() waits until every queued step has run and
// every host tile it writes is whole. A host tile must stay put (and not be
// written) until then. Host memory should be page-locked (else the copies
// run synchronously). Weights in int32 (kInf) or int16 (kInf16, widths a
// multiple of 256), non-negative as in fw_out_of_core; no predecessor mode.
class SuperTileEngine {
 public:
  // Device buffers for `row_tiles` column panels and `col_tiles` row panels
  // of width x width cells. Throws ResourceError when they do not fit,
  // UsageError for a width that is no multiple of the granule.
  SuperTileEngine(Precision precision, std::int64_t width, std::int64_t row_tiles, std::int64_t col_tiles);
  ~SuperTileEngine();
  SuperTileEngine(const SuperTileEngine&) = delete;
  SuperTileEngine& operator=(const SuperTileEngine&) = delete;

  // Device bytes of an engine of these dimensions (cell_bytes 4 or 2).
  static std::uint64_t device_bytes(std::int64_t width, std::int64_t row_tiles, std::int64_t col_tiles,
                                    std::int64_t cell_bytes);

  // One super-round step (core::SuperJob: diagonal, row_panel (keeps row
  // panel `col`), column_panel (keeps column panel `row`), update (through
  // those)) on the host super-tile at `tile`, leading dimension `ld` cells.
  void step(core::SuperJob::Step step, void* tile, std::int64_t ld, std::int64_t row, std::int64_t col);
  // Operands that another process stepped: the closed diagonal, row panel
  // `index` (as row_panel keeps it), column panel `index`.
  void load_pivot(const void* tile, std::int64_t ld);
  void load_row_panel(const void* tile, std::int64_t ld, std::int64_t index);
  void load_column_panel(const void* tile, std::int64_t ld, std::int64_t index);
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace apsp::cuda
