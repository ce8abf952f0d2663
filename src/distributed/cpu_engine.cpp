// The CPU engine of distributed blocked FW: one rank's tiles in host memory,
// updated with fw-blocked's tile steps (src/cpu/fw_tiles.hpp), in int32 or
// int64 for int32 weights and in the weight type itself for float and double
// (+inf for a missing edge, as fw-blocked). Tiles are
// b x b blocks, stored tile after tile (local tile (a, b) at
// (a * C + b) * b^2), so that a rank's part of a tile row is one contiguous
// message. b is fw-blocked's kTile, or with a super width (out of core per
// rank, CpuEngineOptions::super_width) m * kTile: each tile is then a
// super-tile of m x m kTile tiles stored tile after tile, and its steps are
// fw-ooc's (src/cpu/floyd_warshall.cpp, core/super_rounds.hpp): the closure
// of the pivot super-tile by fw-blocked's rounds, and every other step m tile
// products per kTile tile, in the same order, so the rounds are the
// single-process fw-ooc schedule of that width.
//
// Threads: with look-ahead the tile updates run on a worker thread (its
// OpenMP team) while this thread runs the panel steps serially and talks to
// the other ranks; without, everything runs here, panel steps in parallel
// too. Either way only one OpenMP team is busy at a time.
#include "distributed/cpu_engine.hpp"
#include "distributed/memory_plan.hpp"
#include "distributed/output.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "core/first_error.hpp"
#include "core/tight_edges.hpp"
#include "cpu/backend.hpp"
#include "cpu/fw_tiles.hpp"

namespace apsp::dist {
namespace {

using cpu::detail::Block;
using cpu::detail::kTile;
using cpu::detail::kTileCells;
using cpu::detail::Step;
using cpu::detail::StepArgs;

// Seconds during which at least one kernel ran, from any thread.
class BusyClock {
 public:
  class Scope {
   public:
    explicit Scope(BusyClock& c) : clock_(c) { clock_.enter(); }
    ~Scope() { clock_.leave(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    BusyClock& clock_;
  };
  double seconds() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return busy_;
  }

 private:
  void enter() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (depth_++ == 0) since_ = std::chrono::steady_clock::now();
  }
  void leave() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--depth_ == 0) busy_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
  }
  mutable std::mutex mutex_;
  int depth_ = 0;
  std::chrono::steady_clock::time_point since_;
  double busy_ = 0;
};

// One task at a time on a thread of its own; wait() rethrows its exception.
class Worker {
 public:
  Worker() : thread_([this] { loop(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  void start(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = std::move(task);
    busy_ = true;
    changed_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !busy_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stop_ || task_; });
      if (!task_) return;
      std::function<void()> task = std::move(task_);
      task_ = nullptr;
      lock.unlock();
      std::exception_ptr error;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      error_ = error;
      busy_ = false;
      changed_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> task_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

// `tiles` tiles of each plane: distances, and with predecessors the
// predecessor plane.
template <class D, bool kPred>
struct Planes {
  std::int64_t tile_cells;
  std::vector<D> d;
  std::vector<vertex_t> p;

  Planes(std::int64_t tiles, std::int64_t cells)
      : tile_cells(cells),
        d(static_cast<std::size_t>(tiles * cells)),
        p(kPred ? static_cast<std::size_t>(tiles * cells) : 0) {}

  Block<D> tile(std::int64_t t) {
    const std::size_t at = static_cast<std::size_t>(t * tile_cells);
    return Block<D>{d.data() + at, kPred ? p.data() + at : nullptr};
  }
  Messages message(std::int64_t first, std::int64_t count) {
    const std::size_t at = static_cast<std::size_t>(first * tile_cells),
                      cells = static_cast<std::size_t>(count * tile_cells);
    Messages m{{d.data() + at, cells, DataTypeOf<D>::value}};
    if (kPred) {
      m.push_back({p.data() + at, cells, DataType::int32});
    }
    return m;
  }
};

// The output (and weight) type of distances computed in D: int32 for the
// integer engines (int64 narrows on delivery), D itself for float and double.
template <class D>
using OutputOf = std::conditional_t<std::is_floating_point<D>::value, D, dist_t>;

template <class D, bool kPred>
class CpuEngine final : public TileEngine {
 public:
  using W = OutputOf<D>;

  CpuEngine(const BasicGraph<W>& g, const ProcessGrid& grid, const CpuEngineOptions& options)
      : grid_(grid),
        n_(g.n),
        m_(options.super_width > 0 ? options.super_width / kTile : 1),
        b_(m_ * kTile),
        cells_(b_ * b_),
        rows_(grid.local_rows()),
        cols_(grid.local_cols()),
        threads_(options.threads),
        overlap_(options.lookahead),
        step_(cpu::detail::tile_step<D, kPred>()),
        negative_below_(static_cast<D>(-options.negative_tolerance)),
        slack_(options.negative_tolerance),
        repair_edges_(kPred ? to_csr(g) : BasicCsr<W>{}),
        own_(rows_ * cols_, cells_),
        slots_{Slot(rows_, cols_, cells_), Slot(rows_, cols_, cells_)} {
    if (overlap_) worker_ = std::make_unique<Worker>();
    build(g);
  }

  Memory memory() const override { return Memory::host; }
  // The arithmetic the tiles compute in: int64 where int32 sums could overflow.
  Precision precision() const override {
    return std::is_same<D, std::int64_t>::value ? Precision::int64 : Precision::int32;
  }

  std::int64_t close_pivot(std::int64_t k) override {
    BusyClock::Scope busy(clock_);
    const Block<D> t = own(k / grid_.rows, k / grid_.cols);
    const std::int64_t pivot = m_ == 1 ? step_(StepArgs<D>{Step::diagonal, t, t, t, negative_below_})
                                       : close_super_pivot(t);
    if (pivot >= 0) fill_identity(t, k, k);
    return pivot;
  }

  Messages pivot_message(std::int64_t k, int slot) override {
    if (grid_.owns_col(k)) return own_.message(local_index(k / grid_.rows, k / grid_.cols), 1);
    return slots_[slot].pivot.message(0, 1);
  }

  void update_row_panel(std::int64_t k, int slot) override {
    const std::int64_t a = k / grid_.rows;
    const Block<D> pivot = grid_.owns_col(k) ? own(a, k / grid_.cols) : slots_[slot].pivot.tile(0);
    run_tiles(cols_, !overlap_, [&](std::int64_t b) {
      if (grid_.global_col(b) != k) tile_step(Step::row_panel, own(a, b), pivot, pivot);
    });
  }

  Messages row_panel_message(std::int64_t k, int slot) override {
    if (grid_.owns_row(k)) return own_.message(local_index(k / grid_.rows, 0), cols_);
    return slots_[slot].row.message(0, cols_);
  }

  void update_column_panel(std::int64_t k, int slot) override {
    const std::int64_t b = k / grid_.cols;
    const Block<D> pivot = row_panel_tile(k, slot, b);
    Planes<D, kPred>& column = slots_[slot].column;
    run_tiles(rows_, !overlap_, [&](std::int64_t a) {
      const Block<D> t = own(a, b);
      if (grid_.global_row(a) != k) tile_step(Step::column_panel, t, pivot, pivot);
      copy_tile(column.tile(a), t);
    });
  }

  Messages column_panel_message(std::int64_t, int slot) override { return slots_[slot].column.message(0, rows_); }

  void start_update(std::int64_t k, int slot, TileSelection which) override {
    selected_.clear();
    for (std::int64_t a = 0; a < rows_; ++a)
      for (std::int64_t b = 0; b < cols_; ++b)
        if (which.selects(k, grid_.global_row(a), grid_.global_col(b))) selected_.push_back(local_index(a, b));
    auto task = [this, k, slot] {
      Planes<D, kPred>& column = slots_[slot].column;
      run_tiles(static_cast<std::int64_t>(selected_.size()), true, [&](std::int64_t x) {
        const std::int64_t t = selected_[static_cast<std::size_t>(x)], a = t / cols_, b = t % cols_;
        tile_step(Step::update, own_.tile(t), column.tile(a), row_panel_tile(k, slot, b));
      });
    };
    if (worker_)
      worker_->start(task);
    else
      task();
  }

  void finish_update() override {
    if (worker_) worker_->wait();
  }

  std::int64_t negative_diagonal() override {
    for (std::int64_t a = 0; a < rows_; ++a) {
      const std::int64_t I = grid_.global_row(a);
      if (!grid_.owns_col(I)) continue;
      const Block<D> t = own(a, I / grid_.cols);
      for (std::int64_t x = 0; x < b_; ++x)
        if (t.d[cell(x, x)] < negative_below_) return I * b_ + x;
    }
    return -1;
  }

  bool candidate_negative_diagonal() override {
    if constexpr (std::is_floating_point<D>::value) {
      for (std::int64_t a = 0; a < rows_; ++a) {
        const std::int64_t I = grid_.global_row(a);
        if (!grid_.owns_col(I)) continue;
        const Block<D> t = own(a, I / grid_.cols);
        for (std::int64_t x = 0; x < b_; ++x)
          if (t.d[cell(x, x)] < 0) return true;
      }
    }
    return false;
  }

  double busy_seconds() const override { return clock_.seconds(); }

  void check_output_range() override {
    if constexpr (std::is_same<D, std::int64_t>::value) {
      constexpr D unreachable_above = cpu::detail::infinity<D>() / 2;
      for (std::int64_t a = 0; a < rows_; ++a)
        for (std::int64_t b = 0; b < cols_; ++b) {
          const D* d = own(a, b).d;
          const std::int64_t i0 = grid_.global_row(a) * b_, j0 = grid_.global_col(b) * b_;
          for (std::int64_t x = 0; x < b_ && i0 + x < n_; ++x)
            for (std::int64_t y = 0; y < b_ && j0 + y < n_; ++y)
              if (d[cell(x, y)] <= unreachable_above) cpu::detail::to_output(d[cell(x, y)], i0 + x, j0 + y);
        }
    }
  }

  void deliver(Communicator* process_row, Sink& sink, const RowCheck& check) override {
    // This rank's part of tile row a, tiles side by side, row-major (each
    // row of a tile m pieces of kTile cells).
    auto fill = [&](std::int64_t a, D* d, vertex_t* p) {
      const std::int64_t width = cols_ * b_;
      for (std::int64_t b = 0; b < cols_; ++b) {
        const Block<D> t = own(a, b);
        for (std::int64_t x = 0; x < b_; ++x)
          for (std::int64_t y = 0; y < b_; y += kTile) {
            std::memcpy(d + x * width + b * b_ + y, t.d + cell(x, y), sizeof(D) * kTile);
            if (p) std::memcpy(p + x * width + b * b_ + y, t.p + cell(x, y), sizeof(vertex_t) * kTile);
          }
      }
    };
    deliver_rows<D, W>(
        grid_, n_, b_, kPred, kPred, process_row, fill,
        [&](std::int64_t first, std::int64_t rows, const TileRowParts<D>& parts, W* dist, vertex_t* pred) {
          to_rows(parts, first, rows, dist, pred);
        },
        sink, check);
  }

 private:
  struct Slot {
    Slot(std::int64_t rows, std::int64_t cols, std::int64_t cells)
        : pivot(1, cells), row(cols, cells), column(rows, cells) {}
    Planes<D, kPred> pivot, row, column;
  };

  std::int64_t local_index(std::int64_t a, std::int64_t b) const { return a * cols_ + b; }
  // Cell (x, y) of a tile: row-major for m = 1, else in its kTile tile.
  std::int64_t cell(std::int64_t x, std::int64_t y) const {
    return ((x / kTile) * m_ + y / kTile) * kTileCells + (x % kTile) * kTile + y % kTile;
  }
  // The kTile tile (x, y) of tile t, x, y < m.
  Block<D> sub(Block<D> t, std::int64_t x, std::int64_t y) const {
    const std::int64_t at = (x * m_ + y) * kTileCells;
    return Block<D>{t.d + at, kPred ? t.p + at : nullptr};
  }

  // One panel or update step on whole tiles: fw-blocked's step for m = 1;
  // else fw-ooc's: every kTile tile (a, c) of the target gets its m products
  // (left (a, b) with right (b, c), b ascending), the panels through a copy of
  // the target they overwrite (the step takes no aliased operands).
  void tile_step(Step step, Block<D> target, Block<D> left, Block<D> right) const {
    if (m_ == 1) {
      step_(StepArgs<D>{step, target, left, right});
      return;
    }
    std::vector<D> old_d;
    std::vector<vertex_t> old_p;
    if (step != Step::update) {
      old_d.assign(target.d, target.d + cells_);
      if (kPred) old_p.assign(target.p, target.p + cells_);
      const Block<D> old{old_d.data(), kPred ? old_p.data() : nullptr};
      (step == Step::row_panel ? right : left) = old;
    }
    for (std::int64_t a = 0; a < m_; ++a)
      for (std::int64_t c = 0; c < m_; ++c)
        for (std::int64_t b = 0; b < m_; ++b)
          step_(StepArgs<D>{Step::update, sub(target, a, c), sub(left, a, b), sub(right, b, c)});
  }

  // fw-ooc's closure of a pivot super-tile: fw-blocked's rounds over its
  // m x m kTile tiles, its diagonal checked after each. Returns the offset of
  // the pivot whose step made a diagonal entry negative, or of the first
  // negative diagonal entry after a round (as fw-ooc reports them), else -1.
  std::int64_t close_super_pivot(Block<D> t) {
    const auto block = [&](std::int64_t x, std::int64_t y) { return sub(t, x, y); };
    for (std::int64_t r = 0; r < m_; ++r) {
      try {
        cpu::detail::blocked_round(step_, block, 0, m_, r, negative_below_, overlap_ ? 1 : threads_);
      } catch (const NegativeCycleError& e) {
        return e.vertex();
      }
      for (std::int64_t x = 0; x < b_; ++x)
        if (t.d[cell(x, x)] < negative_below_) return x;
    }
    return -1;
  }
  Block<D> own(std::int64_t a, std::int64_t b) { return own_.tile(local_index(a, b)); }

  // Tile (k, J) for this process column's b-th J: own on the pivot process row.
  Block<D> row_panel_tile(std::int64_t k, int slot, std::int64_t b) {
    return grid_.owns_row(k) ? own(k / grid_.rows, b) : slots_[slot].row.tile(b);
  }

  // body(x) for x in [0, count): on this rank's threads, or serially here
  // while a worker runs the updates.
  template <class F>
  void run_tiles(std::int64_t count, bool parallel, F&& body) {
    BusyClock::Scope busy(clock_);
    if (!parallel) {
      for (std::int64_t x = 0; x < count; ++x) body(x);
      return;
    }
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t x = 0; x < count; ++x) body(x);
  }

  void copy_tile(Block<D> to, Block<D> from) const {
    std::memcpy(to.d, from.d, sizeof(D) * static_cast<std::size_t>(cells_));
    if (kPred) std::memcpy(to.p, from.p, sizeof(vertex_t) * static_cast<std::size_t>(cells_));
  }

  // Tile (I, J) before round 0: the diagonal 0, no edge unreachable; with
  // predecessors, fw-blocked's start (predecessor i everywhere; the diagonal
  // and unreachable entries become -1 on delivery). Padding vertices stay
  // isolated.
  void fill_identity(Block<D> t, std::int64_t I, std::int64_t J) const {
    constexpr D inf = cpu::detail::infinity<D>();
    for (std::int64_t x = 0; x < b_; ++x)
      for (std::int64_t y = 0; y < b_; ++y) {
        const bool diagonal = I == J && x == y;
        t.d[cell(x, y)] = diagonal ? 0 : inf;
        if (kPred) t.p[cell(x, y)] = static_cast<vertex_t>(I * b_ + x);
      }
  }

  void build(const BasicGraph<W>& g) {
    run_tiles(rows_ * cols_, true, [&](std::int64_t t) {
      fill_identity(own_.tile(t), grid_.global_row(t / cols_), grid_.global_col(t % cols_));
    });
    for (const BasicEdge<W>& e : g.edges) {
      const std::int64_t I = e.src / b_, J = e.dst / b_;
      if (!grid_.owns_row(I) || !grid_.owns_col(J)) continue;
      own(I / grid_.rows, J / grid_.cols).d[cell(e.src % b_, e.dst % b_)] = e.w;
    }
  }

  // Rows [first, first + rows) of the output from the gathered tile row:
  // integer values above infinity / 2 are unreachable, real ones +inf, as in
  // fw-blocked. As in fw-blocked's store, a predecessor row whose chains loop
  // (ties on zero-weight cycles in the blocked schedule, or a cycle rounding
  // made negative) is rebuilt as a tight-edge tree (core::PredecessorRepair,
  // within the tolerance for real weights), so every delivered row is a tree.
  void to_rows(const TileRowParts<D>& parts, std::int64_t first, std::int64_t rows, W* dist, vertex_t* pred) {
    const std::int64_t T = grid_.tiles;
    const int pc = grid_.cols;
    FirstError errors;
#pragma omp parallel num_threads(threads_)
    {
      std::optional<core::PredecessorRepair> repair;
      if (pred) errors.run([&] { repair.emplace(n_); });
#pragma omp for schedule(static)
      for (std::int64_t x = 0; x < rows; ++x) {
        if (errors.stopped()) continue;
        to_row(parts, first + x, T, pc, dist + x * n_, pred ? pred + x * n_ : nullptr);
        if (pred) repair->row(repair_edges_, dist + x * n_, static_cast<vertex_t>(first + x), pred + x * n_, slack_);
      }
    }
    errors.rethrow();
  }

  // Global row i of the gathered tile row (local row i mod b) into the n
  // entries of dist_row and, when not null, pred_row.
  void to_row(const TileRowParts<D>& parts, std::int64_t i, std::int64_t T, int pc, W* dist_row,
              vertex_t* pred_row) const {
    const std::int64_t x = i % b_;
    for (std::int64_t J = 0; J < T; ++J) {
      const std::size_t c = static_cast<std::size_t>(J % pc);
      const std::int64_t width = static_cast<std::int64_t>(parts.d[c].size()) / b_;
      const std::int64_t at = x * width + (J / pc) * b_;
      for (std::int64_t y = 0; y < b_ && J * b_ + y < n_; ++y) {
        const std::int64_t j = J * b_ + y;
        const D v = parts.d[c][static_cast<std::size_t>(at + y)];
        bool reachable;
        if constexpr (std::is_floating_point<D>::value)
          reachable = v < cpu::detail::infinity<D>();
        else
          reachable = v <= cpu::detail::infinity<D>() / 2;
        // Real weights: rounding may leave a diagonal entry a little below 0
        // (a cycle the rule judged not negative); the distance is 0.
        dist_row[j] = !reachable                                   ? kUnreachable<W>
                      : std::is_floating_point<D>::value && i == j ? W{0}
                                                                   : static_cast<W>(v);
        if (pred_row) pred_row[j] = reachable && i != j ? parts.p[c][static_cast<std::size_t>(at + y)] : -1;
      }
    }
  }

  std::vector<RoundState::Buffer> state_buffers() override {
    std::vector<RoundState::Buffer> planes{{own_.d.data(), own_.d.size() * sizeof(D)}};
    if (kPred) planes.push_back({own_.p.data(), own_.p.size() * sizeof(vertex_t)});
    return planes;
  }
  std::string state_layout() const override {
    const char* element = std::is_floating_point<D>::value ? (sizeof(D) == 4 ? "float32" : "float64")
                                                           : (sizeof(D) == 4 ? "int32" : "int64");
    return std::string("distributed cpu tiles ") + element + (kPred ? " with predecessors" : "") + ", b " +
           std::to_string(kTile) + ", grid " + std::to_string(grid_.rows) + "x" + std::to_string(grid_.cols) + " at " +
           std::to_string(grid_.row) + "," + std::to_string(grid_.col) + ", n " + std::to_string(n_);
  }

 private:
  const ProcessGrid grid_;
  const std::int64_t n_;
  const std::int64_t m_;            // kTile tiles per tile edge: 1, or the super width / kTile
  const std::int64_t b_, cells_;    // the tile edge m * kTile, and its cells
  const std::int64_t rows_, cols_;  // local tile rows and columns
  const int threads_;
  const bool overlap_;
  const cpu::detail::StepFunction<D> step_;
  const D negative_below_;          // a diagonal entry below it is a negative cycle (0 for integers)
  const double slack_;              // the predecessor repair's slack: the real weights' tolerance, else 0
  const BasicCsr<W> repair_edges_;  // the graph's CSR, with predecessors (core::PredecessorRepair)
  Planes<D, kPred> own_;
  Slot slots_[2];
  std::vector<std::int64_t> selected_;  // the tiles of the update in progress
  BusyClock clock_;
  std::unique_ptr<Worker> worker_;
};

template <class D, bool kPred>
std::unique_ptr<TileEngine> make(const BasicGraph<OutputOf<D>>& g, const ProcessGrid& grid,
                                 const CpuEngineOptions& options) {
  try {
    return std::make_unique<CpuEngine<D, kPred>>(g, grid, options);
  } catch (const std::bad_alloc&) {
    const std::int64_t b = options.super_width > 0 ? options.super_width : kTile;
    const std::uint64_t bytes = cpu_share_bytes(grid, b, sizeof(D), kPred);
    throw ResourceError("cannot allocate this rank's " + std::to_string(grid.local_rows()) + " x " +
                        std::to_string(grid.local_cols()) + " tiles of " + std::to_string(b) + " x " +
                        std::to_string(b) + " (" + std::to_string(bytes) + " bytes)");
  }
}

}  // namespace

std::int64_t cpu_tile() { return kTile; }

std::unique_ptr<TileEngine> make_cpu_engine(const Graph& normalized, const ProcessGrid& grid,
                                            const CpuEngineOptions& options) {
  if (options.int32_arithmetic)
    return options.predecessors ? make<std::int32_t, true>(normalized, grid, options)
                                : make<std::int32_t, false>(normalized, grid, options);
  return options.predecessors ? make<std::int64_t, true>(normalized, grid, options)
                              : make<std::int64_t, false>(normalized, grid, options);
}

std::unique_ptr<TileEngine> make_cpu_engine(const GraphF32& normalized, const ProcessGrid& grid,
                                            const CpuEngineOptions& options) {
  return options.predecessors ? make<float, true>(normalized, grid, options)
                              : make<float, false>(normalized, grid, options);
}

std::unique_ptr<TileEngine> make_cpu_engine(const GraphF64& normalized, const ProcessGrid& grid,
                                            const CpuEngineOptions& options) {
  return options.predecessors ? make<double, true>(normalized, grid, options)
                              : make<double, false>(normalized, grid, options);
}

}  // namespace apsp::dist
