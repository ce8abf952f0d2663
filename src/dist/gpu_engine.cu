// The GPU engine of distributed blocked FW: one rank's tiles on its device,
// updated by the production kernels (src/cuda/kernels/dense/) run
// on sub-blocks. int32, non-negative (Johnson-reweighted) weights.
//
// Storage: the rank's R x C tiles of b = 128 as one row-major matrix of
// R*b rows and L = C*b columns (leading dimension L), so that its part of a
// tile row is one contiguous b x L block and update_rest runs on any
// rectangle of it:
//   C(tile rows [r0, r1), tile columns [c0, c1)) = min(C, A (x) B)
// with A from panel_t (the column panel transposed: panel_t[k][i] = A[i][k],
// leading dimension L as update_rest reads it, in chunks of C tile rows so
// that i stays below L) and B = the b x L row panel. A and B are always
// copies in the slot, never the tiles being written, so the products run
// on all tiles of a rectangle at once; a panel tile updated again through its
// own closed panels is unchanged (P' = min(P', D* (x) P') for P' = D* (x) P).
//
// Look-ahead: the panel phase runs on the panel stream (its kernels and the
// communicator calls, which are ordered on it); the rest of round k's update
// runs on the bulk stream, after the event "panels of round k ready", and the
// next round's first update waits for it, so round k+1's panel phase overlaps
// round k's bulk on the device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "cuda/check.hpp"
#include "cuda/instance.hpp"
#include "cuda/kernels/common/words.cuh"
#include "cuda/kernels/dense/close_diagonal.cuh"
#include "cuda/kernels/dense/traits.cuh"
#include "cuda/kernels/dense/update_rest.cuh"
#include "cuda/memory.hpp"
#include "dist/gpu_engine.hpp"
#include "dist/output.hpp"
#include "dist/reweighted_rows.hpp"

namespace apsp::dist {
namespace {

using Traits = cuda::kernels::ProductionTraits;
using Words = cuda::kernels::Int32Words;
constexpr std::int64_t kTile = Traits::kTile;
constexpr std::size_t kUpdateSharedBytes =
    sizeof(std::int32_t) * Traits::kStages * Traits::kChunk * 2 * Traits::kTile;
// update_rest skips tile row and column `kb`: none here.
constexpr int kNoSkip = std::numeric_limits<int>::max();

// to[k * to_ld + i] = from[i * from_ld + k] for i < rows, k < kTile.
// Consecutive threads take consecutive i, so the writes coalesce.
__global__ void transpose_columns(const std::int32_t* __restrict__ from, std::int64_t from_ld, std::int64_t rows,
                                  std::int32_t* __restrict__ to, std::int64_t to_ld) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < rows * kTile;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t k = x / rows, i = x - k * rows;
    to[k * to_ld + i] = from[i * from_ld + k];
  }
}

// Makes `device` current on this thread (before any stream or buffer of the
// engine is made) and returns it.
int select_device(int device) {
  int devices = 0;
  APSP_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (device < 0 || device >= devices)
    throw UsageError("CUDA device " + std::to_string(device) + " does not exist (found " + std::to_string(devices) + ")",
                     "device");
  APSP_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

int blocks_for(std::int64_t work, int threads) {
  return static_cast<int>(std::min<std::int64_t>((work + threads - 1) / threads, 4096));
}

class GpuEngine final : public TileEngine {
 public:
  GpuEngine(const Graph& normalized, const ProcessGrid& grid, const GpuEngineOptions& options)
      : grid_(grid),
        n_(normalized.n),
        rows_(grid.local_rows()),
        cols_(grid.local_cols()),
        width_(cols_ * kTile),
        overlap_(options.lookahead),
        device_(select_device(options.device)),
        reweighted_(cuda::reweight(normalized)) {
    APSP_CUDA_CHECK(cudaFuncSetAttribute(cuda::kernels::update_rest<Traits, Words>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kUpdateSharedBytes)));
    const std::size_t cells = static_cast<std::size_t>(rows_ * kTile * width_);
    const std::size_t chunks = static_cast<std::size_t>(cols_ > 0 ? (rows_ + cols_ - 1) / cols_ : 0);
    slot_cells_ = {static_cast<std::size_t>(kTile * width_), static_cast<std::size_t>(rows_ * kTile * kTile),
                   chunks * static_cast<std::size_t>(kTile * width_), static_cast<std::size_t>(kTile * kTile),
                   static_cast<std::size_t>(kTile * width_)};
    std::size_t slot_total = 0;
    for (std::size_t c : slot_cells_) slot_total += c;
    cuda::require_device_memory((cells + 2 * slot_total) * sizeof(std::int32_t) + (std::size_t{64} << 20),
                                "this rank's " + std::to_string(rows_) + " x " + std::to_string(cols_) + " tiles of " +
                                    std::to_string(kTile) + " and panel buffers");
    tiles_ = cuda::DeviceBuffer<std::int32_t>(cells);
    for (Slot& s : slots_) {
      s.row = cuda::DeviceBuffer<std::int32_t>(slot_cells_[0]);
      s.column = cuda::DeviceBuffer<std::int32_t>(slot_cells_[1]);
      s.panel_t = cuda::DeviceBuffer<std::int32_t>(slot_cells_[2]);
      s.pivot = cuda::DeviceBuffer<std::int32_t>(slot_cells_[3]);
      s.pivot_t = cuda::DeviceBuffer<std::int32_t>(slot_cells_[4]);
    }
    APSP_CUDA_CHECK(cudaEventCreateWithFlags(&panels_ready_, cudaEventDisableTiming));
    APSP_CUDA_CHECK(cudaEventCreateWithFlags(&bulk_done_, cudaEventDisableTiming));
    APSP_CUDA_CHECK(cudaEventCreate(&origin_));
    APSP_CUDA_CHECK(cudaEventRecord(origin_, panel_.get()));
    upload();
  }

  ~GpuEngine() override {
    for (auto& interval : intervals_) {
      cudaEventDestroy(interval.first);
      cudaEventDestroy(interval.second);
    }
    if (panels_ready_) cudaEventDestroy(panels_ready_);
    if (bulk_done_) cudaEventDestroy(bulk_done_);
    if (origin_) cudaEventDestroy(origin_);
  }

  Memory memory() const override { return Memory::device; }
  void* stream() const override { return panel_.get(); }

  std::int64_t close_pivot(std::int64_t k) override {
    timed(panel_.get(), [&] {
      cuda::kernels::close_diagonal<Traits, Words>
          <<<1, Traits::kThreads, 0, panel_.get()>>>(own(k / grid_.rows, k / grid_.cols), width_, 0, nullptr);
      APSP_CUDA_CHECK_LAUNCH("close_diagonal");
    });
    return -1;  // non-negative weights: no diagonal entry can go negative
  }

  Messages pivot_message(std::int64_t k, int slot) override {
    Slot& s = slots_[slot];
    if (grid_.owns_col(k)) copy_block(s.pivot.get(), kTile, own(k / grid_.rows, k / grid_.cols), width_, kTile);
    return {{s.pivot.get(), slot_cells_[3], DataType::int32}};
  }

  void update_row_panel(std::int64_t k, int slot) override {
    Slot& s = slots_[slot];
    if (cols_ == 0) return;  // no tile of this row panel here
    std::int32_t* row = own(k / grid_.rows, 0);
    timed(panel_.get(), [&] {
      // pivot_t[m][i] = D*[i][m]; the row panel is its own B operand (each
      // block reads B only from the tile it writes, and writes at the end).
      transpose(s.pivot.get(), kTile, kTile, s.pivot_t.get(), width_, panel_.get());
      product(row, s.pivot_t.get(), row, cols_, 1, panel_.get());
    });
  }

  Messages row_panel_message(std::int64_t k, int slot) override {
    Slot& s = slots_[slot];
    if (grid_.owns_row(k) && width_ > 0)
      APSP_CUDA_CHECK(cudaMemcpyAsync(s.row.get(), own(k / grid_.rows, 0), slot_cells_[0] * sizeof(std::int32_t),
                                      cudaMemcpyDeviceToDevice, panel_.get()));
    return {{s.row.get(), slot_cells_[0], DataType::int32}};
  }

  void update_column_panel(std::int64_t k, int slot) override {
    Slot& s = slots_[slot];
    std::int32_t* column = tiles_.get() + (k / grid_.cols) * kTile;  // tile column of k, leading dimension L
    const std::int32_t* pivot_rows = s.row.get() + (k / grid_.cols) * kTile;
    timed(panel_.get(), [&] {
      copy_block(s.column.get(), kTile, column, width_, rows_ * kTile);
      transpose_chunks(s, panel_.get());
      for_each_chunk(s, 0, rows_, [&](std::int64_t lo, std::int64_t hi, std::int32_t* a) {
        product(column + lo * kTile * width_, a, pivot_rows, 1, hi - lo, panel_.get());
      });
      copy_block(s.column.get(), kTile, column, width_, rows_ * kTile);
    });
  }

  Messages column_panel_message(std::int64_t, int slot) override {
    return {{slots_[slot].column.get(), slot_cells_[1], DataType::int32}};
  }

  void panels_ready(std::int64_t, int slot) override {
    timed(panel_.get(), [&] { transpose_chunks(slots_[slot], panel_.get()); });
    APSP_CUDA_CHECK(cudaEventRecord(panels_ready_, panel_.get()));
  }

  void start_update(std::int64_t k, int slot, TileSelection which) override {
    Slot& s = slots_[slot];
    const std::int64_t next_row = which.next >= 0 && grid_.owns_row(which.next) ? which.next / grid_.rows : -1;
    const std::int64_t next_col = which.next >= 0 && grid_.owns_col(which.next) ? which.next / grid_.cols : -1;
    (void)k;
    switch (which.part) {
      case TileSelection::Part::all:
        timed(panel_.get(), [&] { rectangle(s, 0, rows_, 0, cols_, panel_.get()); });
        break;
      case TileSelection::Part::early:
        // Round k's update of round k+1's panels, on the panel stream, after
        // the rest of round k-1 (which last wrote them).
        APSP_CUDA_CHECK(cudaStreamWaitEvent(panel_.get(), bulk_done_, 0));
        timed(panel_.get(), [&] {
          if (next_row >= 0) rectangle(s, next_row, next_row + 1, 0, cols_, panel_.get());
          if (next_col >= 0)
            for (auto [lo, hi] : around(next_row, rows_)) rectangle(s, lo, hi, next_col, next_col + 1, panel_.get());
        });
        break;
      case TileSelection::Part::rest:
        APSP_CUDA_CHECK(cudaStreamWaitEvent(bulk_.get(), panels_ready_, 0));
        timed(bulk_.get(), [&] {
          for (auto [r0, r1] : around(next_row, rows_))
            for (auto [c0, c1] : around(next_col, cols_)) rectangle(s, r0, r1, c0, c1, bulk_.get());
        });
        APSP_CUDA_CHECK(cudaEventRecord(bulk_done_, bulk_.get()));
        break;
    }
  }

  void finish_update() override {
    APSP_CUDA_CHECK(cudaStreamSynchronize(bulk_.get()));
    APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
  }

  std::int64_t negative_diagonal() override { return -1; }

  // The time some kernel ran: the union of the recorded intervals.
  double busy_seconds() const override {
    if (intervals_.empty()) return 0;
    APSP_CUDA_CHECK(cudaEventSynchronize(intervals_.back().second));
    std::vector<std::pair<float, float>> spans;
    for (const auto& [begin, end] : intervals_) {
      float b = 0, e = 0;
      APSP_CUDA_CHECK(cudaEventSynchronize(end));
      APSP_CUDA_CHECK(cudaEventElapsedTime(&b, origin_, begin));
      APSP_CUDA_CHECK(cudaEventElapsedTime(&e, origin_, end));
      spans.emplace_back(b, e);
    }
    std::sort(spans.begin(), spans.end());
    double busy_ms = 0;
    float open = spans[0].first, close = spans[0].second;
    for (const auto& [b, e] : spans) {
      if (b > close) {
        busy_ms += close - open;
        open = b;
      }
      close = std::max(close, e);
    }
    busy_ms += close - open;
    return busy_ms * 1e-3;
  }

  // The one-GPU certificate and the int32 output range, on every row of this
  // rank (check_reweighted_part).
  void check_output_range() override {
    std::vector<std::int32_t> part(static_cast<std::size_t>(kTile * width_));
    for (std::int64_t a = 0; a < rows_; ++a) {
      download_row(a, part.data());
      const std::int64_t first = grid_.global_row(a) * kTile;
      check_reweighted_part(part.data(), grid_, kTile, n_, first, std::min(kTile, n_ - first),
                            reweighted_.max_weight, reweighted_.potential);
    }
  }

  void deliver(Communicator* process_row, Sink& sink, const RowCheck& check) override {
    deliver_rows<std::int32_t>(
        grid_, n_, kTile, false, process_row, [&](std::int64_t a, std::int32_t* d, vertex_t*) { download_row(a, d); },
        [&](std::int64_t first, std::int64_t rows, const TileRowParts<std::int32_t>& parts, dist_t* dist, vertex_t*) {
          reweighted_parts_to_rows(parts, grid_, kTile, n_, first, rows, reweighted_.potential, dist);
        },
        sink, check);
  }

 private:
  struct Slot {
    cuda::DeviceBuffer<std::int32_t> row;      // b x L: this process column's part of the pivot tile row
    cuda::DeviceBuffer<std::int32_t> column;   // (R*b) x b: this process row's part of the pivot tile column
    cuda::DeviceBuffer<std::int32_t> panel_t;  // chunks of b x L: `column` transposed, C tile rows per chunk
    cuda::DeviceBuffer<std::int32_t> pivot;    // b x b: the closed pivot tile
    cuda::DeviceBuffer<std::int32_t> pivot_t;  // b x L: the pivot tile transposed (first b columns)
  };

  std::int32_t* own(std::int64_t a, std::int64_t b) const { return tiles_.get() + a * kTile * width_ + b * kTile; }

  // Builds this rank's tiles on the host from the reweighted edges inside
  // them (0 on the diagonal, kInf where there is no edge; padding vertices
  // isolated) and uploads them.
  void upload() {
    if (rows_ == 0 || cols_ == 0) return;
    std::vector<std::int32_t> host(static_cast<std::size_t>(rows_ * kTile * width_), kInf);
    for (std::int64_t a = 0; a < rows_; ++a)
      for (std::int64_t b = 0; b < cols_; ++b)
        if (grid_.global_row(a) == grid_.global_col(b))
          for (std::int64_t x = 0; x < kTile; ++x) host[static_cast<std::size_t>((a * kTile + x) * width_ + b * kTile + x)] = 0;
    for (const Edge& e : reweighted_.edges) {
      const std::int64_t I = e.src / kTile, J = e.dst / kTile;
      if (!grid_.owns_row(I) || !grid_.owns_col(J)) continue;
      const std::int64_t row = (I / grid_.rows) * kTile + e.src % kTile, col = (J / grid_.cols) * kTile + e.dst % kTile;
      host[static_cast<std::size_t>(row * width_ + col)] = e.w;
    }
    APSP_CUDA_CHECK(cudaMemcpyAsync(tiles_.get(), host.data(), host.size() * sizeof(std::int32_t),
                                    cudaMemcpyHostToDevice, panel_.get()));
    APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
  }

  void download_row(std::int64_t a, std::int32_t* to) const {
    if (width_ == 0) return;
    APSP_CUDA_CHECK(cudaMemcpyAsync(to, own(a, 0), static_cast<std::size_t>(kTile * width_) * sizeof(std::int32_t),
                                    cudaMemcpyDeviceToHost, panel_.get()));
    APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
  }

  // rows x b block from `from` (leading dimension from_ld) to `to` (to_ld).
  void copy_block(std::int32_t* to, std::int64_t to_ld, const std::int32_t* from, std::int64_t from_ld,
                  std::int64_t rows) const {
    if (rows <= 0 || width_ == 0) return;
    APSP_CUDA_CHECK(cudaMemcpy2DAsync(to, to_ld * sizeof(std::int32_t), from, from_ld * sizeof(std::int32_t),
                                      kTile * sizeof(std::int32_t), rows, cudaMemcpyDeviceToDevice, panel_.get()));
  }

  static void transpose(const std::int32_t* from, std::int64_t from_ld, std::int64_t rows, std::int32_t* to,
                        std::int64_t to_ld, cudaStream_t stream) {
    if (rows <= 0) return;
    constexpr int kThreads = 256;
    transpose_columns<<<blocks_for(rows * kTile, kThreads), kThreads, 0, stream>>>(from, from_ld, rows, to, to_ld);
    APSP_CUDA_CHECK_LAUNCH("transpose_columns");
  }

  // panel_t of `s` from its column panel: chunk q holds local rows
  // [q C b, (q+1) C b), so its columns stay below L.
  void transpose_chunks(Slot& s, cudaStream_t stream) const {
    if (cols_ == 0) return;
    for_each_chunk(s, 0, rows_, [&](std::int64_t lo, std::int64_t hi, std::int32_t* chunk) {
      transpose(s.column.get() + lo * kTile * kTile, kTile, (hi - lo) * kTile, chunk, width_, stream);
    });
  }

  // body(lo, hi, A) for the pieces of local tile rows [r0, r1) inside one
  // panel_t chunk of `s`, A = where the chunk's columns for row lo start.
  template <class F>
  void for_each_chunk(const Slot& s, std::int64_t r0, std::int64_t r1, F&& body) const {
    if (cols_ == 0) return;
    for (std::int64_t lo = r0; lo < r1;) {
      const std::int64_t q = lo / cols_, hi = std::min(r1, (q + 1) * cols_);
      body(lo, hi, s.panel_t.get() + q * kTile * width_ + (lo - q * cols_) * kTile);
      lo = hi;
    }
  }

  // c = min(c, a (x) b) on tiles_x x tiles_y tiles: c and b with leading
  // dimension L, a a panel_t (k-major, leading dimension L).
  void product(std::int32_t* c, const std::int32_t* a, const std::int32_t* b, std::int64_t tiles_x,
               std::int64_t tiles_y, cudaStream_t stream) const {
    if (tiles_x <= 0 || tiles_y <= 0) return;
    cuda::kernels::update_rest<Traits, Words>
        <<<dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(tiles_y)), Traits::kThreads, kUpdateSharedBytes,
           stream>>>(c, a, b, width_, kNoSkip, nullptr);
    APSP_CUDA_CHECK_LAUNCH("update_rest");
  }

  // Round update of local tiles [r0, r1) x [c0, c1) through the panels of `s`.
  void rectangle(Slot& s, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, cudaStream_t stream) {
    if (r0 >= r1 || c0 >= c1) return;
    for_each_chunk(s, r0, r1, [&](std::int64_t lo, std::int64_t hi, std::int32_t* a) {
      product(own(lo, c0), a, s.row.get() + c0 * kTile, c1 - c0, hi - lo, stream);
    });
  }

  // [0, count) without `skip` (-1: nothing skipped), as up to two ranges.
  static std::vector<std::pair<std::int64_t, std::int64_t>> around(std::int64_t skip, std::int64_t count) {
    if (skip < 0) return {{0, count}};
    return {{0, skip}, {skip + 1, count}};
  }

  // Runs `launch` on `stream` between two recorded events (busy_seconds).
  template <class F>
  void timed(cudaStream_t stream, F&& launch) {
    cudaEvent_t begin = nullptr, end = nullptr;
    APSP_CUDA_CHECK(cudaEventCreate(&begin));
    APSP_CUDA_CHECK(cudaEventCreate(&end));
    intervals_.emplace_back(begin, end);
    APSP_CUDA_CHECK(cudaEventRecord(begin, stream));
    launch();
    APSP_CUDA_CHECK(cudaEventRecord(end, stream));
  }

  const ProcessGrid grid_;
  const std::int64_t n_;
  const std::int64_t rows_, cols_;  // local tile rows R and columns C
  const std::int64_t width_;        // L = C * b
  const bool overlap_;
  const int device_;
  const cuda::Reweighted reweighted_;
  std::vector<std::size_t> slot_cells_;  // row, column, panel_t, pivot, pivot_t
  cuda::Stream panel_, bulk_;
  cuda::DeviceBuffer<std::int32_t> tiles_;
  Slot slots_[2];
  cudaEvent_t panels_ready_ = nullptr, bulk_done_ = nullptr, origin_ = nullptr;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> intervals_;
};

}  // namespace

std::int64_t gpu_tile() { return kTile; }

std::unique_ptr<TileEngine> make_gpu_engine(const Graph& normalized, const ProcessGrid& grid,
                                            const GpuEngineOptions& options) {
  return std::make_unique<GpuEngine>(normalized, grid, options);
}

}  // namespace apsp::dist
