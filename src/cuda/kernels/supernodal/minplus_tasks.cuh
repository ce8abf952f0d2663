// Grouped min-plus products for the supernodal factor and solve: one launch
// runs a list of independent products C min= A (x) B of different shapes
// (the fronts of one etree level, or the supernodes of one level for a batch
// of sources), each cut into tiles of C, one thread block per tile. Each
// product picks its tile shape by its row count (TileShape: 4 to 64 rows of
// C and 1024 to 64 columns, always 4096 cells), so that a supernode a few
// columns wide (most of the tree) fills its block instead of 4 of 64 rows.
// A is read through two strides (a transposed panel of a front costs
// nothing); B's rows may be gathered and C's rows scattered through an index
// list (the structure S_K of a supernode, in the solve's working rows).
#pragma once

#include <cstdint>

#include "cuda/kernels/supernodal/arith.cuh"

namespace apsp::cuda::kernels::supernodal {

inline constexpr int kThreads = 256;   // per block
inline constexpr int kThreadRows = 4;  // entries of C per thread: 4 rows x 4 columns
inline constexpr int kThreadCols = 4;
inline constexpr int kTileCells = kThreads * kThreadRows * kThreadCols;  // 4096 entries of C per block
inline constexpr int kStageCells = 4096;  // B entries per shared-memory stage (16 KiB int32 / float32)
inline constexpr int kMaxInner = 16;      // inner indices per stage
inline constexpr int kShapes = 5;         // TileShape<4> .. TileShape<64>

// A tile of kRows x (4096 / kRows) entries of C: kRows / 4 threads down, the
// rest across. `inner` indices per shared-memory stage keep the B stage at
// kStageCells entries (1024-column tiles take 4 at a time).
template <int kRows>
struct TileShape {
  static constexpr int rows = kRows;
  static constexpr int cols = kTileCells / kRows;
  static constexpr int inner = kStageCells / cols < kMaxInner ? kStageCells / cols : kMaxInner;
  static constexpr int row_threads = rows / kThreadRows;
  static constexpr int col_threads = cols / kThreadCols;
  // The B stage's loads: b_row_threads threads along each row of B's stage,
  // b_rows_per_pass rows at once, b_cols_per_thread entries of a row each.
  static constexpr int b_row_threads = cols < kThreads ? cols : kThreads;
  static constexpr int b_rows_per_pass = kThreads / b_row_threads;
  static constexpr int b_cols_per_thread = cols / b_row_threads;
  static_assert(rows % kThreadRows == 0 && cols % kThreadCols == 0, "whole thread tiles");
  static_assert(row_threads * col_threads == kThreads, "one thread per 4 x 4 entries of the tile");
  static_assert(inner >= 1 && inner * cols <= kStageCells, "the B stage fits its shared memory");
  static_assert((inner * cols) % kThreads == 0, "whole B loads per thread");
  static_assert(inner % b_rows_per_pass == 0 && b_row_threads * b_cols_per_thread == cols,
                "the B stage's rows and columns split evenly over the threads");
};

// The tile rows of shape index 0 .. kShapes - 1 (4, 8, 16, 32, 64), and the
// smallest shape whose rows cover m (the largest for m > 64).
__host__ __device__ constexpr int shape_rows(int shape) { return 4 << shape; }
__host__ __device__ constexpr int shape_cols(int shape) { return kTileCells / shape_rows(shape); }
__host__ __device__ constexpr int shape_for_rows(std::int64_t m) {
  int shape = 0;
  while (shape + 1 < kShapes && shape_rows(shape) < m) ++shape;
  return shape;
}
static_assert(shape_rows(kShapes - 1) == 64 && shape_cols(0) == 1024 && shape_for_rows(5) == 1 &&
                  shape_for_rows(1000) == kShapes - 1,
              "the shape table");

// One product C(r, c) = min(C(r, c), min_t A(r, t) + B(t, c)) for r < m,
// c < n, t < k, where
//   A(r, t) = a[r * a_row + t * a_inner]
//   B(t, c) = b[(b_rows ? b_rows[t] : t) * ldb + c]
//   C(r, c) = c[(c_rows ? c_rows[r] : r) * ldc + c]
// Its tiles (shape_rows(shape) x shape_cols(shape) entries of C) are
// tile_begin .. tile_begin + ceil(m / rows) * tiles_n - 1 of the launch
// (row-major over the tile grid). C may overlap A or B (in-place panels and
// closures): every value read is a length of a real path, at least the final
// value, and min-plus with a closed block is idempotent, so reading a
// neighbour's updated value early only reaches the result sooner.
// c_stamp: when set and *c_stamp differs from the launch's stamp, C's old
// entries are stale (they stand for +inf) and are overwritten, not read: the
// solve's backward products into working rows that this batch did not
// initialize.
template <class D>
struct MinPlusTask {
  const D* a;
  std::int64_t a_row, a_inner;
  const D* b;
  const std::int32_t* b_rows;
  std::int64_t ldb;
  D* c;
  const std::int32_t* c_rows;
  std::int64_t ldc;
  std::int32_t m, n, k;
  std::int32_t shape;
  std::int32_t tiles_n;
  std::int64_t tile_begin;
  const std::int32_t* c_stamp;
};

// The shared memory of the largest stage over all shapes: A (inner x
// (rows + 1)) and B (inner x cols).
template <class D>
struct StageMemory {
  static constexpr int a_cells = kMaxInner * (64 + 1);
  D a[a_cells];
  D b[kStageCells];
};
static_assert(TileShape<64>::inner * (64 + 1) <= StageMemory<int>::a_cells &&
                  TileShape<32>::inner * (32 + 1) <= StageMemory<int>::a_cells,
              "every shape's A stage fits");

// The block's tile `local` of `task`, columns beyond col_limit left alone.
template <class D, bool kAtomic, class Shape>
__device__ void minplus_tile(const MinPlusTask<D>& task, int local, int col_limit, int stamp, StageMemory<D>& stage) {
  using A = Arith<D>;
  constexpr int kRows = Shape::rows, kCols = Shape::cols, kInner = Shape::inner;
  D(*a_tile)[kRows + 1] = reinterpret_cast<D(*)[kRows + 1]>(stage.a);  // a_tile[t][r], padded against bank conflicts
  D(*b_tile)[kCols] = reinterpret_cast<D(*)[kCols]>(stage.b);          // b_tile[t][c]

  const int row0 = local / task.tiles_n * kRows;
  const int col0 = local % task.tiles_n * kCols;
  const int n = min(task.n, col_limit);
  const int tx = threadIdx.x % Shape::col_threads, ty = threadIdx.x / Shape::col_threads;
  const D inf = A::infinity();
  D acc[kThreadRows][kThreadCols];
#pragma unroll
  for (int i = 0; i < kThreadRows; ++i)
#pragma unroll
    for (int j = 0; j < kThreadCols; ++j) acc[i][j] = inf;

  // A's stage walks its unit-stride index fastest (coalesced either way).
  const bool a_rows_contiguous = task.a_row == 1;
  for (int k0 = 0; k0 < task.k; k0 += kInner) {
    for (int e = threadIdx.x; e < kRows * kInner; e += kThreads) {
      const int r = a_rows_contiguous ? e % kRows : e / kInner;
      const int t = a_rows_contiguous ? e / kRows : e % kInner;
      D v = inf;
      if (row0 + r < task.m && k0 + t < task.k)
        v = task.a[std::int64_t{row0 + r} * task.a_row + std::int64_t{k0 + t} * task.a_inner];
      a_tile[t][r] = v;
    }
    // B's stage: threads along a row of B (Shape::b_row_threads of them),
    // the rest down; one row pointer per row this thread loads (few
    // registers: the kernel's occupancy is what hides the gathers' latency).
#pragma unroll
    for (int t = threadIdx.x / Shape::b_row_threads; t < kInner; t += Shape::b_rows_per_pass) {
      const bool row_in = k0 + t < task.k;
      const D* row = task.b;
      if (row_in) row += std::int64_t{task.b_rows ? task.b_rows[k0 + t] : k0 + t} * task.ldb + col0;
#pragma unroll
      for (int j = 0; j < Shape::b_cols_per_thread; ++j) {
        const int c = threadIdx.x % Shape::b_row_threads + j * Shape::b_row_threads;
        b_tile[t][c] = row_in && col0 + c < n ? row[c] : inf;
      }
    }
    __syncthreads();
#pragma unroll
    for (int t = 0; t < kInner; ++t) {
      D a[kThreadRows], b[kThreadCols];
#pragma unroll
      for (int i = 0; i < kThreadRows; ++i) a[i] = a_tile[t][ty + Shape::row_threads * i];
#pragma unroll
      for (int j = 0; j < kThreadCols; ++j) b[j] = b_tile[t][tx + Shape::col_threads * j];
#pragma unroll
      for (int i = 0; i < kThreadRows; ++i)
#pragma unroll
        for (int j = 0; j < kThreadCols; ++j) acc[i][j] = A::add_min(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

  const bool stale = task.c_stamp != nullptr && *task.c_stamp != stamp;
#pragma unroll
  for (int i = 0; i < kThreadRows; ++i) {
    const int r = row0 + ty + Shape::row_threads * i;
    if (r >= task.m) continue;
    D* row = task.c + (task.c_rows ? std::int64_t{task.c_rows[r]} : std::int64_t{r}) * task.ldc;
#pragma unroll
    for (int j = 0; j < kThreadCols; ++j) {
      const int c = col0 + tx + Shape::col_threads * j;
      if (c >= n) continue;
      if constexpr (kAtomic) {
        if (acc[i][j] < inf) A::atomic_min(row + c, acc[i][j]);
      } else if (stale || acc[i][j] < row[c]) {
        row[c] = acc[i][j];
      }
    }
  }
}

// Resident blocks per SM the kernel's registers must allow: the tiles of
// narrow supernodes are short gathers, and only many resident blocks hide
// their latency (one block per SM, at the 184 registers the kernel took
// unbounded, moved 0.4 TB/s). int32 and float32 fit 64 registers unspilled;
// float64's accumulators need twice the registers.
template <class D>
inline constexpr int kMinBlocks = sizeof(D) > 4 ? 2 : 4;

// Runs a launch's tasks, gridDim.x = their total tiles; tile_task[tile] is
// the index in `tasks` of the task that tile belongs to; columns of every task beyond col_limit are
// left alone (the solve's last, narrower batch); `stamp`: see c_stamp. kAtomic: C is written with
// an atomic min (tasks of the launch whose scattered rows may coincide).
template <class D, bool kAtomic>
__global__ void __launch_bounds__(kThreads, kMinBlocks<D>)
    minplus_tasks(const MinPlusTask<D>* __restrict__ tasks, const std::int32_t* __restrict__ tile_task, int col_limit,
                  int stamp) {
  __shared__ StageMemory<D> stage;
  const std::int64_t tile = blockIdx.x;
  const MinPlusTask<D> task = tasks[tile_task[tile]];
  const int local = static_cast<int>(tile - task.tile_begin);
  // The whole block leaves before any barrier when its columns are past the limit.
  if (local % task.tiles_n * shape_cols(task.shape) >= min(task.n, col_limit)) return;
  switch (task.shape) {
    case 0: minplus_tile<D, kAtomic, TileShape<4>>(task, local, col_limit, stamp, stage); break;
    case 1: minplus_tile<D, kAtomic, TileShape<8>>(task, local, col_limit, stamp, stage); break;
    case 2: minplus_tile<D, kAtomic, TileShape<16>>(task, local, col_limit, stamp, stage); break;
    case 3: minplus_tile<D, kAtomic, TileShape<32>>(task, local, col_limit, stamp, stage); break;
    default: minplus_tile<D, kAtomic, TileShape<64>>(task, local, col_limit, stamp, stage); break;
  }
}

}  // namespace apsp::cuda::kernels::supernodal
