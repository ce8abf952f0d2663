// Private to src/distributed: what the round schedule (schedule.cpp) asks of a
// backend. An engine holds one rank's tiles and two slots of panel buffers
// (round k uses slot k % 2, so that round k+1's panels can arrive while round
// k's update still reads its own), and runs the tile kernels on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"

namespace apsp::dist {

// One plane (distances or predecessors) of a panel to broadcast.
struct Message {
  void* data;
  std::size_t count;
  DataType type;
};
using Messages = std::vector<Message>;

// Which of its tiles a rank updates in round k. Tiles of tile row or column
// k are never chosen (the panel steps updated them).
struct TileSelection {
  enum class Part { all, early, rest };
  Part part = Part::all;
  // early: the tiles in tile row or column `next` (round k+1's panels), and
  // with `diagonals` the diagonal tiles too, so that they can be checked for
  // negative entries before the rest runs. rest: every other tile.
  std::int64_t next = -1;
  bool diagonals = false;

  bool selects(std::int64_t k, std::int64_t I, std::int64_t J) const {
    if (I == k || J == k) return false;
    if (part == Part::all) return true;
    const bool early = I == next || J == next || (diagonals && I == J);
    return part == Part::early ? early : !early;
  }
};

// Sees each block of output rows (n values each, predecessors null when not
// asked for) before the sink does: --verify. `d` holds values of the solve's
// weight type (int32, float or double: the sink's distance element).
using RowCheck = std::function<void(std::int64_t first_row, std::int64_t rows, const void* d, const vertex_t* pred)>;

class TileEngine {
 public:
  virtual ~TileEngine() = default;
  // Where the panel buffers live, and the stream communicator calls on them
  // are ordered on (device engines).
  virtual Memory memory() const = 0;
  virtual void* stream() const { return nullptr; }

  // Pivot owner: closes tile (k, k). Returns the offset p in the tile of the
  // first pivot after which a diagonal entry was negative, else -1; in that
  // case it leaves the identity (0 on the diagonal, unreachable elsewhere) so
  // that the rest of the round, whose verdict is already known, relaxes
  // nothing through the broken tile and no value can overflow.
  virtual std::int64_t close_pivot(std::int64_t k) = 0;
  // The pivot tile: the owner's own tile on the owner, the slot elsewhere.
  virtual Messages pivot_message(std::int64_t k, int slot) = 0;
  // Pivot process row: its tiles (k, J), J != k, through the pivot tile.
  virtual void update_row_panel(std::int64_t k, int slot) = 0;
  // This process column's part of tile row k: own tiles on the pivot process
  // row, the slot elsewhere.
  virtual Messages row_panel_message(std::int64_t k, int slot) = 0;
  // Pivot process column: its tiles (I, k), I != k, through the pivot tile
  // (from the row-panel message), copied into the slot.
  virtual void update_column_panel(std::int64_t k, int slot) = 0;
  // This process row's part of tile column k, in the slot.
  virtual Messages column_panel_message(std::int64_t k, int slot) = 0;
  // Every panel of round k is in `slot` (the last broadcast has returned):
  // an engine may prepare its operands for the updates here.
  virtual void panels_ready(std::int64_t k, int slot) {
    (void)k;
    (void)slot;
  }

  // Round k's update of the selected tiles through the panels in `slot`:
  // start_update returns at once and the work runs in the background (a
  // worker thread, or a stream); finish_update waits for it.
  virtual void start_update(std::int64_t k, int slot, TileSelection which) = 0;
  virtual void finish_update() = 0;

  // The smallest vertex v whose d[v][v] is negative in this rank's diagonal
  // tiles (real weights: below minus the rounding tolerance), or -1. Not
  // while an update runs.
  virtual std::int64_t negative_diagonal() = 0;
  // After the rounds, real weights: whether some d[v][v] of this rank lies
  // below 0 but above the tolerance, a candidate negative cycle that the one
  // rule (core::vertex_on_negative_cycle) judges. Integer weights: false.
  virtual bool candidate_negative_diagonal() { return false; }

  // Seconds during which some kernel of this engine was running.
  virtual double busy_seconds() const = 0;

  // The width the tiles hold: int32 (the CPU engine's int64 included: its
  // output is int32), or int16 for a GPU attempt that must be certified.
  virtual Precision precision() const { return Precision::int32; }
  // After the rounds of an int16 attempt: whether this rank's part of the
  // range certificate holds. Every rank must agree (solve_distributed takes
  // the minimum) before delivering; otherwise the rounds run again in int32.
  virtual bool range_certified() { return true; }

  // After the rounds, before delivery. Throws OverflowError when a finite
  // distance of this rank does not fit the int32 output (an engine that
  // checks while it delivers does nothing here).
  virtual void check_output_range() = 0;
  // Hands the rows this rank delivers to `sink` (put only), each block to
  // `check` first when it is set; with several process columns, gathers each
  // tile row on one rank of `process_row`. Never throws for a value out of
  // range: it would leave the other ranks of the gather waiting.
  virtual void deliver(Communicator* process_row, Sink& sink, const RowCheck& check) = 0;
  // After delivery: throws the OverflowError that delivery found, for an
  // engine that checks the output range as it converts the rows it delivers
  // (the GPU engine: one pass over the result instead of two). The sink has
  // seen rows by then, and the caller discards it.
  virtual void check_delivered_range() {}

  // Round checkpoints (RoundCheckpoints, each rank its share): this rank's
  // tiles as host buffers (a device engine copies them to the host first),
  // valid until the next call on the engine; empty when the engine keeps
  // no checkpoint. Between rounds only.
  virtual std::vector<RoundState::Buffer> state_buffers() { return {}; }
  // The buffers of state_buffers() were filled from a checkpoint: a device
  // engine uploads them.
  virtual void state_restored() {}
  // What the buffers hold (engine, element types, tile, grid and this
  // rank's place in it): a checkpoint is restored only into its own layout.
  virtual std::string state_layout() const { return {}; }
};

}  // namespace apsp::dist
