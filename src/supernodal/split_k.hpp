// Split-K for the GPU tiled factor's launches of few tiles (issue 21; the
// tiled factor's panels and update matrices, src/cuda/supernodal_solver.cu,
// kernels/supernodal/tiled_update.cuh): a launch whose products have fewer
// 128 x 128 C tiles than about two waves of the device leaves SMs idle for
// its whole length, so each product's depth k (its k-chunks) is cut into
// pieces, one block per (tile, piece), each min-ing its partial product into
// C. Host arithmetic only: which products split into how many pieces, and
// where a piece's chunks begin; the CPU tests check it
// (tests/cpu/test_supernodal_split_k.cpp).
//
// The choice models the launch as blocks taken in launch order by the
// device's `resident` slots (blocks per SM from the occupancy API, times the
// SMs), each slot taking the next block when its block ends, a block lasting
// its chunks plus a fixed start and end (the first stage's load, C's fold):
// the launch ends when its last block does. Of the piece counts 1 ..
// max_pieces (each product's capped so that every piece keeps
// min_piece_chunks), the one of the shortest modeled launch wins; a larger
// count must win by min_gain to be taken (the model leaves out the atomic
// traffic and that a block alone on its SM runs faster than one of two).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"

namespace apsp::supernodal {

// One product of a launch: its C tiles and its depth in k-chunks.
struct SplitKProduct {
  std::int64_t tiles = 0;
  std::int64_t chunks = 0;
};

struct SplitKRule {
  std::int64_t resident = 0;          // blocks the device runs at once (> 0)
  std::int64_t min_piece_chunks = 2;  // the least depth of a piece, in k-chunks
  std::int64_t max_pieces = 8;
  double target_waves = 2.0;     // launches of at least this many waves of tiles stay whole
  double overhead_chunks = 0.5;  // a block's start and end, in chunk times
  double min_gain = 0.03;        // a larger piece count must shorten the modeled launch by this share
  // >= 2: every product split into this many pieces (fewer where its depth
  // has fewer chunks), pieces of one chunk allowed (tests: the split path
  // where the shape would not choose it); else the model decides.
  std::int64_t forced = 0;
};

// Where piece p of `pieces` of a depth of `chunks` k-chunks begins (p =
// pieces: its end).
APSP_HOST_DEVICE inline std::int64_t split_k_piece_begin(std::int64_t chunks, std::int64_t pieces, std::int64_t p) {
  return p * chunks / pieces;
}

// What one block of a split or stream-K launch computes: chunks [chunk_begin,
// chunk_end) of tile `tile` (row-major in its product's C), mined into C
// atomically when `shared` (other blocks take other chunks of that tile).
// The kernels (tiled_products<D, true>, tiled_stream_products) decode their
// blocks with these functions; the CPU tests check that the blocks cover
// each tile's chunks exactly once.
struct TileChunks {
  std::int64_t tile = 0, chunk_begin = 0, chunk_end = 0;
  bool shared = false;
};

// Split-K: block `local` of a product of `tiles` tiles and `chunks` k-chunks
// in `pieces` pieces, its blocks piece-major.
APSP_HOST_DEVICE inline TileChunks split_k_block(std::int64_t local, std::int64_t tiles, std::int64_t chunks,
                                                 std::int64_t pieces) {
  const std::int64_t piece = local / tiles;
  return TileChunks{local - piece * tiles, split_k_piece_begin(chunks, pieces, piece),
                    split_k_piece_begin(chunks, pieces, piece + 1), pieces > 1};
}

// Stream-K: block b of `blocks` takes the launch's steps [stream_k_begin(b),
// stream_k_begin(b + 1)) of `steps`.
APSP_HOST_DEVICE inline std::int64_t stream_k_begin(std::int64_t block, std::int64_t blocks, std::int64_t steps) {
  return block * steps / blocks;
}

// Stream-K: the block's next tile from `step` (step - task_begin into a
// product of `chunks` k-chunks a tile) up to its range's `end`: the chunks
// left in the tile or in the range, shared unless it covers the whole tile
// (the ranges are disjoint: no other block touches that tile then).
APSP_HOST_DEVICE inline TileChunks stream_k_segment(std::int64_t step, std::int64_t task_begin, std::int64_t chunks,
                                                    std::int64_t end) {
  const std::int64_t local = step - task_begin;
  TileChunks t;
  t.tile = local / chunks;
  t.chunk_begin = local - t.tile * chunks;
  t.chunk_end = end - step < chunks - t.chunk_begin ? t.chunk_begin + (end - step) : chunks;
  t.shared = t.chunk_begin > 0 || t.chunk_end < chunks;
  return t;
}

// The most pieces a product of `chunks` k-chunks takes with pieces of at least `min_piece_chunks`.
inline std::int64_t split_k_max_pieces(std::int64_t chunks, std::int64_t min_piece_chunks, std::int64_t cap) {
  return std::max<std::int64_t>(1, std::min(cap, chunks / std::max<std::int64_t>(1, min_piece_chunks)));
}

// The modeled length of a launch, in chunk times: per product, `pieces[p]`
// x tiles blocks, piece-major, each of its piece's chunks plus the overhead,
// taken in order by `resident` slots.
inline double split_k_makespan(const std::vector<SplitKProduct>& products, const std::vector<std::int64_t>& pieces,
                               std::int64_t resident, double overhead_chunks) {
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at;
  for (std::int64_t s = 0; s < resident; ++s) free_at.push(0.0);
  double end = 0;
  for (std::size_t p = 0; p < products.size(); ++p)
    for (std::int64_t piece = 0; piece < pieces[p]; ++piece) {
      const double length = static_cast<double>(split_k_piece_begin(products[p].chunks, pieces[p], piece + 1) -
                                                split_k_piece_begin(products[p].chunks, pieces[p], piece)) +
                            overhead_chunks;
      for (std::int64_t t = 0; t < products[p].tiles; ++t) {
        const double start = free_at.top();
        free_at.pop();
        free_at.push(start + length);
        end = std::max(end, start + length);
      }
    }
  return end;
}

// Pieces per product (all 1: the launch stays whole).
inline std::vector<std::int64_t> split_k_pieces(const std::vector<SplitKProduct>& products, const SplitKRule& rule) {
  if (rule.resident <= 0) throw UsageError("split-K: " + std::to_string(rule.resident) + " resident blocks");
  if (rule.min_piece_chunks < 1 || rule.max_pieces < 1)
    throw UsageError("split-K: pieces of at least " + std::to_string(rule.min_piece_chunks) + " chunks, at most " +
                     std::to_string(rule.max_pieces) + " pieces");
  std::int64_t tiles = 0;
  for (const SplitKProduct& p : products) {
    if (p.tiles < 0 || p.chunks < 0) throw UsageError("split-K: a product of negative tiles or chunks");
    tiles += p.tiles;
  }
  auto uniform = [&](std::int64_t count, std::int64_t min_chunks) {
    std::vector<std::int64_t> pieces(products.size(), 1);
    for (std::size_t p = 0; p < products.size(); ++p)
      if (products[p].tiles > 0) pieces[p] = split_k_max_pieces(products[p].chunks, min_chunks, count);
    return pieces;
  };
  if (rule.forced >= 2) return uniform(rule.forced, 1);
  std::vector<std::int64_t> best(products.size(), 1);
  if (tiles == 0 || static_cast<double>(tiles) >= rule.target_waves * static_cast<double>(rule.resident)) return best;
  double best_time = split_k_makespan(products, best, rule.resident, rule.overhead_chunks);
  for (std::int64_t count = 2; count <= rule.max_pieces; ++count) {
    const std::vector<std::int64_t> pieces = uniform(count, rule.min_piece_chunks);
    const double time = split_k_makespan(products, pieces, rule.resident, rule.overhead_chunks);
    if (time < best_time * (1.0 - rule.min_gain)) {
      best = pieces;
      best_time = time;
    }
  }
  return best;
}

// Stream-K (kernels/supernodal/stream_k.cuh): the launch's products as one
// sequence of (tile, k-chunk) steps, block b of G taking the steps [b S / G,
// (b + 1) S / G). The blocks a launch takes (0: it stays whole): forced (>=
// 2), that many, at most the steps; by shape, G = the resident blocks (at
// most S / min_piece_chunks), taken when the modeled length, a block's share
// of the steps plus a start and end per tile it meets, beats the whole
// launch's (split_k_makespan) by min_gain.
inline std::int64_t stream_k_blocks(const std::vector<SplitKProduct>& products, const SplitKRule& rule) {
  if (rule.resident <= 0) throw UsageError("stream-K: " + std::to_string(rule.resident) + " resident blocks");
  if (rule.min_piece_chunks < 1) throw UsageError("stream-K: pieces of " + std::to_string(rule.min_piece_chunks));
  std::int64_t steps = 0, shallowest = 0;
  for (const SplitKProduct& p : products) {
    if (p.tiles < 0 || p.chunks < 0) throw UsageError("stream-K: a product of negative tiles or chunks");
    if (p.tiles == 0 || p.chunks == 0) continue;
    steps += p.tiles * p.chunks;
    shallowest = shallowest == 0 ? p.chunks : std::min(shallowest, p.chunks);
  }
  if (steps == 0) return 0;
  if (rule.forced >= 2) return std::min(rule.forced, steps);
  const std::int64_t blocks = std::max<std::int64_t>(1, std::min(rule.resident, steps / rule.min_piece_chunks));
  const std::int64_t share = (steps + blocks - 1) / blocks;
  const std::int64_t tiles_met = (share + shallowest - 1) / shallowest + 1;
  const double stream = static_cast<double>(share) + static_cast<double>(tiles_met) * rule.overhead_chunks;
  const double whole =
      split_k_makespan(products, std::vector<std::int64_t>(products.size(), 1), rule.resident, rule.overhead_chunks);
  return stream < whole * (1.0 - rule.min_gain) ? blocks : 0;
}

}  // namespace apsp::supernodal
