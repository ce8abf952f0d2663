// Private to src/distributed: which rank owns which tile. T x T tiles on a pr x pc
// process grid, cyclic in both directions: tile (I, J) lives on grid rank
// (I mod pr, J mod pc) as its local tile (I / pr, J / pc). Cyclic rather than
// contiguous blocks so that the pivot row and column, which move one tile per
// round, visit every process row and column in turn.
#pragma once

#include <cstdint>

namespace apsp::dist {

struct ProcessGrid {
  int rows = 1;            // pr
  int cols = 1;            // pc
  int row = 0;             // this rank's process row, rank / pc
  int col = 0;             // this rank's process column, rank % pc
  std::int64_t tiles = 0;  // T

  // Tiles of one dimension that a process row (column) `p` of `parts` owns.
  static std::int64_t count(std::int64_t tiles, int parts, int p) {
    return tiles > p ? (tiles - 1 - p) / parts + 1 : 0;
  }
  std::int64_t local_rows() const { return count(tiles, rows, row); }
  std::int64_t local_cols() const { return count(tiles, cols, col); }
  std::int64_t global_row(std::int64_t a) const { return a * rows + row; }
  std::int64_t global_col(std::int64_t b) const { return b * cols + col; }
  bool owns_row(std::int64_t I) const { return I % rows == row; }
  bool owns_col(std::int64_t J) const { return J % cols == col; }
  int owner_row(std::int64_t I) const { return static_cast<int>(I % rows); }
  int owner_col(std::int64_t J) const { return static_cast<int>(J % cols); }
};

}  // namespace apsp::dist
