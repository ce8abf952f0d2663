// The tile table of one grouped launch of dense min-plus products through
// fw's square C tiles (the supernodal factor's tiled update, issue 21): each
// product C (m x n) min= A (m x k) (x) B (k x n) reads its operands from a
// packed workspace, k-major (A as k_pad rows of m_pad, B as k_pad rows of
// n_pad; m_pad and n_pad whole tiles, k_pad whole k-chunks, padding +inf),
// and owns ceil(m / tile) x ceil(n / tile) blocks of the launch, row-major
// from tile_begin. tile_task[block] names the product a block works on.
// Host arithmetic only: the CPU tests check it (tests/cpu/test_supernodal.cpp).
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/error.hpp"

namespace apsp::supernodal {

struct TiledProduct {
  std::int64_t m = 0, n = 0, k = 0;
};

struct TiledLayout {
  std::int64_t m_pad = 0, n_pad = 0, k_pad = 0;
  std::int64_t a_offset = 0, b_offset = 0;  // elements into the workspace
  std::int64_t tiles_n = 0;                 // tiles across C
  std::int64_t tile_begin = 0;              // the product's first block of the launch
};

struct TilePlan {
  std::vector<TiledLayout> layouts;     // per product, in order
  std::vector<std::int32_t> tile_task;  // per block of the launch
  std::int64_t words = 0;               // workspace elements
};

// `tile`: C's tile edge (fw's 128); `chunk`: k rows per stage (fw's 32);
// `align`: the elements each operand's start is a multiple of (16-byte
// copies). Products with an empty dimension get a layout and no tiles.
inline TilePlan plan_tiles(const std::vector<TiledProduct>& products, std::int64_t tile, std::int64_t chunk,
                           std::int64_t align) {
  auto round_up = [](std::int64_t x, std::int64_t to) { return (x + to - 1) / to * to; };
  TilePlan plan;
  plan.layouts.reserve(products.size());
  std::int64_t tiles = 0;
  for (std::size_t p = 0; p < products.size(); ++p) {
    const TiledProduct& product = products[p];
    if (product.m < 0 || product.n < 0 || product.k < 0)
      throw UsageError("tiled product " + std::to_string(p) + " has a negative dimension");
    TiledLayout l;
    const bool empty = product.m == 0 || product.n == 0 || product.k == 0;
    if (!empty) {
      l.m_pad = round_up(product.m, tile);
      l.n_pad = round_up(product.n, tile);
      l.k_pad = round_up(product.k, chunk);
      l.a_offset = round_up(plan.words, align);
      l.b_offset = round_up(l.a_offset + l.k_pad * l.m_pad, align);
      plan.words = l.b_offset + l.k_pad * l.n_pad;
      l.tiles_n = l.n_pad / tile;
    }
    l.tile_begin = tiles;
    const std::int64_t count = empty ? 0 : l.m_pad / tile * l.tiles_n;
    if (tiles + count > INT_MAX)
      throw ResourceError("supernodal: a tiled launch of " + std::to_string(tiles + count) +
                          " blocks exceeds CUDA's grid");
    tiles += count;
    plan.tile_task.insert(plan.tile_task.end(), static_cast<std::size_t>(count), static_cast<std::int32_t>(p));
    plan.layouts.push_back(l);
  }
  return plan;
}

}  // namespace apsp::supernodal
