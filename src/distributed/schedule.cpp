// The rounds of distributed blocked FW. Round k, on grid rank (r, c):
//   1. the owner of tile (k, k) closes it;
//   2. the pivot process row broadcasts it along the row (from column k mod pc)
//      and updates its tiles of tile row k;
//   3. every process column receives its part of tile row k from the pivot
//      process row (for the pivot column this carries the pivot tile);
//   4. the pivot process column updates its tiles of tile column k, and every
//      process row receives its part of that column from it;
//   5. every rank updates the rest of its tiles through the two panels.
// Steps 1-4 are the panel phase. With look-ahead, round k's update first
// covers the tiles of round k+1's panels; then round k+1's panel phase runs
// on this thread while the rest of round k's update runs in the background.
#include "distributed/schedule.hpp"

#include <chrono>
#include <limits>
#include <string>

#include "apsp/error.hpp"

namespace apsp::dist {
namespace {

void broadcast_all(Communicator* comm, const Messages& messages, int root, const TileEngine& engine) {
  if (!comm) return;
  for (const Message& m : messages) comm->broadcast(m.data, m.count, m.type, root, engine.memory(), engine.stream());
}

// A round's negative-cycle verdict, ordered as fw-blocked checks: the pivot
// whose closing step made a diagonal entry negative first (it throws right
// after that step), then the smallest vertex whose diagonal entry went
// negative during the round. Either lies on a negative cycle.
class Verdict {
 public:
  explicit Verdict(std::int64_t padded_order) : order_(padded_order) {}
  void closed(std::int64_t k, std::int64_t tile, std::int64_t pivot) {
    if (pivot >= 0) key_ = std::min(key_, k * tile + pivot);
  }
  void diagonal(std::int64_t vertex) {
    if (vertex >= 0) key_ = std::min(key_, order_ + vertex);
  }
  // Collective: throws Agreed<NegativeCycleError> on every rank when some rank saw one.
  void agree(Communicator& world) {
    const std::int64_t key = world.all_reduce(key_, ReduceOp::min);
    if (key == kNone) return;
    throw Agreed<NegativeCycleError>(-1, key < order_ ? key : key - order_);
  }

 private:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  std::int64_t order_;
  std::int64_t key_ = kNone;
};

struct PanelPhase {
  TileEngine& engine;
  const ProcessGrid& grid;
  const Communicators& comms;
  Verdict& verdict;
  std::int64_t tile;
  // The first round whose panels took the world's device transport (-1:
  // none yet), and when (the host clock), for RoundOptions::transport_stages.
  std::int64_t switched = -1;
  std::chrono::steady_clock::time_point switched_at{};

  void run(std::int64_t k, int slot) {
    // Round k's first message is next: the world's device transport may
    // switch here (Communicator::advance_transport; nccl's early rounds go
    // through MPI until every rank's NCCL is ready). Every rank reaches this
    // point once a round, in round order. A process row or column is the
    // world itself or a split, which was made from a ready transport.
    if (comms.world.advance_transport(k) && switched < 0) {
      switched = k;
      switched_at = std::chrono::steady_clock::now();
    }
    const bool pivot_row = grid.owns_row(k), pivot_col = grid.owns_col(k);
    if (pivot_row && pivot_col) verdict.closed(k, tile, engine.close_pivot(k));
    if (pivot_row) {
      broadcast_all(comms.process_row, engine.pivot_message(k, slot), grid.owner_col(k), engine);
      engine.update_row_panel(k, slot);
    }
    broadcast_all(comms.process_column, engine.row_panel_message(k, slot), grid.owner_row(k), engine);
    if (pivot_col) engine.update_column_panel(k, slot);
    broadcast_all(comms.process_row, engine.column_panel_message(k, slot), grid.owner_col(k), engine);
    engine.panels_ready(k, slot);
  }
};

// Each communicator once: a process row or column may be the world itself.
double seconds_in_calls(const Communicators& comms) {
  double s = comms.world.seconds_in_calls();
  if (comms.process_row && comms.process_row != &comms.world) s += comms.process_row->seconds_in_calls();
  if (comms.process_column && comms.process_column != &comms.world) s += comms.process_column->seconds_in_calls();
  return s;
}

}  // namespace

RankTimes run_rounds(TileEngine& engine, const ProcessGrid& grid, const Communicators& comms,
                     const RoundOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const double calls_before = seconds_in_calls(comms);
  const double busy_before = engine.busy_seconds();
  const std::int64_t T = grid.tiles;
  const bool check = options.check_negative_cycles;
  Verdict verdict(options.padded_order);
  PanelPhase panels{engine, grid, comms, verdict, options.tile};
  auto update = [&](std::int64_t k, int slot, TileSelection which) {
    engine.start_update(k, slot, which);
    engine.finish_update();
  };
  auto agree_on_diagonals = [&] {
    if (!check) return;
    verdict.diagonal(engine.negative_diagonal());
    verdict.agree(comms.world);
  };

  // Staged as the rounds begin: the rounds' time is split at the switch.
  const bool staged = comms.world.stages_until_ready() && comms.world.transport_switch_round() < 0;
  const std::int64_t first = options.first_round;
  if (first < T) panels.run(first, static_cast<int>(first % 2));
  for (std::int64_t k = first; k < T; ++k) {
    const int slot = static_cast<int>(k % 2);
    const bool saving = k + 1 < T && options.save_after && *options.save_after && (*options.save_after)(k);
    if (options.lookahead && k + 1 < T && !saving) {
      update(k, slot, TileSelection{TileSelection::Part::early, k + 1, check});
      agree_on_diagonals();
      engine.start_update(k, slot, TileSelection{TileSelection::Part::rest, k + 1, check});
      try {
        panels.run(k + 1, 1 - slot);
      } catch (...) {
        try {
          engine.finish_update();  // the background update reads this rank's buffers
        } catch (...) {
        }
        throw;
      }
      engine.finish_update();
    } else {
      update(k, slot, TileSelection{});
      agree_on_diagonals();
      if (saving) (*options.save)(k + 1);
      if (k + 1 < T) panels.run(k + 1, 1 - slot);
    }
    if (options.progress && *options.progress) (*options.progress)(static_cast<double>(k + 1) / static_cast<double>(T));
  }

  const auto end = std::chrono::steady_clock::now();
  const std::int64_t until = panels.switched < 0 ? T : panels.switched;
  if (options.transport_stages && staged && until > first) {  // some round staged
    const auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
    options.transport_stages->add("staged (" + std::to_string(until - first) + " rounds)",
                                  seconds(start, panels.switched < 0 ? end : panels.switched_at));
    if (panels.switched >= 0)
      options.transport_stages->add("after the switch (" + std::to_string(T - until) + " rounds)",
                                    seconds(panels.switched_at, end));
  }
  RankTimes times;
  const double wall = std::chrono::duration<double>(end - start).count();
  times.compute = engine.busy_seconds() - busy_before;
  times.communication = seconds_in_calls(comms) - calls_before;
  times.wait = std::max(0.0, wall - times.compute);
  return times;
}

}  // namespace apsp::dist
