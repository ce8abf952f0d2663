// The schedule of out-of-core blocked Floyd-Warshall, host-safe: the matrix
// (order n_pad = blocks * width) lives in host memory as blocks x blocks
// super-tiles of width x width cells, and an executor (the CPU's in
// src/cpu/floyd_warshall.cpp, the GPU's in src/cuda/fw_out_of_core.cu) works
// through it one super-tile at a time. Super-round K:
//   diagonal      (K, K)  <- its own closure D*                 (pivots of K, in order)
//   row_panel     (K, J)  <- D*(K, K) (x) (K, J), every J != K
//   column_panel  (I, K)  <- (I, K) (x) D*(K, K), every I != K
//   update        (I, J)  <- min((I, J), (I, K) (x) (K, J)), every I, J != K
// which is blocked Floyd-Warshall with width-wide pivot blocks: after round
// K every entry is the shortest walk whose inner vertices lie in super-tiles
// 0..K. D*(K, K) has a zero diagonal, so D* (x) X <= X and the panel steps
// need no separate min with the old tile.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace apsp::core {

struct SuperJob {
  enum class Step { diagonal, row_panel, column_panel, update };
  Step step;
  std::int64_t round;  // K
  std::int64_t row;    // the super-tile's block row I
  std::int64_t col;    // and block column J
};

// The jobs of super-round `round` (0 <= round < blocks) in the order an
// executor must respect: the diagonal, then the row panels (J ascending),
// the column panels (I ascending), then the updates row by row. Each step
// reads only super-tiles an earlier step of the round finished.
std::vector<SuperJob> super_round_jobs(std::int64_t blocks, std::int64_t round);

// What the driver asks of an executor. run() may return before the job is
// done (a device queues it); end_round() returns when every job of the round
// is finished and written back to the host matrix.
class SuperRoundExecutor {
 public:
  virtual ~SuperRoundExecutor() = default;
  virtual void run(const SuperJob& job) = 0;
  virtual void end_round(std::int64_t round) = 0;
};

// Called after round `rounds_done - 1` has ended: the host matrix then holds
// exactly the state after that many super-rounds (a checkpoint may copy it;
// run_super_rounds(..., first_round = rounds_done) continues from it).
using RoundBoundary = std::function<void(std::int64_t rounds_done, std::int64_t rounds)>;

// Runs super-rounds first_round .. blocks - 1 through `executor`, calling
// `at_boundary` (when set) after each. first_round in [0, blocks].
void run_super_rounds(SuperRoundExecutor& executor, std::int64_t blocks, std::int64_t first_round,
                      const RoundBoundary& at_boundary);

// The shape of an out-of-core solve: `blocks` super-tiles of `width` cells
// per dimension, order = blocks * width >= n.
struct SuperShape {
  std::int64_t width = 0;
  std::int64_t blocks = 0;
  std::int64_t order() const { return width * blocks; }
};

// What choose_super_shape weighs.
struct SuperShapeInputs {
  std::int64_t n = 0;                // vertices
  std::int64_t granule = 128;        // width is a multiple of it (the kernels' tile; 256 for packed int16)
  std::int64_t cell_bytes = 4;       // bytes of one stored distance
  double link_bytes_per_second = 0;  // one direction of the host link
  double updates_per_second = 0;     // the in-core kernel rate (cell updates)
  std::uint64_t device_bytes = 0;    // device memory the executor may use
  std::int64_t forced_width = 0;     // > 0: this width (a multiple of granule), memory still checked
  bool predecessors = false;         // the executor's predecessor mode (super_device_bytes)
};

// Device bytes the GPU executor holds for a shape: the pivot super-row and
// super-column (2 * order * width cells, the column one as transposed words
// of 4 bytes), three streamed super-tiles, the closed diagonal and its
// transpose and the panel scratch. With `predecessors` (int32 tagged cells)
// also the midpoint tiles: a ring of three, the diagonal's own, the tagged
// copy of the diagonal, and the diagonal closure's 128 x width B rows.
std::uint64_t super_device_bytes(const SuperShape& shape, std::int64_t cell_bytes, bool predecessors = false);

// How much longer than its copies a super-tile's product must take before
// the model calls it compute-bound. At the balance point (margin 1) the
// H100 ran n = 150000 int32 at 67% of in-core fw (width 2176, the panels'
// copies and the serial diagonal closure are not in the model); at four times
// the balance width (8192 at n = 32768) it ran at 94%
// (docs/results/2026-11-26-h100-ooc-large).
inline constexpr double kSuperCopyMargin = 4.0;

// The shape of least predicted time among those that fit `device_bytes`:
// per round, each super-tile costs the longer of its product (width^3
// updates) and kSuperCopyMargin times its copies in and out (2 width^2
// cells) over one direction of the link, so compute bounds the stream once
// width >= kSuperCopyMargin * 2 U cell / L, plus one super-tile in and one out
// that nothing overlaps; padding (order > n) costs its cubic work. Without
// rates: the least padding, then the fewest blocks. forced_width skips the
// choice. Throws ResourceError when no shape fits.
SuperShape choose_super_shape(const SuperShapeInputs& inputs);

}  // namespace apsp::core
