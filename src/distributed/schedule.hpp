// Private to src/distributed: the round schedule of distributed blocked FW, written
// against the communicators and a TileEngine only.
#pragma once

#include <cstdint>
#include <functional>

#include "apsp/comm.hpp"
#include "apsp/distributed.hpp"
#include "distributed/engine.hpp"
#include "distributed/grid.hpp"

namespace apsp::dist {

struct Communicators {
  Communicator& world;
  // The ranks of this process row; nullptr when pc == 1, &world when pr == 1.
  Communicator* process_row;
  // The ranks of this process column; nullptr when pr == 1, &world when pc == 1.
  Communicator* process_column;
};

struct RoundOptions {
  bool lookahead = true;
  // Negative weights: after every round the ranks agree on whether some
  // diagonal entry went negative (a negative cycle), before any value of
  // the next round is formed. Without negative weights none can.
  bool check_negative_cycles = false;
  std::int64_t tile = 0;          // b
  std::int64_t padded_order = 0;  // T * b
  const std::function<void(double)>* progress = nullptr;
  // Rounds already done (a restored checkpoint): the rounds start at this one.
  std::int64_t first_round = 0;
  // Round checkpoints: asked before each round k but the last (collective:
  // every rank gets the same answer); true runs round k without look-ahead
  // and calls save(k + 1) once its update is done, before round k+1's
  // panels, when the tiles hold rounds 0 .. k exactly.
  const std::function<bool(std::int64_t)>* save_after = nullptr;
  const std::function<void(std::int64_t)>* save = nullptr;
  // Early device calls (Communicator::stages_until_ready): when the world's
  // device calls are staged as the rounds begin, this rank's rounds split
  // at the round whose panels first took the device transport, on the host
  // clock at the round boundaries (no synchronization added): "staged (R
  // rounds)" and, after a switch, "after the switch (S rounds)".
  StageTimes* transport_stages = nullptr;
};

// Runs rounds 0 .. T-1. Throws Agreed<NegativeCycleError> on every rank,
// naming the vertex the single-process fw-blocked names. Returns this rank's
// times.
RankTimes run_rounds(TileEngine& engine, const ProcessGrid& grid, const Communicators& comms,
                     const RoundOptions& options);

}  // namespace apsp::dist
