// Checks of the distributed solver, written for every rank of one group: the
// thread harness (local communicators) and the mpirun harness run the same
// ones. Collective, and no rank skips a collective call when an expectation
// failed on it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/distributed.hpp"
#include "support/cases.hpp"

namespace apsp::test {

// Runs `solve` on every rank and expects every rank to throw Agreed<E>;
// returns the error's message and origin ("" and -2 when none came).
template <class E, class F>
std::pair<std::string, int> expect_agreed(F&& solve) {
  try {
    solve();
  } catch (const E& e) {
    const auto* agreed = dynamic_cast<const AgreedFailure*>(&e);
    EXPECT_NE(agreed, nullptr) << "the error was not agreed: " << e.what();
    return {e.what(), agreed ? agreed->origin_rank() : -2};
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected error: " << e.what();
    return {e.what(), -2};
  }
  ADD_FAILURE() << "no error";
  return {"", -2};
}

struct DistConfig {
  Distribution distribution = Distribution::rows;
  int grid_rows = 0, grid_cols = 0;  // 2d only
  bool lookahead = true;
  std::int64_t super_width = 0;  // > 0: out of core per rank, forced (DistributedOptions::super_width)
  std::string name() const;      // e.g. "2d_2x3_lookahead", "rows_lookahead_super128"
  DistributedOptions options() const;
};

// rows (the P x 1 grid), and 2d on every other grid pr x pc = ranks, each
// with look-ahead on and off.
std::vector<DistConfig> configs_for(int ranks);

// Out of core per rank, forced: the rows layout with super widths 128 (look-ahead
// on) and 192 (off), and with 4 ranks the 2 x 2 grid at 128.
std::vector<DistConfig> out_of_core_configs(int ranks);

// Graphs for the out-of-core schedule: two components with no edge between
// them and negative weights (no negative cycle), at sizes around multiples of
// the super widths (127 .. 385).
std::vector<Case> out_of_core_cases();

// Solves `c` on `comm` (with verify) and checks that every row arrives at exactly one rank
// and equals the single-process fw-blocked row (distances, and predecessors
// when asked), that the sinks saw begin and commit once, and that the result
// has finite and unreachable entries.
void check_matches_fw_blocked(Communicator& comm, const Case& c, const DistConfig& config, bool predecessors);

// Negative cycles that only a rank other than 0 can see (from 2 ranks on):
// inside one pivot tile off rank 0, and a two-vertex cycle that shows during
// a round's update of a diagonal tile off rank 0. Every rank throws
// Agreed<NegativeCycleError> naming the vertex fw-blocked names; sinks are
// discarded.
void check_negative_cycles(Communicator& comm, const DistConfig& config);

// Real weights, float32 and float64 in turn (the standard cases with every
// weight scaled by kRealScale), with and without predecessors: rows of the weight
// type, every row at exactly one rank, within the tests' tolerance of the
// independent long-double reference, predecessor chains that weigh the
// distance within it, finite and unreachable entries both present. On the
// cuda backend (this rank on comm.device(), or device 0): float32 and
// float64 both on these cases and the tile cases.
void check_real_weights(Communicator& comm, const DistConfig& config, Backend backend = Backend::cpu);

// Real-weighted negative cycles that only a rank other than 0 can see (from
// 2 ranks on), in float32 and float64: one far below the rounding tolerance
// (found during the rounds), and 500, 500, -1000.0000000001 in float64 at
// n = 1000, a diagonal entry 1e-10 below 0 that only the rule on the cycle's
// own edges finds after the rounds. Every rank throws
// Agreed<NegativeCycleError> naming a vertex of the cycle; sinks are
// discarded. The same on the cuda backend.
void check_real_negative_cycles(Communicator& comm, const DistConfig& config, Backend backend = Backend::cpu);

// Weights too large for int32 arithmetic (the int64 path, as fw-blocked),
// and a distance beyond the int32 output, refused on every rank.
void check_large_weights(Communicator& comm, const DistConfig& config);

// Every rank throws the same Agreed error: graphs that differ between ranks,
// a grid that does not fit the ranks, one rank's failing step.
void check_agreed_errors(Communicator& comm);

}  // namespace apsp::test
