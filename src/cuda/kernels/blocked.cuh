// Katz and Kider's blocked Floyd-Warshall (the seeds' three-phase algorithm).
// The padded matrix is cut into kTile x kTile blocks; round r runs the pivots
// of diagonal block (r, r):
//   phase 1: block (r, r) alone, in shared memory;
//   phase 2: the blocks of pivot row r and pivot column r, each with the pivot block;
//   phase 3: every other block (i, j), from blocks (i, r) and (r, j).
// Each thread owns kCellsPerThread cells: rows ty + a * kThreadsY and columns
// tx + b * kThreadsX of the tile (blocked-64: 32 x 32 threads, 2 x 2 cells, as
// in the HW3 report).
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "common.cuh"

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
  static_assert(ThreadsX == 32, "a warp spans one tile row: tile[r][k] broadcasts, tile[k][c] hits 32 banks");
  static_assert(kThreads <= 1024, "one block per tile");
  // Phases 2 and 3 stage three tiles (two of distances and one of
  // predecessors): they must fit the 48 KiB of static shared memory.
  static_assert(3 * Tile * Tile * sizeof(dist_t) <= 48 * 1024, "three tiles in static shared memory");
};

using Blocked32 = BlockedTraits<32, 32, 32>;
using Blocked64 = BlockedTraits<64, 32, 32>;

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

// Copies the tile at `block` (its top-left cell, leading dimension ld) into shared memory.
template <typename T, typename V>
__device__ __forceinline__ void load_tile(V (&tile)[T::kTile][T::kTile], const V* block, std::int64_t ld) {
  for_each_cell<T>([&](int r, int c, int) { tile[r][c] = block[r * ld + c]; });
}

template <typename T, typename V>
__device__ __forceinline__ void store_tile(const V (&tile)[T::kTile][T::kTile], V* block, std::int64_t ld) {
  for_each_cell<T>([&](int r, int c, int) { block[r * ld + c] = tile[r][c]; });
}

// Phase 1: one block of kThreadsX x kThreadsY threads on diagonal block (round, round).
template <typename T, bool kTrackPred>
__global__ void __launch_bounds__(T::kThreads)
    blocked_pivot(dist_t* dist, vertex_t* pred, std::int64_t ld, std::int64_t round) {
  __shared__ dist_t tile[T::kTile][T::kTile];
  __shared__ vertex_t tile_pred[kTrackPred ? T::kTile : 1][T::kTile];
  const std::int64_t corner = round * T::kTile * (ld + 1);
  load_tile<T>(tile, dist + corner, ld);
  if constexpr (kTrackPred) load_tile<T>(tile_pred, pred + corner, ld);
  __syncthreads();
  for (int kk = 0; kk < T::kTile; ++kk) {
    for_each_cell<T>([&](int r, int c, int) {
      relax_in_place<kTrackPred>(tile[r][c], tile[r][kk], tile[kk][c], [&] { tile_pred[r][c] = tile_pred[kk][c]; });
    });
    __syncthreads();
  }
  store_tile<T>(tile, dist + corner, ld);
  if constexpr (kTrackPred) store_tile<T>(tile_pred, pred + corner, ld);
}

// Phase 2. Grid: rounds x 2 blocks; blockIdx.y = 0 takes block (round, x) of
// the pivot row, 1 takes block (x, round) of the pivot column; x = round is
// the pivot itself, done in phase 1.
template <typename T, bool kTrackPred>
__global__ void __launch_bounds__(T::kThreads)
    blocked_cross(dist_t* dist, vertex_t* pred, std::int64_t ld, std::int64_t round) {
  if (std::int64_t{blockIdx.x} == round) return;
  __shared__ dist_t pivot[T::kTile][T::kTile];
  __shared__ dist_t own[T::kTile][T::kTile];
  // Predecessors the relaxations read: the own block's in the pivot row (it
  // updates them as it goes), the pivot's (final) in the pivot column.
  __shared__ vertex_t read_pred[kTrackPred ? T::kTile : 1][T::kTile];
  const bool in_pivot_row = blockIdx.y == 0;
  const std::int64_t pivot_corner = round * T::kTile * (ld + 1);
  const std::int64_t other = blockIdx.x * std::int64_t{T::kTile};
  const std::int64_t own_corner = in_pivot_row ? round * T::kTile * ld + other : other * ld + round * T::kTile;
  load_tile<T>(pivot, dist + pivot_corner, ld);
  load_tile<T>(own, dist + own_corner, ld);
  vertex_t own_pred[T::kCellsPerThread];
  if constexpr (kTrackPred) {
    load_tile<T>(read_pred, pred + (in_pivot_row ? own_corner : pivot_corner), ld);
    if (!in_pivot_row)
      for_each_cell<T>([&](int r, int c, int cell) { own_pred[cell] = pred[own_corner + r * ld + c]; });
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
  store_tile<T>(own, dist + own_corner, ld);
  if constexpr (kTrackPred) {
    if (in_pivot_row)
      store_tile<T>(read_pred, pred + own_corner, ld);
    else
      for_each_cell<T>([&](int r, int c, int cell) { pred[own_corner + r * ld + c] = own_pred[cell]; });
  }
}

// Phase 3. Grid: rounds x rounds blocks; block (x, y) updates matrix block
// (y, x) from (y, round) and (round, x), which phase 2 finished, so its own
// cells stay in registers and the k loop needs no barrier.
template <typename T, bool kTrackPred>
__global__ void __launch_bounds__(T::kThreads)
    blocked_rest(dist_t* dist, vertex_t* pred, std::int64_t ld, std::int64_t round) {
  if (std::int64_t{blockIdx.x} == round || std::int64_t{blockIdx.y} == round) return;
  __shared__ dist_t col_block[T::kTile][T::kTile];  // d[i][k]: block (y, round)
  __shared__ dist_t row_block[T::kTile][T::kTile];  // d[k][j]: block (round, x)
  __shared__ vertex_t row_pred[kTrackPred ? T::kTile : 1][T::kTile];
  const std::int64_t own_corner = blockIdx.y * std::int64_t{T::kTile} * ld + blockIdx.x * std::int64_t{T::kTile};
  const std::int64_t col_corner = blockIdx.y * std::int64_t{T::kTile} * ld + round * T::kTile;
  const std::int64_t row_corner = round * T::kTile * ld + blockIdx.x * std::int64_t{T::kTile};
  load_tile<T>(col_block, dist + col_corner, ld);
  load_tile<T>(row_block, dist + row_corner, ld);
  if constexpr (kTrackPred) load_tile<T>(row_pred, pred + row_corner, ld);
  dist_t best[T::kCellsPerThread];
  vertex_t best_pred[T::kCellsPerThread];
  for_each_cell<T>([&](int r, int c, int cell) {
    best[cell] = dist[own_corner + r * ld + c];
    if constexpr (kTrackPred) best_pred[cell] = pred[own_corner + r * ld + c];
  });
  __syncthreads();
#pragma unroll 4
  for (int kk = 0; kk < T::kTile; ++kk) {
    for_each_cell<T>([&](int r, int c, int cell) {
      relax<kTrackPred>(best[cell], col_block[r][kk], row_block[kk][c], [&] { best_pred[cell] = row_pred[kk][c]; });
    });
  }
  for_each_cell<T>([&](int r, int c, int cell) {
    dist[own_corner + r * ld + c] = best[cell];
    if constexpr (kTrackPred) pred[own_corner + r * ld + c] = best_pred[cell];
  });
}

}  // namespace apsp::cuda::kernels
