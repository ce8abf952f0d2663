// The GPU engine of distributed blocked FW: one rank's tiles on its device,
// updated by the production kernels (src/cuda/kernels/dense/) run
// on sub-blocks, on non-negative (Johnson-reweighted) weights, in int32 or in
// int16 (the kernels' Int16Words policy: two distances per 32-bit word). An
// int16 run is an attempt, as on one GPU: solve_distributed certifies it
// after the rounds (range_certified on every rank, agreed) and reruns in
// int32 (widen_gpu_engine) when any rank cannot certify its tiles.
//
// float32 weights (Float32Words, phase 3 with the one-GPU fw's production
// FoldCL1Traits) are taken as they are, as on one GPU (cuda/real_backend.cpp):
// IEEE +inf absorbs negative weights, so there is no reweighting; a negative
// cycle is refused before the rounds (Johnson's Bellman-Ford, on every rank)
// and, for one that rounding alone makes negative, by the diagonal after them
// (negative_diagonal: below minus the rounding tolerance); the other diagonal
// entries are 0 up to rounding and are delivered as 0.
//
// float64 weights likewise, on the one-GPU float64 kernels
// (kernels/dense/fw_f64.cuh, Float64Tiles): their tile is b = 64
// (Float64Traits::kTile), phase 3 reads A from the column panel as it is
// (no panel_t), and after the rounds a diagonal entry in (-tolerance, 0) is
// a candidate negative cycle for the one rule, as on CPU ranks.
//
// Storage: the rank's R x C tiles of b (128; 64 in float64) as one row-major matrix of
// R*b rows and L = round_up(C, w)*b columns (leading dimension L), w the
// tile columns of one update_rest C tile (1 in int32, 2 in int16: 128 words
// of two distances; an odd C gets a padding tile column that no vertex
// owns), so that its part of a tile row is one contiguous b x L block and
// update_rest runs on any rectangle of C-tile units of it:
//   C(tile rows [r0, r1), tile columns [c0, c1)) = min(C, A (x) B)
// with A from panel_t (the column panel transposed: panel_t[k][i] = A[i][k],
// leading dimension L as update_rest reads it, in chunks of C tile rows so
// that i stays below L) and B = the b x L row panel. A and B are always
// copies in the slot, never the tiles being written, so the products run
// on all tiles of a rectangle at once; a panel tile updated again through its
// own closed panels is unchanged (P' = min(P', D* (x) P') for P' = D* (x) P).
//
// In int16 a C tile spans a pair of tile columns, so the early part of a
// round takes the whole pair holding round k+1's column panel, and the
// column-panel step updates the partner tile too (one more relaxation
// through paths that exist: values stay path lengths, never above what the
// schedule alone gives, and no tile is written by both streams at once).
//
// The tiles are built on the device: the rank's edges (picked out on the
// host in O(m)) are uploaded once and scattered into the identity.
//
// Predecessors: distances first; each delivered row's predecessors are then
// the breadth-first tree over its tight out-edges, on the host, on the
// gathered n-wide row (tight_edge_predecessor_rows): a tree whatever the
// ties on zero-weight cycles.
//
// Look-ahead: the panel phase runs on the panel stream (its kernels and the
// communicator calls, which are ordered on it); the rest of round k's update
// runs on the bulk stream, after the event "panels of round k ready", and the
// next round's first update waits for it, so round k+1's panel phase overlaps
// round k's bulk on the device.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/potentials.hpp"
#include "core/ceil_div.hpp"
#include "core/csr.hpp"
#include "core/cuda_check.hpp"
#include "core/weights.hpp"
#include "cuda/instance.hpp"
#include "cuda/range_rule.hpp"
#include "cuda/kernels/common/words.cuh"
#include "cuda/kernels/dense/close_diagonal.cuh"
#include "cuda/kernels/dense/fw_f64.cuh"
#include "cuda/kernels/dense/traits.cuh"
#include "cuda/kernels/dense/update_rest.cuh"
#include "core/cuda_memory.hpp"
#include "distributed/gpu_engine.hpp"
#include "distributed/gpu_problem.hpp"
#include "distributed/output.hpp"
#include "distributed/reweighted_rows.hpp"

namespace apsp::dist {
namespace {

using Traits = cuda::kernels::ProductionTraits;
using F64Traits = cuda::kernels::Float64Traits;
using cuda::kernels::Float32Words;
constexpr std::size_t kUpdateSharedBytes = sizeof(std::int32_t) * Traits::kStages * Traits::kChunk * 2 * Traits::kTile;

// Phase 3's traits for policy W: float32 takes the one-GPU fw's production
// variant (old C folded in after the k-chunks, kernels/dense/fw.cu), the
// integer policies ProductionTraits. Same tile, threads and shared memory.
template <class W>
using UpdateTraits = std::conditional_t<std::is_same<W, Float32Words>::value, cuda::kernels::FoldCL1Traits, Traits>;
static_assert(cuda::kernels::FoldCL1Traits::kTile == Traits::kTile &&
                  cuda::kernels::FoldCL1Traits::kThreads == Traits::kThreads &&
                  cuda::kernels::FoldCL1Traits::kStages == Traits::kStages &&
                  cuda::kernels::FoldCL1Traits::kChunk == Traits::kChunk,
              "the float32 phase 3 must share the integer one's geometry");

// float64 storage: one double per element on the one-GPU float64 fw's
// kernels (kernels/dense/fw_f64.cuh), whose tiles are F64Traits::kTile (64)
// wide, not the production kernels' 128; a tag in the place of a word
// policy (those kernels have none).
struct Float64Tiles {
  using storage_t = double;
  static constexpr int kPerWord = 1;
};

// The tile edge b of the engine of policy W: its kernels' traits' tile.
template <class W>
constexpr std::int64_t tile_of() {
  return std::is_same<W, Float64Tiles>::value ? F64Traits::kTile : Traits::kTile;
}

// The unreachable value in storage: the integer policies' infinity, +inf for real weights.
template <class W>
constexpr typename W::storage_t storage_infinity() {
  if constexpr (std::is_floating_point<typename W::storage_t>::value)
    return std::numeric_limits<typename W::storage_t>::infinity();
  else
    return static_cast<typename W::storage_t>(W::kInfinity);
}
// update_rest skips tile row and column `kb`: none here.
constexpr int kNoSkip = std::numeric_limits<int>::max();

// to[k * to_ld + i] = the A-operand word (W::broadcast) of from[i * from_ld + k]
// for i < rows, k < b (the production tile). Consecutive threads take
// consecutive i, so the writes coalesce.
template <class W>
__global__ void transpose_columns(const typename W::storage_t* __restrict__ from, std::int64_t from_ld,
                                  std::int64_t rows, std::int32_t* __restrict__ to, std::int64_t to_ld) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < rows * Traits::kTile;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t k = x / rows, i = x - k * rows;
    to[k * to_ld + i] = W::broadcast(W::to_word(from[i * from_ld + k]));
  }
}

// Where a rank's tiles sit in the process grid, for the build kernels.
struct GridPlace {
  int rows, row, cols, col;  // pr, this rank's process row, pc, its process column
};

// The identity on this rank's tiles of edge kTile (rows x ld, the first
// own_cols columns real): 0 where the global row equals the global column,
// `infinity` elsewhere, padding columns included. Grid-stride over rows * ld.
template <class S, std::int64_t kTile>
__global__ void init_tiles(S* __restrict__ d, std::int64_t rows, std::int64_t ld, std::int64_t own_cols,
                           GridPlace place, S infinity) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < rows * ld;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = x / ld, c = x - r * ld;
    const std::int64_t i = (r / kTile * place.rows + place.row) * kTile + r % kTile;
    const std::int64_t j = (c / kTile * place.cols + place.col) * kTile + c % kTile;
    d[x] = c < own_cols && i == j ? S{0} : infinity;
  }
}

// d[src][dst] = w for edges in local coordinates (row and column in this
// rank's matrix). Normalized edges are unique, so plain stores suffice.
template <class S, class E>
__global__ void scatter_local_edges(S* __restrict__ d, std::int64_t ld, const E* __restrict__ edges,
                                    std::int64_t count) {
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < count;
       e += std::int64_t{gridDim.x} * blockDim.x)
    d[std::int64_t{edges[e].src} * ld + edges[e].dst] = static_cast<S>(edges[e].w);
}

// float64 phase 2 and 3 on operands apart from the tiles written: C tile
// (blockIdx.y, blockIdx.x) = min(C, A (x) B) with A tile row blockIdx.y of
// `a` ((gridDim.y * b) x b, leading dimension b: a column panel or the
// pivot), B tile column blockIdx.x of `b` (b x (gridDim.x * b), leading
// dimension ld: the row panel) and `c` of leading dimension ld; the one-GPU
// float64 fw's tile load and product (kernels/dense/fw_f64.cuh). `c` and
// `b` may be the same tiles (the row panel's update, D* (x) P): each block
// reads B only from the C tile it writes, and writes after its product.
template <class T>
__global__ void __launch_bounds__(T::kThreads)
    f64_update_tiles(double* c, const double* a, const double* b, std::int64_t ld) {
  extern __shared__ double shared_f64[];
  double* const a_tile = shared_f64;                           // kTile x kAStride
  double* const b_tile = shared_f64 + T::kTile * T::kAStride;  // kTile x kTile
  const int tid = threadIdx.x, tx = tid % T::kThreadsX, ty = tid / T::kThreadsX;
  const int ti = blockIdx.y, tj = blockIdx.x;
  cuda::kernels::f64_load_tile<T>(a_tile, T::kAStride, a, T::kTile, ti, 0, tid);
  cuda::kernels::f64_load_tile<T>(b_tile, T::kTile, b, ld, 0, tj, tid);
  cuda::kernels::F64Fragment<T> f;
#pragma unroll
  for (int r = 0; r < T::kRows; ++r)
#pragma unroll
    for (int col = 0; col < T::kCols; ++col) f.c[r][col] = *cuda::kernels::f64_cell<T>(c, ld, ti, tj, tx, ty, r, col);
  __syncthreads();
  cuda::kernels::f64_product<T>(f, a_tile, b_tile, tx, ty);
#pragma unroll
  for (int r = 0; r < T::kRows; ++r)
#pragma unroll
    for (int col = 0; col < T::kCols; ++col) *cuda::kernels::f64_cell<T>(c, ld, ti, tj, tx, ty, r, col) = f.c[r][col];
}

// *result = max(*result, the largest entry below `infinity`) over `cells`
// entries: the quick range certificate's input (cuda/range_rule.hpp).
template <class S>
__global__ void largest_below(const S* __restrict__ d, std::int64_t cells, std::int32_t infinity, int* result) {
  int best = INT_MIN;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < cells;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const int v = d[x];
    if (v < infinity) best = max(best, v);
  }
  for (int offset = 16; offset > 0; offset /= 2) best = max(best, __shfl_down_sync(0xffffffffu, best, offset));
  if ((threadIdx.x & 31) == 0 && best != INT_MIN) atomicMax(result, best);
}

// The process columns whose parts a gathered tile row's conversion on the
// device reads (convert_on_device: more of them take the host's path).
constexpr int kMaxDeviceParts = 64;

// Where each part of a gathered tile row lies on the gatherer's device: part
// c's rows at at[c], leading dimension ld[c] (elements of S).
template <class S>
struct DeviceParts {
  const S* at[kMaxDeviceParts];
  std::int64_t ld[kMaxDeviceParts];
};

// The host's widen_part and reweighted_parts_to_rows on the device: rows
// [first, first + rows) of a gathered tile row as n-wide int32 rows of real
// distances into `out` (rows x n), global column j = J * b + y read from
// part J mod pc at its (J / pc)-th tile. A stored value at or above
// `infinity` is kInf; else v, and with potentials h (null: none) the real
// distance v - h[i] + h[j]. *bad = 1 where a finite v reaches `limit`
// (kInf - max_weight: the certificate cannot prove it exact) or a real
// distance leaves the int32 output: the host then finds the first such
// value for its message, from the same parts. The same values as the host's
// path, bit for bit.
template <class S>
__global__ void reweighted_rows_on_device(DeviceParts<S> parts, int pc, std::int64_t b, std::int64_t n,
                                          std::int64_t first, std::int64_t rows, const std::int64_t* __restrict__ h,
                                          S infinity, std::int64_t limit, std::int32_t* __restrict__ out, int* bad) {
  constexpr std::int32_t inf = kInf;
  int found = 0;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < rows * n;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = x / n, j = x - r * n;
    const std::int64_t J = j / b, y = j - J * b;
    const int c = static_cast<int>(J % pc);
    const S stored = parts.at[c][r * parts.ld[c] + (J / pc) * b + y];
    const std::int32_t v = stored >= infinity ? inf : static_cast<std::int32_t>(stored);
    if (h == nullptr) {
      found |= (v < inf) & (std::int64_t{v} >= limit);
      out[x] = v >= inf ? inf : v;
    } else {
      const std::int64_t d = std::int64_t{v} - h[first + r] + h[j];
      found |= (v < inf) & ((std::int64_t{v} >= limit) | (d >= inf) | (d <= -std::int64_t{inf}));
      out[x] = v >= inf ? inf : static_cast<std::int32_t>(d);
    }
  }
  if (found) *bad = 1;
}


int blocks_for(std::int64_t work, int threads) {
  return static_cast<int>(std::min<std::int64_t>((work + threads - 1) / threads, 4096));
}

// What every width of the engine shares: the reweighted problem (computed
// once; an int16 attempt hands it to the int32 rerun) and, with
// predecessors, the graph's out-edges for the tight-edge trees.
using Problem = GpuProblem;

// The float32 or float64 problem (T): the weights as they are.
template <class T>
struct RealProblem {
  std::int64_t n = 0;
  std::vector<BasicEdge<T>> graph_edges;  // the normalized graph's
  bool predecessors = false;
  BasicCsr<T> out_edges;  // the normalized graph's CSR, with predecessors
  double tolerance = 0;   // core::distance_tolerance<T>: the negative-cycle threshold and the trees' slack

  const std::vector<BasicEdge<T>>& edges() const { return graph_edges; }
};

template <class W>
class GpuEngine final : public TileEngine {
 public:
  using S = typename W::storage_t;
  static constexpr bool kReal = std::is_floating_point<S>::value;
  // float64: the one-GPU float64 kernels, on 64-wide tiles, with A taken
  // from the column panel as it is (no transposed panel_t).
  static constexpr bool kF64 = std::is_same<W, Float64Tiles>::value;
  static constexpr std::int64_t kTile = tile_of<W>();
  using ProblemType = std::conditional_t<kReal, RealProblem<S>, Problem>;
  // The A operand of a product: panel_t's int32 words, or float64 tiles.
  using AWord = std::conditional_t<kF64, double, std::int32_t>;
  // Tile columns per update_rest C tile (128 words).
  static constexpr std::int64_t kUnit = W::kPerWord;
  static constexpr S kInfinity = storage_infinity<W>();
  // Downloaded parts are converted where they lie (TileRowParts::view): real
  // values as stored, and int32 words whose infinity is the output's kInf
  // (widen_part would copy them unchanged); int16 and tagged words are
  // widened first.
  static constexpr bool kViewParts =
      kReal || (std::is_same<S, std::int32_t>::value && static_cast<std::int64_t>(kInfinity) == kInf);

  GpuEngine(std::shared_ptr<const ProblemType> problem, const ProcessGrid& grid, const GpuEngineOptions& options)
      : problem_(std::move(problem)),
        grid_(grid),
        n_(problem_->n),
        rows_(grid.local_rows()),
        cols_(grid.local_cols()),
        own_width_(cols_ * kTile),
        width_(round_up(cols_, kUnit) * kTile),
        units_(width_ / (kUnit * kTile)),
        overlap_(options.lookahead),
        device_(select_device(options.device)) {
    if constexpr (kF64)
      APSP_CUDA_CHECK(cudaFuncSetAttribute(f64_update_tiles<F64Traits>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(F64Traits::kProductSharedBytes)));
    else
      APSP_CUDA_CHECK(cudaFuncSetAttribute(cuda::kernels::update_rest<UpdateTraits<W>, W>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(kUpdateSharedBytes)));
    const std::size_t cells = static_cast<std::size_t>(rows_ * kTile * width_);
    // Tile rows of panel_t per chunk: its rows stay below L. float64 reads
    // the column panel itself: one chunk, no panel_t or pivot_t.
    const std::int64_t chunk_tiles = kF64 ? std::max<std::int64_t>(rows_, 1) : width_ / kTile;
    const std::size_t chunks = static_cast<std::size_t>(chunk_tiles > 0 ? ceil_div(rows_, chunk_tiles) : 0);
    chunk_tiles_ = chunk_tiles;
    // Elements of S: row, column, pivot; int32 words: panel_t, pivot_t.
    slot_cells_ = {static_cast<std::size_t>(kTile * width_), static_cast<std::size_t>(rows_ * kTile * kTile),
                   kF64 ? 0 : chunks * static_cast<std::size_t>(kTile * width_),
                   static_cast<std::size_t>(kTile * kTile), kF64 ? 0 : static_cast<std::size_t>(kTile * width_)};
    const std::size_t slot_bytes = (slot_cells_[0] + slot_cells_[1] + slot_cells_[3]) * sizeof(S) +
                                   (slot_cells_[2] + slot_cells_[4]) * sizeof(std::int32_t);
    cuda::require_device_memory(cells * sizeof(S) + 2 * slot_bytes + (std::size_t{64} << 20),
                                "this rank's " + std::to_string(rows_) + " x " + std::to_string(cols_) + " tiles of " +
                                    std::to_string(kTile) + " and panel buffers");
    tiles_ = cuda::DeviceBuffer<S>(cells);
    for (Slot& s : slots_) {
      s.row = cuda::DeviceBuffer<S>(slot_cells_[0]);
      s.column = cuda::DeviceBuffer<S>(slot_cells_[1]);
      s.panel_t = cuda::DeviceBuffer<std::int32_t>(slot_cells_[2]);
      s.pivot = cuda::DeviceBuffer<S>(slot_cells_[3]);
      s.pivot_t = cuda::DeviceBuffer<std::int32_t>(slot_cells_[4]);
    }
    APSP_CUDA_CHECK(cudaEventCreateWithFlags(&panels_ready_, cudaEventDisableTiming));
    APSP_CUDA_CHECK(cudaEventCreateWithFlags(&bulk_done_, cudaEventDisableTiming));
    APSP_CUDA_CHECK(cudaEventCreate(&origin_));
    APSP_CUDA_CHECK(cudaEventRecord(origin_, panel_.get()));
    build();
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

  const std::shared_ptr<const ProblemType>& problem() const { return problem_; }

  Memory memory() const override { return Memory::device; }
  void* stream() const override { return panel_.get(); }
  Precision precision() const override {
    return std::is_same<S, std::int16_t>::value ? Precision::int16 : Precision::int32;
  }

  std::int64_t close_pivot(std::int64_t k) override {
    timed(panel_.get(), [&] {
      S* pivot = own(k / grid_.rows, k / grid_.cols);
      if constexpr (kF64) {
        cuda::kernels::f64_close_diagonal<F64Traits><<<1, F64Traits::kThreads, 0, panel_.get()>>>(pivot, width_, 0);
        APSP_CUDA_CHECK_LAUNCH("f64_close_diagonal");
      } else {
        cuda::kernels::close_diagonal<Traits, W><<<1, Traits::kThreads, 0, panel_.get()>>>(pivot, width_, 0, nullptr);
        APSP_CUDA_CHECK_LAUNCH("close_diagonal");
      }
    });
    return -1;  // non-negative weights: no diagonal entry can go negative
  }

  Messages pivot_message(std::int64_t k, int slot) override {
    Slot& s = slots_[slot];
    if (grid_.owns_col(k)) copy_block(s.pivot.get(), kTile, own(k / grid_.rows, k / grid_.cols), width_, kTile);
    return {message(s.pivot.get(), slot_cells_[3])};
  }

  void update_row_panel(std::int64_t k, int slot) override {
    Slot& s = slots_[slot];
    if (cols_ == 0) return;  // no tile of this row panel here
    S* row = own(k / grid_.rows, 0);
    timed(panel_.get(), [&] {
      // The row panel is its own B operand (each block reads B only from the
      // C tile it writes, and writes at the end). float64 takes D* as it is;
      // the others pivot_t[m][i] = D*[i][m].
      if constexpr (kF64) {
        product(row, s.pivot.get(), row, units_, 1, panel_.get());
      } else {
        transpose(s.pivot.get(), kTile, kTile, s.pivot_t.get(), width_, panel_.get());
        product(row, s.pivot_t.get(), row, units_, 1, panel_.get());
      }
    });
  }

  Messages row_panel_message(std::int64_t k, int slot) override {
    Slot& s = slots_[slot];
    if (grid_.owns_row(k) && width_ > 0)
      APSP_CUDA_CHECK(cudaMemcpyAsync(s.row.get(), own(k / grid_.rows, 0), slot_cells_[0] * sizeof(S),
                                      cudaMemcpyDeviceToDevice, panel_.get()));
    return {message(s.row.get(), slot_cells_[0])};
  }

  void update_column_panel(std::int64_t k, int slot) override {
    Slot& s = slots_[slot];
    const std::int64_t b = k / grid_.cols;
    S* column = tiles_.get() + b * kTile;  // tile column of k, leading dimension L
    // The C tile unit holding it (in int16 the pair with its partner) and the
    // row panel's matching columns: the pivot tile D* at column b.
    const std::int64_t unit_start = b - b % kUnit;
    S* unit = tiles_.get() + unit_start * kTile;
    const S* pivot_rows = s.row.get() + unit_start * kTile;
    timed(panel_.get(), [&] {
      copy_block(s.column.get(), kTile, column, width_, rows_ * kTile);
      transpose_chunks(s, panel_.get());
      for_each_chunk(s, 0, rows_, [&](std::int64_t lo, std::int64_t hi, const AWord* a) {
        product(unit + lo * kTile * width_, a, pivot_rows, 1, hi - lo, panel_.get());
      });
      copy_block(s.column.get(), kTile, column, width_, rows_ * kTile);
    });
  }

  Messages column_panel_message(std::int64_t, int slot) override {
    return {message(slots_[slot].column.get(), slot_cells_[1])};
  }

  void panels_ready(std::int64_t, int slot) override {
    timed(panel_.get(), [&] { transpose_chunks(slots_[slot], panel_.get()); });
    APSP_CUDA_CHECK(cudaEventRecord(panels_ready_, panel_.get()));
  }

  void start_update(std::int64_t k, int slot, TileSelection which) override {
    Slot& s = slots_[slot];
    const std::int64_t next_row = which.next >= 0 && grid_.owns_row(which.next) ? which.next / grid_.rows : -1;
    const std::int64_t next_unit = which.next >= 0 && grid_.owns_col(which.next) ? which.next / grid_.cols / kUnit : -1;
    (void)k;
    switch (which.part) {
      case TileSelection::Part::all:
        timed(panel_.get(), [&] { rectangle(s, 0, rows_, 0, units_, panel_.get()); });
        break;
      case TileSelection::Part::early:
        // Round k's update of round k+1's panels (the whole C tile unit of
        // its column), on the panel stream, after the rest of round k-1
        // (which last wrote them).
        APSP_CUDA_CHECK(cudaStreamWaitEvent(panel_.get(), bulk_done_, 0));
        timed(panel_.get(), [&] {
          if (next_row >= 0) rectangle(s, next_row, next_row + 1, 0, units_, panel_.get());
          if (next_unit >= 0)
            for (auto [lo, hi] : around(next_row, rows_)) rectangle(s, lo, hi, next_unit, next_unit + 1, panel_.get());
        });
        break;
      case TileSelection::Part::rest:
        APSP_CUDA_CHECK(cudaStreamWaitEvent(bulk_.get(), panels_ready_, 0));
        timed(bulk_.get(), [&] {
          for (auto [r0, r1] : around(next_row, rows_))
            for (auto [u0, u1] : around(next_unit, units_)) rectangle(s, r0, r1, u0, u1, bulk_.get());
        });
        APSP_CUDA_CHECK(cudaEventRecord(bulk_done_, bulk_.get()));
        break;
    }
  }

  void finish_update() override {
    APSP_CUDA_CHECK(cudaStreamSynchronize(bulk_.get()));
    APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
  }

  // Integer weights are reweighted, non-negative: no diagonal entry goes
  // negative. Real weights: the smallest vertex whose diagonal entry lies
  // below minus the rounding tolerance (or is NaN), read after the rounds.
  std::int64_t negative_diagonal() override {
    if constexpr (!kReal)
      return -1;
    else
      return first_diagonal([&](S v) { return v < -problem_->tolerance || std::isnan(v); });
  }

  // float64: a diagonal entry below 0 but within the tolerance is a
  // candidate that the one rule judges, as on CPU ranks (the 1e-10 cycle of
  // tests/distributed/checks). float32 keeps its one-GPU behaviour: no rule.
  bool candidate_negative_diagonal() override {
    if constexpr (!kF64)
      return false;
    else
      return first_diagonal([](S v) { return v < 0; }) >= 0;
  }

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

  // The quick range certificate (cuda/range_rule.hpp) on this rank's tiles:
  // every finite entry below infinity - max_weight. Padding entries are 0 or
  // infinity and change nothing. The exact check would need whole rows,
  // which 2d spreads over ranks: where the quick one cannot decide, the
  // attempt reruns in int32.
  bool range_certified() override {
    if constexpr (!std::is_same<S, std::int16_t>::value) {
      return true;  // int32: check_output_range decides; float32 has no range to leave
    } else {
      const std::int64_t cells = rows_ * kTile * width_;
      int largest = INT_MIN;
      if (cells > 0) {
        cuda::DeviceBuffer<int> result(1);
        APSP_CUDA_CHECK(cudaMemcpyAsync(result.get(), &largest, sizeof(int), cudaMemcpyHostToDevice, panel_.get()));
        constexpr int kThreads = 256;
        largest_below<S>
            <<<blocks_for(cells, kThreads), kThreads, 0, panel_.get()>>>(tiles_.get(), cells, kInfinity, result.get());
        APSP_CUDA_CHECK_LAUNCH("largest_below");
        APSP_CUDA_CHECK(cudaMemcpyAsync(&largest, result.get(), sizeof(int), cudaMemcpyDeviceToHost, panel_.get()));
        APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
      }
      return cuda::range_holds_below(largest, kInfinity, problem_->reweighted.max_weight);
    }
  }

  // The one-GPU certificate and the int32 output range are checked as the
  // delivered rows are converted (reweighted_parts_to_rows), in the same
  // pass; check_delivered_range reports what that found.
  void check_output_range() override {}

  void deliver(Communicator* process_row, Sink& sink, const RowCheck& check) override {
    range_problem_.clear();
    begin_exchange();
    if constexpr (kReal) {
      // Real rows as they are, the diagonal 0 (checked already), and
      // predecessors as tight-edge trees within the tolerance.
      deliver_parts<S, S>(
          process_row, sink, check,
          [&](std::int64_t first, std::int64_t rows, const TileRowParts<S>& parts, S* dist, vertex_t* pred_rows) {
            real_parts_to_rows(parts, grid_, kTile, n_, first, rows, dist);
            if (pred_rows)
              tight_edge_predecessor_rows(problem_->out_edges, n_, first, rows, dist, pred_rows, problem_->tolerance);
          });
    } else if (convert_on_device()) {
      deliver_converted(process_row, sink, check);
    } else {
      deliver_parts<std::int32_t, dist_t>(
          process_row, sink, check,
          [&](std::int64_t first, std::int64_t rows, const TileRowParts<std::int32_t>& parts, dist_t* dist,
              vertex_t* pred_rows) {
            const std::string found = reweighted_parts_to_rows(parts, grid_, kTile, n_, first, rows,
                                                               problem_->reweighted.potential,
                                                               problem_->reweighted.max_weight, dist);
            if (!found.empty() && range_problem_.empty()) range_problem_ = found;
            // Rows that failed the check are discarded with the sink: no trees for them.
            if (pred_rows && found.empty())
              tight_edge_predecessor_rows(problem_->out_edges, n_, first, rows, dist, pred_rows);
          });
    }
    for (auto& buffer : staged_) buffer.reset();
    for (int slot = 0; slot < 2; ++slot) {
      gathered_[slot].clear();
      gathered_host_[slot].clear();
      converted_[slot].reset();
      converted_host_[slot].reset();
    }
    converted_bad_.reset();
    converted_bad_host_.reset();
    potential_.reset();
  }

  void check_delivered_range() override {
    if (!range_problem_.empty()) throw OverflowError(range_problem_);
  }

  // Round checkpoints: the tiles through host memory (the predecessors are
  // computed at delivery, so the distances are the whole state).
  std::vector<RoundState::Buffer> state_buffers() override {
    const std::size_t cells = static_cast<std::size_t>(rows_ * kTile * width_);
    host_state_.resize(cells);
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(host_state_.data(), tiles_.get(), cells * sizeof(S), cudaMemcpyDeviceToHost, panel_.get()));
    APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
    return {{host_state_.data(), cells * sizeof(S)}};
  }
  void state_restored() override {
    APSP_CUDA_CHECK(cudaMemcpyAsync(tiles_.get(), host_state_.data(), host_state_.size() * sizeof(S),
                                    cudaMemcpyHostToDevice, panel_.get()));
    APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
  }
  std::string state_layout() const override {
    return "distributed gpu tiles of " + std::to_string(sizeof(S)) + "-byte " + (kReal ? "reals" : "integers") +
           ", b " + std::to_string(kTile) + ", width " + std::to_string(width_) + ", grid " +
           std::to_string(grid_.rows) + "x" + std::to_string(grid_.cols) + " at " + std::to_string(grid_.row) + "," +
           std::to_string(grid_.col) + ", n " + std::to_string(n_);
  }

 private:
  std::vector<S> host_state_;  // state_buffers()'s copy of the tiles
  struct Slot {
    cuda::DeviceBuffer<S> row;                 // b x L: this process column's part of the pivot tile row
    cuda::DeviceBuffer<S> column;              // (R*b) x b: this process row's part of the pivot tile column
    cuda::DeviceBuffer<std::int32_t>
        panel_t;  // chunks of b x L words: `column` transposed, L/b tile rows per chunk (not float64)
    cuda::DeviceBuffer<S> pivot;               // b x b: the closed pivot tile
    cuda::DeviceBuffer<std::int32_t> pivot_t;  // b x L words: the pivot tile transposed (first b columns; not float64)
  };

  S* own(std::int64_t a, std::int64_t b) const { return tiles_.get() + a * kTile * width_ + b * kTile; }

  // The smallest vertex of this rank's diagonal tiles whose d[v][v]
  // satisfies `bad`, or -1. Real weights, after the rounds.
  template <class Bad>
  std::int64_t first_diagonal(Bad&& bad) {
    std::vector<S> diagonal(static_cast<std::size_t>(kTile));
    for (std::int64_t a = 0; a < rows_; ++a) {
      const std::int64_t I = grid_.global_row(a);
      if (!grid_.owns_col(I)) continue;
      APSP_CUDA_CHECK(cudaMemcpy2DAsync(diagonal.data(), sizeof(S), own(a, I / grid_.cols), (width_ + 1) * sizeof(S),
                                        sizeof(S), kTile, cudaMemcpyDeviceToHost, panel_.get()));
      APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
      for (std::int64_t x = 0; x < kTile && I * kTile + x < n_; ++x)
        if (bad(diagonal[static_cast<std::size_t>(x)])) return I * kTile + x;
    }
    return -1;
  }

  // A panel as a message: int32 as itself, int16 as its bytes (every rank
  // of the collective has the same width, so the counts agree).
  static Message message(S* data, std::size_t count) {
    if constexpr (std::is_same<S, std::int16_t>::value)
      return {data, count * sizeof(S), DataType::uint8};
    else
      return {data, count, DataTypeOf<S>::value};
  }

  // This rank's tiles on the device: the identity, then its edges (picked
  // out here, reweighted, in local coordinates) scattered in.
  void build() {
    if (rows_ == 0 || cols_ == 0) return;
    using E = typename std::decay_t<decltype(problem_->edges())>::value_type;
    std::vector<E> mine;
    for (const E& e : problem_->edges()) {
      const std::int64_t I = e.src / kTile, J = e.dst / kTile;
      if (!grid_.owns_row(I) || !grid_.owns_col(J)) continue;
      mine.push_back(E{static_cast<vertex_t>((I / grid_.rows) * kTile + e.src % kTile),
                       static_cast<vertex_t>((J / grid_.cols) * kTile + e.dst % kTile), e.w});
    }
    constexpr int kThreads = 256;
    const std::int64_t cells = rows_ * kTile * width_;
    const GridPlace place{grid_.rows, grid_.row, grid_.cols, grid_.col};
    init_tiles<S, kTile><<<blocks_for(cells, kThreads), kThreads, 0, panel_.get()>>>(
        tiles_.get(), rows_ * kTile, width_, own_width_, place, kInfinity);
    APSP_CUDA_CHECK_LAUNCH("init_tiles");
    if (!mine.empty()) {
      cuda::DeviceBuffer<E> edges(mine.size());
      APSP_CUDA_CHECK(
          cudaMemcpyAsync(edges.get(), mine.data(), mine.size() * sizeof(E), cudaMemcpyHostToDevice, panel_.get()));
      const auto count = static_cast<std::int64_t>(mine.size());
      scatter_local_edges<S, E>
          <<<blocks_for(count, kThreads), kThreads, 0, panel_.get()>>>(tiles_.get(), width_, edges.get(), count);
      APSP_CUDA_CHECK_LAUNCH("scatter_local_edges");
      // The edge buffers (host and device) are freed on return.
      APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
    }
    APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
  }

  // The rows this rank delivers, its parts on the host as P (int32 for the
  // integer policies, float32), to_rows converting gathered tile rows. With
  // one process column a rank's rows are its own (download_row, through the
  // pinned double buffer); with several, each part goes from its rank's
  // device to the gatherer's (gather_on_device), never through the hosts.
  template <class P, class Out, class ToRows>
  void deliver_parts(Communicator* process_row, Sink& sink, const RowCheck& check, ToRows&& to_rows) {
    const bool pred = problem_->predecessors;
    if (grid_.cols == 1) {
      deliver_gathered_rows<P, Out>(
          grid_, n_, kTile, pred, false, [&](std::int64_t a, TileRowParts<P>* parts) { download_row(a, *parts); },
          to_rows, sink, check);
      return;
    }
    deliver_gathered_rows<P, Out>(
        grid_, n_, kTile, pred, false,
        [&](std::int64_t a, TileRowParts<P>* parts) { gather_on_device(*process_row, a, parts); }, to_rows, sink,
        check);
    end_exchange();
  }

  // Local tile row a over the process row (pc > 1), collective: the
  // gatherer (rank a mod pc) receives every other rank's b x L_c block of
  // the tile row into a device buffer (L_c that rank's leading dimension),
  // downloads each part's C_c * b real columns once and converts them into
  // `parts`; every other rank sends its block from its tiles (parts null).
  // The communicator moves device buffers itself: NCCL device to device,
  // the others through their staging.
  //
  // Pipelined: rows are asked for in order, and before converting its row a
  // a gatherer enqueues everything up to its next row a + pc (the sends of
  // the rows between, then that row's receives and downloads into the other
  // of two slots). So its peers' receives of the rows between are not held
  // up by this conversion (without it the ranks of a process row took turns
  // converting: on four H200s the 2d output took 1.1 s against the rows
  // layout's 0.55 s), and the link works while the host converts. Every
  // rank enqueues the same operations in the same order as before, only
  // earlier: a blocking communicator (mpi, local) matches them alike.
  template <class P>
  void gather_on_device(Communicator& process_row, std::int64_t a, TileRowParts<P>* parts) {
    const int pc = grid_.cols;
    if (gathered_[0].empty()) {
      for (int slot = 0; slot < 2; ++slot)
        for (int c = 0; c < pc; ++c) {
          gathered_[slot].push_back(std::make_unique<cuda::DeviceBuffer<S>>(
              c == grid_.col ? 0 : static_cast<std::size_t>(kTile * gathered_width(c))));
          gathered_host_[slot].push_back(
              std::make_unique<cuda::PinnedBuffer<S>>(static_cast<std::size_t>(kTile * gathered_columns(c))));
        }
      gathered_next_ = 0;
    }
    const std::int64_t ahead = parts == nullptr ? a : std::min(rows_ - 1, a + pc);
    for (; gathered_next_ <= ahead; ++gathered_next_) enqueue_gather(process_row, gathered_next_);
    if (parts == nullptr) return;
    const std::size_t slot = static_cast<std::size_t>((a / pc) % 2);
    APSP_CUDA_CHECK(cudaEventSynchronize(gathered_ready_[slot].get()));
    for (int c = 0; c < pc; ++c) {
      const std::size_t at = static_cast<std::size_t>(c), count = static_cast<std::size_t>(kTile * gathered_columns(c));
      if constexpr (kViewParts)
        parts->view[at] = gathered_host_[slot][at]->get();  // valid until this slot's next row, after the conversion
      else
        widen_part<S>(gathered_host_[slot][at]->get(), count, kInfinity, parts->d[at].data());
    }
  }

  // Integer rows are converted on the device (deliver_converted) unless
  // APSP_OUTPUT_CONVERT=host asks for the host's pass (the path before, kept
  // for an A/B) or the process row has more columns than DeviceParts holds.
  bool convert_on_device() const {
    if constexpr (kReal) {
      return false;
    } else {
      const char* where = std::getenv("APSP_OUTPUT_CONVERT");
      if ((where && std::string(where) == "host") || grid_.cols > kMaxDeviceParts) return false;
      // Its buffers (two tile rows of n int32 and the potentials; the 2d
      // receive buffers are either path's) where the device has room for
      // them beside a margin, else the host's pass.
      std::size_t free_bytes = 0, total_bytes = 0;
      APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      const std::size_t need = static_cast<std::size_t>(2 * kTile * n_) * sizeof(dist_t) +
                               static_cast<std::size_t>(n_) * sizeof(std::int64_t) + (std::size_t{64} << 20);
      return need <= free_bytes;
    }
  }

  // Delivery of integer rows converted on the device. Each tile row this
  // rank delivers (all of its own with one process column; with several,
  // rank a mod pc of the process row gathers local tile row a, the others
  // send it their b x L_c blocks device to device, as gather_on_device) is
  // turned into n-wide int32 rows of real distances by
  // reweighted_rows_on_device on the gatherer's device and downloaded once,
  // into pinned memory that the sink takes as it is: the host no longer
  // passes over the values (on four H200s the 2d output's host conversion
  // kept it at 0.62-0.85 s at n = 65536; the download alone is b * n * 4
  // bytes a tile row at the link's speed). Pipelined like gather_on_device:
  // before handing row a to the sink, everything up to this rank's next row
  // a + pc is enqueued (two slots). Collective over `process_row` (pc > 1).
  void deliver_converted(Communicator* process_row, Sink& sink, const RowCheck& check) {
    if constexpr (!kReal) {
      const int pc = grid_.cols;
      const bool pred = problem_->predecessors;
      const std::size_t row_cells = static_cast<std::size_t>(kTile * n_);
      for (int slot = 0; slot < 2; ++slot) {
        converted_[slot].emplace(row_cells);
        converted_host_[slot].emplace(row_cells);
        if (pc > 1 && gathered_[slot].empty())
          for (int c = 0; c < pc; ++c)
            gathered_[slot].push_back(std::make_unique<cuda::DeviceBuffer<S>>(
                c == grid_.col ? 0 : static_cast<std::size_t>(kTile * gathered_width(c))));
      }
      converted_bad_.emplace(2);
      converted_bad_host_.emplace(2);
      const std::vector<std::int64_t>& h = problem_->reweighted.potential;
      if (!h.empty()) {
        potential_.emplace(h.size());
        APSP_CUDA_CHECK(cudaMemcpyAsync(potential_->get(), h.data(), h.size() * sizeof(std::int64_t),
                                        cudaMemcpyHostToDevice, panel_.get()));
      }
      std::vector<vertex_t> pred_rows(pred ? row_cells : 0);
      std::int64_t next = 0;
      for (std::int64_t a = 0; a < rows_; ++a) {
        const bool mine = a % pc == grid_.col;
        const std::int64_t ahead = mine ? std::min(rows_ - 1, a + pc) : a;
        for (; next <= ahead; ++next) enqueue_converted(process_row, next);
        if (!mine) continue;
        const std::int64_t first = grid_.global_row(a) * kTile, rows = std::min(kTile, n_ - first);
        if (rows <= 0) continue;  // a tile row of padding only
        const std::size_t slot = static_cast<std::size_t>((a / pc) % 2);
        APSP_CUDA_CHECK(cudaEventSynchronize(converted_ready_[slot].get()));
        dist_t* const dist = converted_host_[slot]->get();
        std::string found;
        if (converted_bad_host_->get()[slot] != 0) {
          found = range_problem_in(a, slot, first, rows);
          if (range_problem_.empty()) range_problem_ = found;
        }
        // Rows that failed the check are discarded with the sink: no trees for them.
        if (pred && found.empty())
          tight_edge_predecessor_rows(problem_->out_edges, n_, first, rows, dist, pred_rows.data());
        if (check) check(first, rows, dist, pred ? pred_rows.data() : nullptr);
        sink.put(RowBlock{Plane::distances, Element::int32, first, rows, n_, dist});
        if (pred) sink.put(RowBlock{Plane::predecessors, Element::int32, first, rows, n_, pred_rows.data()});
      }
      end_exchange();
    } else {
      (void)process_row, (void)sink, (void)check;
    }
  }

  // Enqueues local tile row r of deliver_converted: its send to the
  // gatherer; or, on the gatherer, the receives of the other parts into
  // slot (r / pc) mod 2 (exchange stream), then on the panel stream the
  // conversion into that slot's rows and their download, which
  // converted_ready_[slot] then marks done.
  void enqueue_converted(Communicator* process_row, std::int64_t r) {
    if constexpr (!kReal) {
      const int pc = grid_.cols;
      if (r % pc != grid_.col) return send_part(*process_row, r);
      const std::size_t slot = static_cast<std::size_t>((r / pc) % 2);
      if (pc > 1) receive_parts(*process_row, slot, converted_ready_[slot]);
      DeviceParts<S> parts{};
      for (int c = 0; c < pc; ++c) {
        const std::size_t at = static_cast<std::size_t>(c);
        parts.ld[at] = gathered_width(c);
        parts.at[at] = c == grid_.col ? own(r, 0) : gathered_[slot][at]->get();
      }
      const std::int64_t first = grid_.global_row(r) * kTile, rows = std::min(kTile, n_ - first);
      if (rows > 0) {
        int* const bad = converted_bad_->get() + slot;
        APSP_CUDA_CHECK(cudaMemsetAsync(bad, 0, sizeof(int), panel_.get()));
        constexpr int kThreads = 256;
        const std::int64_t limit = std::int64_t{kInf} - problem_->reweighted.max_weight;
        reweighted_rows_on_device<S><<<blocks_for(rows * n_, kThreads), kThreads, 0, panel_.get()>>>(
            parts, pc, kTile, n_, first, rows, potential_ ? potential_->get() : nullptr, kInfinity, limit,
            converted_[slot]->get(), bad);
        APSP_CUDA_CHECK_LAUNCH("reweighted_rows_on_device");
        APSP_CUDA_CHECK(cudaMemcpyAsync(converted_host_[slot]->get(), converted_[slot]->get(),
                                        static_cast<std::size_t>(rows * n_) * sizeof(dist_t), cudaMemcpyDeviceToHost,
                                        panel_.get()));
        APSP_CUDA_CHECK(
            cudaMemcpyAsync(converted_bad_host_->get() + slot, bad, sizeof(int), cudaMemcpyDeviceToHost, panel_.get()));
      }
      converted_ready_[slot].record(panel_.get());
    } else {
      (void)process_row, (void)r;
    }
  }

  // The first value out of range in rows [first, first + rows) of local
  // tile row r (in slot `slot`, which the device found bad): its parts
  // downloaded as they are and passed through the host's conversion, for
  // the host path's message. Rare: the output is refused after it.
  std::string range_problem_in(std::int64_t r, std::size_t slot, std::int64_t first, std::int64_t rows) {
    TileRowParts<std::int32_t> parts;
    for (int c = 0; c < grid_.cols; ++c) {
      const std::size_t at = static_cast<std::size_t>(c), count = static_cast<std::size_t>(kTile * gathered_columns(c));
      std::vector<S> stored(count);
      const S* from = c == grid_.col ? own(r, 0) : gathered_[slot][at]->get();
      if (count > 0)
        APSP_CUDA_CHECK(cudaMemcpy2DAsync(stored.data(), gathered_columns(c) * sizeof(S), from,
                                          gathered_width(c) * sizeof(S), gathered_columns(c) * sizeof(S), kTile,
                                          cudaMemcpyDeviceToHost, panel_.get()));
      APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
      parts.d.emplace_back(count);
      widen_part<S>(stored.data(), count, kInfinity, parts.d.back().data());
      parts.p.emplace_back();
    }
    parts.view.assign(static_cast<std::size_t>(grid_.cols), nullptr);
    std::vector<dist_t> scratch(static_cast<std::size_t>(rows * n_));
    return reweighted_parts_to_rows(parts, grid_, kTile, n_, first, rows, problem_->reweighted.potential,
                                    problem_->reweighted.max_weight, scratch.data());
  }

  // C_c * b: the real columns of process column c's tiles; and the width
  // of its blocks (its leading dimension L_c).
  std::int64_t gathered_columns(int c) const { return ProcessGrid::count(grid_.tiles, grid_.cols, c) * kTile; }
  std::int64_t gathered_width(int c) const {
    return round_up(ProcessGrid::count(grid_.tiles, grid_.cols, c), kUnit) * kTile;
  }

  // The exchange of a delivery over several process columns runs on a
  // stream of its own, apart from the conversions and downloads on the
  // panel stream. On one stream (the path before, APSP_OUTPUT_EXCHANGE=panel
  // keeps it for an A/B) the ranks of a process row took turns: a
  // gatherer's receive of its next row waited in its peer's stream behind
  // the peer's download of its own row, and the peer's behind this one's, so
  // the downloads of the process row ran one after another through the
  // links instead of side by side, and the 2d output took twice the rows
  // layout's time (0.534 s against 0.229 s on 2 H200s, 0.352 s against
  // 0.180 s on 4: docs/scaling.md). The exchange stream first waits for
  // the rounds' last work on the tiles.
  void begin_exchange() {
    const char* on = std::getenv("APSP_OUTPUT_EXCHANGE");
    exchange_ = on != nullptr && std::string(on) == "panel" ? panel_.get() : exchange_stream_.get();
    tiles_final_[0].record(panel_.get());
    tiles_final_[1].record(bulk_.get());
    for (const cuda::Event& e : tiles_final_) APSP_CUDA_CHECK(cudaStreamWaitEvent(exchange_, e.get(), 0));
  }

  // Local tile row r, on a rank other than its gatherer (rank r mod pc of
  // the process row): its b x L block, sent from the tiles on the exchange
  // stream.
  void send_part(Communicator& process_row, std::int64_t r) {
    const Message m = message(own(r, 0), static_cast<std::size_t>(kTile * width_));
    process_row.send(m.data, m.count, m.type, static_cast<int>(r % grid_.cols), Memory::device, exchange_);
  }

  // On the gatherer of a tile row: every other rank's block of it into
  // `slot`, received on the exchange stream once `read` (the event the
  // panel stream records after its last read of the slot's previous row)
  // has passed; the panel stream's next work waits for the receives.
  void receive_parts(Communicator& process_row, std::size_t slot, const cuda::Event& read) {
    APSP_CUDA_CHECK(cudaStreamWaitEvent(exchange_, read.get(), 0));
    for (int c = 0; c < grid_.cols; ++c) {
      if (c == grid_.col) continue;
      const Message m = message(gathered_[slot][static_cast<std::size_t>(c)]->get(),
                                static_cast<std::size_t>(kTile * gathered_width(c)));
      process_row.receive(m.data, m.count, m.type, c, Memory::device, exchange_);
    }
    received_[slot].record(exchange_);
    APSP_CUDA_CHECK(cudaStreamWaitEvent(panel_.get(), received_[slot].get(), 0));
  }

  // Waits until both streams of a delivery are drained: the sends are done
  // (their gatherers have received them), so the tiles may be freed.
  void end_exchange() {
    APSP_CUDA_CHECK(cudaStreamSynchronize(exchange_stream_.get()));
    APSP_CUDA_CHECK(cudaStreamSynchronize(panel_.get()));
  }

  // Enqueues local tile row r of the gather: its send to the gatherer, or
  // on the gatherer its receives (exchange stream) and downloads (panel
  // stream) into slot (r / pc) mod 2, whose event then marks them done.
  void enqueue_gather(Communicator& process_row, std::int64_t r) {
    const int pc = grid_.cols;
    if (r % pc != grid_.col) return send_part(process_row, r);
    const std::size_t slot = static_cast<std::size_t>((r / pc) % 2);
    receive_parts(process_row, slot, gathered_ready_[slot]);
    for (int c = 0; c < pc; ++c) {
      const std::size_t at = static_cast<std::size_t>(c);
      const S* from = c == grid_.col ? own(r, 0) : gathered_[slot][at]->get();
      if (gathered_columns(c) > 0)
        APSP_CUDA_CHECK(cudaMemcpy2DAsync(gathered_host_[slot][at]->get(), gathered_columns(c) * sizeof(S), from,
                                          gathered_width(c) * sizeof(S), gathered_columns(c) * sizeof(S), kTile,
                                          cudaMemcpyDeviceToHost, panel_.get()));
    }
    gathered_ready_[slot].record(panel_.get());
  }

  // This rank's part of local tile row a as b x (C*b) values, row-major,
  // into `parts` (one part: the rows layout): int32 (infinity kInf) for the
  // integer policies, float32 / float64 as stored. Rows are asked for in
  // order: each comes from a pinned staging buffer that the device filled
  // while the previous row was converted, and the next row's copy starts
  // before this one's conversion, so the link and the host's threads both
  // stay busy. Where the staged values need no widening (kViewParts) the
  // part points at the staging buffer itself, which stays untouched until
  // row a + 2 is staged, after this row's conversion: one pass over the
  // values fewer.
  template <class P>
  void download_row(std::int64_t a, TileRowParts<P>& parts) {
    if (own_width_ == 0) return;
    const std::size_t count = static_cast<std::size_t>(kTile * own_width_);
    if (!staged_[0]) {
      for (auto& buffer : staged_) buffer.emplace(count);
      staged_row_[0] = staged_row_[1] = -1;
    }
    const auto stage = [&](std::int64_t r) {
      const std::size_t slot = static_cast<std::size_t>(r % 2);
      APSP_CUDA_CHECK(cudaMemcpy2DAsync(staged_[slot]->get(), own_width_ * sizeof(S), own(r, 0), width_ * sizeof(S),
                                        own_width_ * sizeof(S), kTile, cudaMemcpyDeviceToHost, panel_.get()));
      staged_ready_[slot].record(panel_.get());
      staged_row_[slot] = r;
    };
    const std::size_t slot = static_cast<std::size_t>(a % 2);
    if (staged_row_[slot] != a) stage(a);
    APSP_CUDA_CHECK(cudaEventSynchronize(staged_ready_[slot].get()));
    // The other buffer held row a - 1, converted already.
    if (a + 1 < rows_) stage(a + 1);
    if constexpr (kViewParts)
      parts.view[0] = staged_[slot]->get();
    else
      widen_part<S>(staged_[slot]->get(), count, kInfinity, parts.d[0].data());
    staged_row_[slot] = -1;
  }

  // rows x b block from `from` (leading dimension from_ld) to `to` (to_ld).
  void copy_block(S* to, std::int64_t to_ld, const S* from, std::int64_t from_ld, std::int64_t rows) const {
    if (rows <= 0 || width_ == 0) return;
    APSP_CUDA_CHECK(cudaMemcpy2DAsync(to, to_ld * sizeof(S), from, from_ld * sizeof(S), kTile * sizeof(S), rows,
                                      cudaMemcpyDeviceToDevice, panel_.get()));
  }

  static void transpose(const S* from, std::int64_t from_ld, std::int64_t rows, std::int32_t* to, std::int64_t to_ld,
                        cudaStream_t stream) {
    if (rows <= 0) return;
    constexpr int kThreads = 256;
    transpose_columns<W><<<blocks_for(rows * kTile, kThreads), kThreads, 0, stream>>>(from, from_ld, rows, to, to_ld);
    APSP_CUDA_CHECK_LAUNCH("transpose_columns");
  }

  // panel_t of `s` from its column panel: chunk q holds local rows
  // [q (L/b) b, (q+1) (L/b) b), so its columns stay below L.
  // float64 reads the column panel as it is: nothing to do.
  void transpose_chunks(Slot& s, cudaStream_t stream) const {
    if constexpr (!kF64) {
      if (cols_ == 0) return;
      for_each_chunk(s, 0, rows_, [&](std::int64_t lo, std::int64_t hi, std::int32_t* chunk) {
        transpose(s.column.get() + lo * kTile * kTile, kTile, (hi - lo) * kTile, chunk, width_, stream);
      });
    }
  }

  // body(lo, hi, A) for the pieces of local tile rows [r0, r1) inside one
  // panel_t chunk of `s`, A = where the chunk's columns for row lo start;
  // float64: [r0, r1) at once, A = the column panel's tile row r0.
  template <class F>
  void for_each_chunk(const Slot& s, std::int64_t r0, std::int64_t r1, F&& body) const {
    if (cols_ == 0) return;
    if constexpr (kF64) {
      if (r0 < r1) body(r0, r1, static_cast<const AWord*>(s.column.get() + r0 * kTile * kTile));
    } else {
      for (std::int64_t lo = r0; lo < r1;) {
        const std::int64_t q = lo / chunk_tiles_, hi = std::min(r1, (q + 1) * chunk_tiles_);
        body(lo, hi, s.panel_t.get() + q * kTile * width_ + (lo - q * chunk_tiles_) * kTile);
        lo = hi;
      }
    }
  }

  // c = min(c, a (x) b) on units_x C tile units across and tiles_y tile rows
  // down: c and b with leading dimension L (elements), a a panel_t (k-major,
  // leading dimension L), or for float64 tiles_y tiles of a column panel
  // (or the pivot) as they are (leading dimension b).
  void product(S* c, const AWord* a, const S* b, std::int64_t units_x, std::int64_t tiles_y,
               cudaStream_t stream) const {
    if (units_x <= 0 || tiles_y <= 0) return;
    if constexpr (kF64) {
      f64_update_tiles<F64Traits><<<dim3(static_cast<unsigned>(units_x), static_cast<unsigned>(tiles_y)),
                                    F64Traits::kThreads, F64Traits::kProductSharedBytes, stream>>>(c, a, b, width_);
      APSP_CUDA_CHECK_LAUNCH("f64_update_tiles");
    } else {
      cuda::kernels::update_rest<UpdateTraits<W>, W>
          <<<dim3(static_cast<unsigned>(units_x), static_cast<unsigned>(tiles_y)), Traits::kThreads, kUpdateSharedBytes,
             stream>>>(c, a, reinterpret_cast<const std::int32_t*>(b), width_, kNoSkip, nullptr);
      APSP_CUDA_CHECK_LAUNCH("update_rest");
    }
  }

  // Round update of local tile rows [r0, r1) x C tile units [u0, u1) through
  // the panels of `s`.
  void rectangle(Slot& s, std::int64_t r0, std::int64_t r1, std::int64_t u0, std::int64_t u1, cudaStream_t stream) {
    if (r0 >= r1 || u0 >= u1) return;
    for_each_chunk(s, r0, r1, [&](std::int64_t lo, std::int64_t hi, const AWord* a) {
      product(own(lo, u0 * kUnit), a, s.row.get() + u0 * kUnit * kTile, u1 - u0, hi - lo, stream);
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

  const std::shared_ptr<const ProblemType> problem_;
  const ProcessGrid grid_;
  const std::int64_t n_;
  const std::int64_t rows_, cols_;  // local tile rows R and columns C
  const std::int64_t own_width_;    // C * b: the columns that belong to vertices (or to the last tile's padding)
  const std::int64_t width_;        // L = round_up(C, kUnit) * b
  const std::int64_t units_;        // C tile units across: L / (kUnit * b)
  const bool overlap_;
  const int device_;
  std::int64_t chunk_tiles_ = 0;         // tile rows per panel_t chunk, L / b
  std::vector<std::size_t> slot_cells_;  // row, column, panel_t, pivot, pivot_t
  // The panel phase is each round's critical path: its stream has the
  // highest priority. With both at the default, round k+1's panel kernels
  // (look-ahead) started only as round k's bulk update freed SMs, and the
  // peers' broadcast kernels, already launched, spun on their SMs until the
  // panel arrived: on 2 H100s the rows layout with look-ahead computed 5%
  // longer than without it (docs/scaling.md).
  cuda::Stream panel_{cuda::StreamPriority::highest}, bulk_;
  cuda::DeviceBuffer<S> tiles_;
  Slot slots_[2];
  cudaEvent_t panels_ready_ = nullptr, bulk_done_ = nullptr, origin_ = nullptr;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> intervals_;
  // Delivery: two pinned b x (C*b) buffers of S, alternating between tile
  // rows, the event that marks each one's copy done, and the row it holds
  // (-1: none).
  std::optional<cuda::PinnedBuffer<S>> staged_[2];
  cuda::Event staged_ready_[2];
  std::int64_t staged_row_[2] = {-1, -1};
  // Delivery with several process columns (gather_on_device), two slots
  // (alternate rows that this rank gathers), by process column: the b x L_c
  // block received from it (none for this rank's own), and the pinned
  // b x (C_c * b) download of each part; the event marking a slot's
  // downloads done; the next local tile row to enqueue.
  std::vector<std::unique_ptr<cuda::DeviceBuffer<S>>> gathered_[2];
  std::vector<std::unique_ptr<cuda::PinnedBuffer<S>>> gathered_host_[2];
  cuda::Event gathered_ready_[2];
  // The exchange of the parts (begin_exchange): its own stream, or the
  // panel stream (APSP_OUTPUT_EXCHANGE=panel); the events that mark the
  // tiles final (panel and bulk streams) and each slot's receives done.
  cuda::Stream exchange_stream_;
  cudaStream_t exchange_ = nullptr;
  cuda::Event tiles_final_[2];
  cuda::Event received_[2];
  std::int64_t gathered_next_ = 0;
  // deliver_converted: per slot the converted n-wide rows of a tile row on
  // the device and their pinned download, the device's "bad" flags (one a
  // slot) and their download, and the potentials h on the device.
  std::optional<cuda::DeviceBuffer<dist_t>> converted_[2];
  std::optional<cuda::PinnedBuffer<dist_t>> converted_host_[2];
  cuda::Event converted_ready_[2];
  std::optional<cuda::DeviceBuffer<int>> converted_bad_;
  std::optional<cuda::PinnedBuffer<int>> converted_bad_host_;
  std::optional<cuda::DeviceBuffer<std::int64_t>> potential_;
  std::string range_problem_;  // the first value out of range that delivery found on this rank
};

}  // namespace

int select_device(int device) {
  int devices = 0;
  APSP_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (device < 0 || device >= devices)
    throw UsageError(
        "CUDA device " + std::to_string(device) + " does not exist (found " + std::to_string(devices) + ")", "device");
  APSP_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

std::uint64_t gpu_free_bytes(int device) {
  select_device(device);
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

std::int64_t gpu_tile(WeightType weights) {
  return weights == WeightType::float64 ? tile_of<Float64Tiles>() : tile_of<cuda::kernels::Int32Words>();
}

std::unique_ptr<TileEngine> make_gpu_engine(const Graph& normalized, const ProcessGrid& grid,
                                            const GpuEngineOptions& options) {
  const std::shared_ptr<const Problem> problem = make_gpu_problem(normalized, options.predecessors);
  if (attempt_int16(*problem, options.precision))
    return std::make_unique<GpuEngine<cuda::kernels::Int16Words>>(problem, grid, options);
  return std::make_unique<GpuEngine<cuda::kernels::Int32Words>>(problem, grid, options);
}

namespace {

// Real weights as they are, in the engine of policy W (storage T).
template <class W, class T>
std::unique_ptr<TileEngine> make_real_engine(const BasicGraph<T>& normalized, const ProcessGrid& grid,
                                             const GpuEngineOptions& options) {
  auto problem = std::make_shared<RealProblem<T>>();
  problem->n = normalized.n;
  const BasicWeightStats<T> stats = weight_stats(normalized);
  // A negative cycle is refused before any heavy work, as on one GPU.
  if (stats.has_negative()) johnson_potentials(to_csr(normalized));
  problem->graph_edges = normalized.edges;
  problem->predecessors = options.predecessors;
  if (options.predecessors) problem->out_edges = to_csr(normalized);
  problem->tolerance = core::distance_tolerance<T>(normalized.n, static_cast<double>(stats.max_abs));
  return std::make_unique<GpuEngine<W>>(problem, grid, options);
}

}  // namespace

std::unique_ptr<TileEngine> make_gpu_engine(const GraphF32& normalized, const ProcessGrid& grid,
                                            const GpuEngineOptions& options) {
  return make_real_engine<Float32Words>(normalized, grid, options);
}

std::unique_ptr<TileEngine> make_gpu_engine(const GraphF64& normalized, const ProcessGrid& grid,
                                            const GpuEngineOptions& options) {
  return make_real_engine<Float64Tiles>(normalized, grid, options);
}

std::unique_ptr<TileEngine> widen_gpu_engine(std::unique_ptr<TileEngine> attempt, const ProcessGrid& grid,
                                             const GpuEngineOptions& options) {
  auto* narrow = dynamic_cast<GpuEngine<cuda::kernels::Int16Words>*>(attempt.get());
  if (narrow == nullptr) throw Error("widen_gpu_engine: not an int16 attempt of the GPU engine");
  std::shared_ptr<const Problem> problem = narrow->problem();
  attempt.reset();  // its device memory first
  return std::make_unique<GpuEngine<cuda::kernels::Int32Words>>(std::move(problem), grid, options);
}

}  // namespace apsp::dist
