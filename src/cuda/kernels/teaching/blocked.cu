// Katz and Kider's blocked Floyd-Warshall (the seeds' three-phase algorithm).
// The padded matrix is cut into kTile x kTile blocks; round r runs the pivots
// of diagonal block (r, r):
//   phase 1: block (r, r) alone, in shared memory;
//   phase 2: the blocks of pivot row r and pivot column r, each with the pivot block;
//   phase 3: every other block (i, j), from blocks (i, r) and (r, j).
// Each thread owns kCellsPerThread cells: rows ty + a * kThreadsY and columns
// tx + b * kThreadsX of the tile (blocked-64: 32 x 32 threads, 2 x 2 cells, as
// in the HW3 report).
//
// Predecessors. Phases 2 and 3 relax through blocks already closed over every
// pivot of the round, so with zero-weight cycles "pred[i][j] = pred[k][j] on
// a strict distance improvement" can close a predecessor cycle (plain
// Floyd-Warshall cannot). With predecessors a cell is therefore the 64-bit key
// (distance << 32 | hops), compared lexicographically: every edge adds a hop,
// so no cycle has zero cost, final keys are exact, and hops strictly fall
// along each predecessor chain. Unreachable cells hold 0 hops so that no
// kInf + 0 candidate ever "improves" them.
//
// Host launchers of Katz and Kider's blocked Floyd-Warshall: three launches
// per round of kTile pivots. With predecessors a third n_pad x n_pad matrix
// holds hop counts (see "Predecessors" above).
#include <cstddef>
#include <cstdint>
#include <string>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/teaching/relax.cuh"
#include "cuda/launch.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda::kernels {

template <int Tile, int ThreadsX, int ThreadsY>
struct BlockedTraits {
  static constexpr int kTile = Tile;
  static constexpr int kThreadsX = ThreadsX;
  static constexpr int kThreadsY = ThreadsY;
  static constexpr int kThreads = ThreadsX * ThreadsY;
  static constexpr int kRowsPerThread = Tile / ThreadsY;
  static constexpr int kColsPerThread = Tile / ThreadsX;
  static constexpr int kCellsPerThread = kRowsPerThread * kColsPerThread;
  static_assert(Tile % ThreadsX == 0 && Tile % ThreadsY == 0, "cells split evenly over the threads");
  static_assert(ThreadsX == 32, "a warp spans one tile row: tile[r][k] broadcasts, tile[k][c] is contiguous");
  static_assert(kThreads <= 1024, "one block per tile");
};

using Blocked32 = BlockedTraits<32, 32, 32>;
using Blocked64 = BlockedTraits<64, 32, 32>;

// The matrices a blocked solve works on, all n_pad x n_pad with leading
// dimension ld; pred and hops are null without predecessors.
struct BlockedMatrices {
  dist_t* dist = nullptr;
  vertex_t* pred = nullptr;
  std::int32_t* hops = nullptr;
  std::int64_t ld = 0;
};

// How a cell is held in shared memory and registers (see the header comment).
template <bool kTrackPred>
struct BlockedCell {
  using value_t = dist_t;
  static __device__ __forceinline__ value_t load(const BlockedMatrices& m, std::int64_t at) { return m.dist[at]; }
  static __device__ __forceinline__ void store(const BlockedMatrices& m, std::int64_t at, value_t v) { m.dist[at] = v; }
};

template <>
struct BlockedCell<true> {
  using value_t = unsigned long long;
  static __device__ __forceinline__ value_t load(const BlockedMatrices& m, std::int64_t at) {
    return static_cast<value_t>(static_cast<unsigned>(m.dist[at])) << 32 | static_cast<unsigned>(m.hops[at]);
  }
  static __device__ __forceinline__ void store(const BlockedMatrices& m, std::int64_t at, value_t v) {
    m.dist[at] = static_cast<dist_t>(v >> 32);
    m.hops[at] = static_cast<std::int32_t>(static_cast<unsigned>(v));
  }
};

// Dynamic shared memory of each phase, sized from the traits: phase 1 holds
// one tile of cells, phases 2 and 3 two, each plus one tile of predecessors
// when tracked. blocked-64 with predecessors needs 80 KiB (opt-in above 48 KiB).
template <typename T, bool kTrackPred>
struct BlockedShared {
  using value_t = typename BlockedCell<kTrackPred>::value_t;
  using CellTile = value_t[T::kTile][T::kTile];
  using PredTile = vertex_t[T::kTile][T::kTile];
  static constexpr std::size_t kPredBytes = kTrackPred ? sizeof(PredTile) : 0;
  static constexpr std::size_t kPivotBytes = sizeof(CellTile) + kPredBytes;
  static constexpr std::size_t kPairBytes = 2 * sizeof(CellTile) + kPredBytes;
  static_assert(kPairBytes <= 227 * 1024, "a block's shared memory on sm_90");

  // The i-th cell tile and the predecessor tile after `cell_tiles` cell tiles.
  static __device__ __forceinline__ CellTile& cells(unsigned char* base, int i) {
    return *reinterpret_cast<CellTile*>(base + i * sizeof(CellTile));
  }
  static __device__ __forceinline__ PredTile& preds(unsigned char* base, int cell_tiles) {
    return *reinterpret_cast<PredTile*>(base + cell_tiles * sizeof(CellTile));
  }
};

extern __shared__ __align__(16) unsigned char blocked_shared[];

// hops = 1 for an edge, 0 elsewhere (diagonal, unreachable). Grid-stride over n_pad^2.
__global__ void blocked_init_hops(const dist_t* dist, std::int32_t* hops, std::int64_t n_pad) {
  const std::int64_t total = n_pad * n_pad;
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < total;
       x += std::int64_t{gridDim.x} * blockDim.x)
    hops[x] = x / n_pad != x % n_pad && dist[x] < kInf ? 1 : 0;
}

// Calls f(r, c, cell) for each of this thread's cells (cell = 0..kCellsPerThread-1).
template <typename T, typename F>
__device__ __forceinline__ void for_each_cell(F&& f) {
#pragma unroll
  for (int a = 0; a < T::kRowsPerThread; ++a)
#pragma unroll
    for (int b = 0; b < T::kColsPerThread; ++b)
      f(static_cast<int>(threadIdx.y) + a * T::kThreadsY, static_cast<int>(threadIdx.x) + b * T::kThreadsX,
        a * T::kColsPerThread + b);
}

// Copies the matrix block whose top-left cell is `corner` into / out of shared memory.
template <typename T, bool kTrackPred, typename Tile>
__device__ __forceinline__ void load_cells(Tile& tile, const BlockedMatrices& m, std::int64_t corner) {
  for_each_cell<T>([&](int r, int c, int) { tile[r][c] = BlockedCell<kTrackPred>::load(m, corner + r * m.ld + c); });
}
template <typename T, bool kTrackPred, typename Tile>
__device__ __forceinline__ void store_cells(const Tile& tile, const BlockedMatrices& m, std::int64_t corner) {
  for_each_cell<T>([&](int r, int c, int) { BlockedCell<kTrackPred>::store(m, corner + r * m.ld + c, tile[r][c]); });
}
template <typename T, typename Tile>
__device__ __forceinline__ void load_preds(Tile& tile, const BlockedMatrices& m, std::int64_t corner) {
  for_each_cell<T>([&](int r, int c, int) { tile[r][c] = m.pred[corner + r * m.ld + c]; });
}
template <typename T, typename Tile>
__device__ __forceinline__ void store_preds(const Tile& tile, const BlockedMatrices& m, std::int64_t corner) {
  for_each_cell<T>([&](int r, int c, int) { m.pred[corner + r * m.ld + c] = tile[r][c]; });
}

// Phase 1: one block of kThreadsX x kThreadsY threads on diagonal block
// (round, round); BlockedShared::kPivotBytes of dynamic shared memory.
template <typename T, bool kTrackPred>
__global__ void __launch_bounds__(T::kThreads) blocked_pivot(BlockedMatrices m, std::int64_t round) {
  using Shared = BlockedShared<T, kTrackPred>;
  auto& tile = Shared::cells(blocked_shared, 0);
  auto& tile_pred = Shared::preds(blocked_shared, 1);
  const std::int64_t corner = round * T::kTile * (m.ld + 1);
  load_cells<T, kTrackPred>(tile, m, corner);
  if constexpr (kTrackPred) load_preds<T>(tile_pred, m, corner);
  __syncthreads();
  for (int kk = 0; kk < T::kTile; ++kk) {
    for_each_cell<T>([&](int r, int c, int) {
      relax_in_place<kTrackPred>(tile[r][c], tile[r][kk], tile[kk][c], [&] { tile_pred[r][c] = tile_pred[kk][c]; });
    });
    __syncthreads();
  }
  store_cells<T, kTrackPred>(tile, m, corner);
  if constexpr (kTrackPred) store_preds<T>(tile_pred, m, corner);
}

// Phase 2. Grid: rounds x 2 blocks; blockIdx.y = 0 takes block (round, x) of
// the pivot row, 1 takes block (x, round) of the pivot column; x = round is
// the pivot itself, done in phase 1. BlockedShared::kPairBytes of dynamic
// shared memory.
template <typename T, bool kTrackPred>
__global__ void __launch_bounds__(T::kThreads) blocked_cross(BlockedMatrices m, std::int64_t round) {
  if (std::int64_t{blockIdx.x} == round) return;
  using Shared = BlockedShared<T, kTrackPred>;
  auto& pivot = Shared::cells(blocked_shared, 0);
  auto& own = Shared::cells(blocked_shared, 1);
  // Predecessors the relaxations read: the own block's in the pivot row (it
  // updates them as it goes), the pivot's (final) in the pivot column.
  auto& read_pred = Shared::preds(blocked_shared, 2);
  const bool in_pivot_row = blockIdx.y == 0;
  const std::int64_t pivot_corner = round * T::kTile * (m.ld + 1);
  const std::int64_t other = blockIdx.x * std::int64_t{T::kTile};
  const std::int64_t own_corner = in_pivot_row ? round * T::kTile * m.ld + other : other * m.ld + round * T::kTile;
  load_cells<T, kTrackPred>(pivot, m, pivot_corner);
  load_cells<T, kTrackPred>(own, m, own_corner);
  vertex_t own_pred[T::kCellsPerThread];
  if constexpr (kTrackPred) {
    load_preds<T>(read_pred, m, in_pivot_row ? own_corner : pivot_corner);
    if (!in_pivot_row)
      for_each_cell<T>([&](int r, int c, int cell) { own_pred[cell] = m.pred[own_corner + r * m.ld + c]; });
  }
  __syncthreads();
  if (in_pivot_row) {
    for (int kk = 0; kk < T::kTile; ++kk) {
      for_each_cell<T>([&](int r, int c, int) {
        relax_in_place<kTrackPred>(own[r][c], pivot[r][kk], own[kk][c], [&] { read_pred[r][c] = read_pred[kk][c]; });
      });
      __syncthreads();
    }
  } else {
    for (int kk = 0; kk < T::kTile; ++kk) {
      for_each_cell<T>([&](int r, int c, int cell) {
        relax_in_place<kTrackPred>(own[r][c], own[r][kk], pivot[kk][c], [&] { own_pred[cell] = read_pred[kk][c]; });
      });
      __syncthreads();
    }
  }
  store_cells<T, kTrackPred>(own, m, own_corner);
  if constexpr (kTrackPred) {
    if (in_pivot_row)
      store_preds<T>(read_pred, m, own_corner);
    else
      for_each_cell<T>([&](int r, int c, int cell) { m.pred[own_corner + r * m.ld + c] = own_pred[cell]; });
  }
}

// Phase 3. Grid: rounds x rounds blocks; block (x, y) updates matrix block
// (y, x) from (y, round) and (round, x), which phase 2 finished, so its own
// cells stay in registers and the k loop needs no barrier.
// BlockedShared::kPairBytes of dynamic shared memory.
template <typename T, bool kTrackPred>
__global__ void __launch_bounds__(T::kThreads) blocked_rest(BlockedMatrices m, std::int64_t round) {
  if (std::int64_t{blockIdx.x} == round || std::int64_t{blockIdx.y} == round) return;
  using Shared = BlockedShared<T, kTrackPred>;
  auto& col_block = Shared::cells(blocked_shared, 0);  // d[i][k]: block (y, round)
  auto& row_block = Shared::cells(blocked_shared, 1);  // d[k][j]: block (round, x)
  auto& row_pred = Shared::preds(blocked_shared, 2);
  const std::int64_t tile_row = blockIdx.y * std::int64_t{T::kTile}, tile_col = blockIdx.x * std::int64_t{T::kTile};
  const std::int64_t own_corner = tile_row * m.ld + tile_col;
  const std::int64_t col_corner = tile_row * m.ld + round * T::kTile;
  const std::int64_t row_corner = round * T::kTile * m.ld + tile_col;
  load_cells<T, kTrackPred>(col_block, m, col_corner);
  load_cells<T, kTrackPred>(row_block, m, row_corner);
  if constexpr (kTrackPred) load_preds<T>(row_pred, m, row_corner);
  typename Shared::value_t best[T::kCellsPerThread];
  vertex_t best_pred[T::kCellsPerThread];
  for_each_cell<T>([&](int r, int c, int cell) {
    best[cell] = BlockedCell<kTrackPred>::load(m, own_corner + r * m.ld + c);
    if constexpr (kTrackPred) best_pred[cell] = m.pred[own_corner + r * m.ld + c];
  });
  __syncthreads();
#pragma unroll 4
  for (int kk = 0; kk < T::kTile; ++kk) {
    for_each_cell<T>([&](int r, int c, int cell) {
      relax<kTrackPred>(best[cell], col_block[r][kk], row_block[kk][c], [&] { best_pred[cell] = row_pred[kk][c]; });
    });
  }
  for_each_cell<T>([&](int r, int c, int cell) {
    BlockedCell<kTrackPred>::store(m, own_corner + r * m.ld + c, best[cell]);
    if constexpr (kTrackPred) m.pred[own_corner + r * m.ld + c] = best_pred[cell];
  });
}

}  // namespace apsp::cuda::kernels

namespace apsp::cuda {
namespace {

constexpr int kInitThreads = 256;

template <typename T, bool kTrackPred>
void run_rounds(const GpuProblem& problem, const kernels::BlockedMatrices& m, const char* algorithm) {
  using Shared = kernels::BlockedShared<T, kTrackPred>;
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::blocked_pivot<T, kTrackPred>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, Shared::kPivotBytes));
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::blocked_cross<T, kTrackPred>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, Shared::kPairBytes));
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::blocked_rest<T, kTrackPred>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, Shared::kPairBytes));
  const std::int64_t rounds = problem.n_pad / T::kTile;
  const dim3 block(T::kThreadsX, T::kThreadsY);
  const dim3 cross_grid = grid_of(rounds, 2, algorithm);
  const dim3 rest_grid = grid_of(rounds, rounds, algorithm);
  Progress progress(problem, rounds * T::kTile);
  for (std::int64_t round = 0; round < rounds; ++round) {
    kernels::blocked_pivot<T, kTrackPred><<<1, block, Shared::kPivotBytes, problem.stream>>>(m, round);
    APSP_CUDA_CHECK_LAUNCH("blocked_pivot");
    if (rounds > 1) {
      kernels::blocked_cross<T, kTrackPred><<<cross_grid, block, Shared::kPairBytes, problem.stream>>>(m, round);
      APSP_CUDA_CHECK_LAUNCH("blocked_cross");
      kernels::blocked_rest<T, kTrackPred><<<rest_grid, block, Shared::kPairBytes, problem.stream>>>(m, round);
      APSP_CUDA_CHECK_LAUNCH("blocked_rest");
    }
    progress.reached((round + 1) * T::kTile);
  }
}

template <typename T>
void run_blocked(GpuProblem& problem, const char* algorithm) {
  require_pad_multiple(problem, T::kTile, algorithm);
  problem.used_precision = Precision::int32;
  kernels::BlockedMatrices m;
  m.dist = problem.dist;
  m.ld = problem.n_pad;
  if (problem.pred == nullptr) {
    run_rounds<T, false>(problem, m, algorithm);
    return;
  }
  const std::size_t cells = static_cast<std::size_t>(problem.n_pad) * static_cast<std::size_t>(problem.n_pad);
  require_device_memory(cells * sizeof(std::int32_t), std::string(algorithm) + "'s hop counts for predecessors");
  DeviceBuffer<std::int32_t> hops(cells);
  kernels::
      blocked_init_hops<<<grid_for(problem.n_pad * problem.n_pad, kInitThreads), kInitThreads, 0, problem.stream>>>(
          problem.dist, hops.get(), problem.n_pad);
  APSP_CUDA_CHECK_LAUNCH("blocked_init_hops");
  m.pred = problem.pred;
  m.hops = hops.get();
  run_rounds<T, true>(problem, m, algorithm);
  // `hops` is freed on return: the work that uses it must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(problem.stream));
}

}  // namespace

void run_blocked32(GpuProblem& problem) { run_blocked<kernels::Blocked32>(problem, "blocked-32"); }
void run_blocked64(GpuProblem& problem) { run_blocked<kernels::Blocked64>(problem, "blocked-64"); }

}  // namespace apsp::cuda
