// The GPU engine of distributed fw out of core per rank (issue 24): the
// rank's tiles are super-tiles of width W (the agreed super width) kept in
// page-locked host memory, tile after tile (local tile (a, b) at
// (a * C + b) * W^2, W x W row-major), so that a rank's part of a tile row is
// one contiguous message, as on CPU ranks out of core (cpu_engine.cpp). The
// device is the engine: every step of a round streams the super-tiles it
// writes through fw_out_of_core's ring of three buffers and its kernels
// (cuda::SuperTileEngine), so a round is the one-GPU fw-ooc super-round of
// width W, spread over the ranks:
//   close_pivot           the diagonal step on the owner's tile (k, k)
//   update_row_panel      the pivot (own, or the broadcast copy) loaded, then
//                         each tile (k, J) of this rank stepped as a row panel
//   update_column_panel   the pivot from the row panel message loaded, then
//                         each tile (I, k) stepped as a column panel, copied
//                         into the slot for the broadcast
//   panels_ready          the slot's row and column panels loaded on the device
//   start_update          each selected tile streamed through the update
// With look-ahead the panel steps run on a second SuperTileEngine (its own
// ring, pivot and streams), so that round k+1's panel phase overlaps the
// rest of round k's update, which stays queued on the first until
// finish_update; the two touch disjoint tiles (TileSelection's early part,
// finished before, holds every tile of row and column k+1).
// Weights: Johnson-reweighted int32 (kInf unreachable), as the in-core GPU
// engine, or an int16 attempt (kInf16) that solve_distributed certifies and
// reruns in int32. Panels travel between ranks from host memory
// (memory() == host). Predecessors are the tight-edge trees of each
// delivered row, on the host, as in core. Round checkpoints hold the host
// tiles themselves.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "core/csr.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/fw_out_of_core.hpp"
#include "cuda/instance.hpp"
#include "cuda/kernels/common/words.cuh"
#include "cuda/range_rule.hpp"
#include "distributed/gpu_engine.hpp"
#include "distributed/gpu_problem.hpp"
#include "distributed/memory_plan.hpp"
#include "distributed/output.hpp"
#include "distributed/reweighted_rows.hpp"

namespace apsp::dist {
namespace {

using Step = core::SuperJob::Step;

using OocProblem = GpuProblem;

// `count` cells of page-locked host memory for `what`: ResourceError naming
// the bytes when the host cannot lock them.
template <class S>
cuda::PinnedBuffer<S> pinned(std::size_t count, const char* what) {
  try {
    return cuda::PinnedBuffer<S>(count);
  } catch (const ResourceError&) {
    throw ResourceError("cannot page-lock " + std::to_string(count * sizeof(S)) + " bytes of host memory for " + what +
                        " (GPU ranks out of core keep their share in host memory)");
  }
}

template <class S>
class GpuOocEngine final : public TileEngine {
  static constexpr Precision kPrecision = std::is_same<S, std::int16_t>::value ? Precision::int16 : Precision::int32;
  static constexpr S kStoredInfinity =
      static_cast<S>(std::is_same<S, std::int16_t>::value ? cuda::kernels::kInf16 : kInf);

 public:
  GpuOocEngine(std::shared_ptr<const OocProblem> problem, const ProcessGrid& grid, std::int64_t width,
               const GpuEngineOptions& options)
      : problem_(std::move(problem)),
        grid_(grid),
        n_(problem_->n),
        w_(width),
        cells_(width * width),
        rows_(grid.local_rows()),
        cols_(grid.local_cols()),
        device_(select_device(options.device)),
        own_(pinned<S>(static_cast<std::size_t>(rows_ * cols_ * cells_), "this rank's share")),
        slots_{Slot(rows_, cols_, cells_), Slot(rows_, cols_, cells_)},
        tiles_(kPrecision, width, rows_, cols_),
        panel_engine_(options.lookahead ? panel_engine(width) : nullptr) {
    build();
  }

  const std::shared_ptr<const OocProblem>& problem() const { return problem_; }

  Memory memory() const override { return Memory::host; }
  Precision precision() const override {
    return std::is_same<S, std::int16_t>::value ? Precision::int16 : Precision::int32;
  }

  std::int64_t close_pivot(std::int64_t k) override {
    const Busy busy(*this);
    const std::int64_t a = k / grid_.rows, b = k / grid_.cols;
    panel().step(Step::diagonal, own(a, b), w_, 0, 0);
    panel().finish();
    return -1;  // non-negative weights: no diagonal entry can go negative
  }

  Messages pivot_message(std::int64_t k, int slot) override {
    if (grid_.owns_col(k)) return {message(own(k / grid_.rows, k / grid_.cols), 1)};
    return {message(slots_[slot].pivot.get(), 1)};
  }

  void update_row_panel(std::int64_t k, int slot) override {
    const Busy busy(*this);
    const std::int64_t a = k / grid_.rows;
    panel().load_pivot(grid_.owns_col(k) ? own(a, k / grid_.cols) : slots_[slot].pivot.get(), w_);
    for (std::int64_t b = 0; b < cols_; ++b)
      if (grid_.global_col(b) != k) panel().step(Step::row_panel, own(a, b), w_, 0, panel_index(b));
    panel().finish();
  }

  Messages row_panel_message(std::int64_t k, int slot) override {
    if (grid_.owns_row(k)) return {message(own(k / grid_.rows, 0), cols_)};
    return {message(slots_[slot].row.get(), cols_)};
  }

  void update_column_panel(std::int64_t k, int slot) override {
    const Busy busy(*this);
    const std::int64_t b = k / grid_.cols;
    panel().load_pivot(row_panel_tile(k, slot, b), w_);
    for (std::int64_t a = 0; a < rows_; ++a)
      if (grid_.global_row(a) != k) panel().step(Step::column_panel, own(a, b), w_, panel_index(a), 0);
    panel().finish();
    for (std::int64_t a = 0; a < rows_; ++a)
      std::memcpy(slots_[slot].column.get() + a * cells_, own(a, b), sizeof(S) * static_cast<std::size_t>(cells_));
  }

  Messages column_panel_message(std::int64_t, int slot) override { return {message(slots_[slot].column.get(), rows_)}; }

  // The update engine keeps one set of panels: round k's are queued here
  // behind whatever of round k - 1's update is still queued (one compute
  // stream orders them), from the slot's host buffers, which stay untouched
  // until round k + 2's broadcasts, after finish_update.
  void panels_ready(std::int64_t k, int slot) override {
    const Busy busy(*this);
    for (std::int64_t b = 0; b < cols_; ++b) tiles_.load_row_panel(row_panel_tile(k, slot, b), w_, b);
    for (std::int64_t a = 0; a < rows_; ++a) tiles_.load_column_panel(slots_[slot].column.get() + a * cells_, w_, a);
  }

  // Queues the selected tiles' updates and returns; finish_update waits.
  // With look-ahead the panel phase of round k + 1 meanwhile runs on the
  // panel engine, on tiles that the rest of round k does not touch.
  void start_update(std::int64_t k, int, TileSelection which) override {
    enter();
    for (std::int64_t a = 0; a < rows_; ++a)
      for (std::int64_t b = 0; b < cols_; ++b)
        if (which.selects(k, grid_.global_row(a), grid_.global_col(b))) tiles_.step(Step::update, own(a, b), w_, a, b);
    updating_ = true;
  }
  void finish_update() override {
    tiles_.finish();
    if (std::exchange(updating_, false)) leave();
  }

  std::int64_t negative_diagonal() override { return -1; }

  double busy_seconds() const override { return busy_; }

  // int16: the quick range certificate (cuda/range_rule.hpp) over this
  // rank's host tiles.
  bool range_certified() override {
    if constexpr (!std::is_same<S, std::int16_t>::value) {
      return true;
    } else {
      int largest = INT_MIN;
      const S* const d = own_.get();
      for (std::size_t x = 0; x < own_.size(); ++x)
        if (d[x] < kStoredInfinity && d[x] > largest) largest = d[x];
      return cuda::range_holds_below(largest, kStoredInfinity, problem_->reweighted.max_weight);
    }
  }

  void check_output_range() override {}

  void deliver(Communicator* process_row, Sink& sink, const RowCheck& check) override {
    range_problem_.clear();
    const auto fill = [&](std::int64_t a, std::int32_t* d, vertex_t*) {
      const std::int64_t row_width = cols_ * w_;
      for (std::int64_t b = 0; b < cols_; ++b) {
        const S* t = own(a, b);
        for (std::int64_t x = 0; x < w_; ++x) {
          std::int32_t* to = d + x * row_width + b * w_;
          const S* from = t + x * w_;
          if constexpr (std::is_same<S, std::int32_t>::value) {
            std::memcpy(to, from, sizeof(S) * static_cast<std::size_t>(w_));
          } else {
            for (std::int64_t y = 0; y < w_; ++y) to[y] = from[y] >= kStoredInfinity ? kInf : from[y];
          }
        }
      }
    };
    deliver_rows<std::int32_t, dist_t>(
        grid_, n_, w_, problem_->predecessors, false, process_row, fill,
        [&](std::int64_t first, std::int64_t rows, const TileRowParts<std::int32_t>& parts, dist_t* dist,
            vertex_t* pred) {
          const std::string found = reweighted_parts_to_rows(
              parts, grid_, w_, n_, first, rows, problem_->reweighted.potential, problem_->reweighted.max_weight, dist);
          if (!found.empty() && range_problem_.empty()) range_problem_ = found;
          if (pred && found.empty()) tight_edge_predecessor_rows(problem_->out_edges, n_, first, rows, dist, pred);
        },
        sink, check);
  }

  void check_delivered_range() override {
    if (!range_problem_.empty()) throw OverflowError(range_problem_);
  }

  // Round checkpoints: the host tiles are the whole state.
  std::vector<RoundState::Buffer> state_buffers() override { return {{own_.get(), own_.size() * sizeof(S)}}; }
  std::string state_layout() const override {
    return "distributed gpu out-of-core super-tiles of " + std::to_string(sizeof(S)) + "-byte integers, width " +
           std::to_string(w_) + ", grid " + std::to_string(grid_.rows) + "x" + std::to_string(grid_.cols) + " at " +
           std::to_string(grid_.row) + "," + std::to_string(grid_.col) + ", n " + std::to_string(n_);
  }

 private:
  struct Slot {
    Slot(std::int64_t rows, std::int64_t cols, std::int64_t cells)
        : pivot(pinned<S>(static_cast<std::size_t>(cells), "a pivot slot")),
          row(pinned<S>(static_cast<std::size_t>(std::max<std::int64_t>(cols, 1) * cells), "a row panel slot")),
          column(pinned<S>(static_cast<std::size_t>(std::max<std::int64_t>(rows, 1) * cells), "a column panel slot")) {}
    cuda::PinnedBuffer<S> pivot, row, column;  // W^2, C W^2, R W^2 cells
  };

  // busy_seconds: the wall time during which some step was queued or
  // running (the union of the panel calls and of each update from
  // start_update to finish_update; all on the rank's one calling thread).
  void enter() {
    if (depth_++ == 0) since_ = std::chrono::steady_clock::now();
  }
  void leave() {
    if (--depth_ == 0) busy_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
  }
  class Busy {
   public:
    explicit Busy(GpuOocEngine& e) : engine_(e) { engine_.enter(); }
    ~Busy() { engine_.leave(); }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    GpuOocEngine& engine_;
  };

  // The second engine of look-ahead, or none when the device cannot hold it
  // beside the first (the rounds then run without overlap).
  static std::unique_ptr<cuda::SuperTileEngine> panel_engine(std::int64_t width) {
    try {
      return std::make_unique<cuda::SuperTileEngine>(kPrecision, width, 1, 1);
    } catch (const ResourceError&) {
      return nullptr;
    }
  }

  // The engine of the panel phase: a second one with look-ahead (its own
  // ring, pivot and streams, one panel slot), else the update engine.
  cuda::SuperTileEngine& panel() { return panel_engine_ ? *panel_engine_ : tiles_; }
  // Where a panel step keeps its panel: the update engine's slot, or the
  // panel engine's one slot (its kept panels are never read: the update
  // engine loads the broadcast ones in panels_ready).
  std::int64_t panel_index(std::int64_t index) const { return panel_engine_ ? 0 : index; }

  S* own(std::int64_t a, std::int64_t b) const { return own_.get() + (a * cols_ + b) * cells_; }

  // Tile (k, J) for this process column's b-th J: own on the pivot process row.
  S* row_panel_tile(std::int64_t k, int slot, std::int64_t b) {
    return grid_.owns_row(k) ? own(k / grid_.rows, b) : slots_[slot].row.get() + b * cells_;
  }

  // `tiles` super-tiles as a message: int32 as itself, int16 as bytes.
  Message message(S* data, std::int64_t tiles) const {
    const auto count = static_cast<std::size_t>(tiles * cells_);
    if constexpr (std::is_same<S, std::int16_t>::value)
      return {data, count * sizeof(S), DataType::uint8};
    else
      return {data, count, DataType::int32};
  }

  // The identity (padding vertices isolated), then this rank's reweighted edges.
  void build() {
    for (std::int64_t a = 0; a < rows_; ++a)
      for (std::int64_t b = 0; b < cols_; ++b) {
        S* t = own(a, b);
        const std::int64_t I = grid_.global_row(a), J = grid_.global_col(b);
        for (std::int64_t x = 0; x < cells_; ++x) t[x] = kStoredInfinity;
        if (I == J)
          for (std::int64_t x = 0; x < w_; ++x) t[x * w_ + x] = 0;
      }
    for (const Edge& e : problem_->reweighted.edges) {
      const std::int64_t I = e.src / w_, J = e.dst / w_;
      if (!grid_.owns_row(I) || !grid_.owns_col(J)) continue;
      own(I / grid_.rows, J / grid_.cols)[(e.src % w_) * w_ + e.dst % w_] = static_cast<S>(e.w);
    }
  }

  const std::shared_ptr<const OocProblem> problem_;
  const ProcessGrid grid_;
  const std::int64_t n_, w_, cells_;
  const std::int64_t rows_, cols_;  // local super-tile rows R and columns C
  const int device_;
  cuda::PinnedBuffer<S> own_;
  Slot slots_[2];
  // Last, so that they go first: their destructors wait for the streams
  // that may still copy into own_ and the slots.
  cuda::SuperTileEngine tiles_;                          // the updates (and, without look-ahead, everything)
  std::unique_ptr<cuda::SuperTileEngine> panel_engine_;  // with look-ahead: the panel phase
  bool updating_ = false;                                // start_update queued work that finish_update ends
  int depth_ = 0;
  std::chrono::steady_clock::time_point since_;
  double busy_ = 0;
  std::string range_problem_;
};

}  // namespace

std::unique_ptr<TileEngine> make_gpu_ooc_engine(const Graph& normalized, const ProcessGrid& grid, std::int64_t width,
                                                const GpuEngineOptions& options) {
  select_device(options.device);
  const std::shared_ptr<const OocProblem> problem = make_gpu_problem(normalized, options.predecessors);
  const bool int16 =
      attempt_int16(*problem, options.precision, width % 256 == 0,
                    "out of core per rank, the super width " + std::to_string(width) + " must be a multiple of 256");
  if (int16) return std::make_unique<GpuOocEngine<std::int16_t>>(problem, grid, width, options);
  return std::make_unique<GpuOocEngine<std::int32_t>>(problem, grid, width, options);
}

std::unique_ptr<TileEngine> widen_gpu_ooc_engine(std::unique_ptr<TileEngine> attempt, const ProcessGrid& grid,
                                                 std::int64_t width, const GpuEngineOptions& options) {
  auto* narrow = dynamic_cast<GpuOocEngine<std::int16_t>*>(attempt.get());
  if (narrow == nullptr) throw Error("widen_gpu_ooc_engine: not an int16 attempt of the out-of-core GPU engine");
  std::shared_ptr<const OocProblem> problem = narrow->problem();
  attempt.reset();  // its buffers first
  return std::make_unique<GpuOocEngine<std::int32_t>>(std::move(problem), grid, width, options);
}

}  // namespace apsp::dist
