// The C tile of one launch of the supernodal tiled factor (tile64, issue
// 21): fw's 128 x 128 tile, or the 64 x 64 one (kernels/supernodal's
// Tiled64Traits) where the launch has too few 128 tiles to fill the device
// or pads too much. Host arithmetic only: the CPU tests check it
// (tests/cpu/test_supernodal.cpp).
//
// The model. A launch of T tiles of 128 on R resident 128-blocks runs in
// ceil(T / R) waves, each as long as a block's whole depth; with T < R
// some SMs hold one block and some two, and the launch lasts as long as a
// doubly loaded SM. On 64 tiles the same add-mins are four times the
// blocks of a quarter of the work each, spread over the SMs' six block
// slots: the last wave's idle share falls from up to a half (one 128 block
// too many) to about an eighth, and a dimension that pads to 128 (k = 156
// -> 256 rows) pads to 64 instead (192). The price is the 64 tile's lower
// throughput per SM at full occupancy (fewer warps to hide the shared
// loads' latency; measured by the bench's -t64a rows). So the 64 tile is
// taken where the 128 launch fills less than max_waves waves (its idle
// share is then at least a quarter of its last wave's slots, and at one
// wave or less up to a half) or where the 128 tile's padding adds more
// than max_padding of the add-mins; many-wave launches (uniform's fronts,
// thousands of tiles) keep the 128 tile.
#pragma once

#include <cstdint>
#include <vector>

#include "supernodal/tile_plan.hpp"

namespace apsp::supernodal {

struct TileChoiceRule {
  std::int64_t resident_128 = 0;  // 128-tile blocks the device runs at once (occupancy x SMs); <= 0: always 128
  double max_waves = 2.0;         // the 128 launch's waves below which the 64 tile is taken
  double max_padding = 0.10;      // the 128 tile's padded add-mins over the 64 tile's, less 1, above which too
  // 0: by the model above; 64 or 128: that tile for every launch (the hook's forcing).
  int forced = 0;
};

// 128 or 64 for a launch of `products` (empty ones ignored; none: 128).
inline int choose_tile(const std::vector<TiledProduct>& products, const TileChoiceRule& rule) {
  if (rule.forced == 64 || rule.forced == 128) return rule.forced;
  auto tiles = [](std::int64_t x, std::int64_t edge) { return (x + edge - 1) / edge; };
  double tiles_128 = 0, padded_128 = 0, padded_64 = 0;
  for (const TiledProduct& p : products) {
    if (p.m <= 0 || p.n <= 0 || p.k <= 0) continue;
    tiles_128 += static_cast<double>(tiles(p.m, 128) * tiles(p.n, 128));
    const double depth = static_cast<double>(p.k);
    padded_128 += static_cast<double>(tiles(p.m, 128) * 128) * static_cast<double>(tiles(p.n, 128) * 128) * depth;
    padded_64 += static_cast<double>(tiles(p.m, 64) * 64) * static_cast<double>(tiles(p.n, 64) * 64) * depth;
  }
  if (tiles_128 == 0 || rule.resident_128 <= 0) return 128;
  if (tiles_128 < rule.max_waves * static_cast<double>(rule.resident_128)) return 64;
  return padded_128 > (1.0 + rule.max_padding) * padded_64 ? 64 : 128;
}

}  // namespace apsp::supernodal
