// Testing hooks of the CUDA backend: switches that make its rare fallback
// paths run on ordinary inputs, and a counter that shows a path ran, so the
// GPU tests can cover them (tests/gpu). Internal, not a solve option; only
// tests set them. Host-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace apsp::cuda::testing {

// One launch of the supernodal factor or solve phase, timed by CUDA events
// (the benchmark's profile): its pass ("factor init", "factor extend-add",
// "factor small closure" / "panels" / "update", "dense pad" / "rounds" /
// "unpad", the batched dense path's "dense closure" / "dense batched panels"
// / "dense batched update", "unit", "forward closure", "forward scatter",
// "backward", "transpose"; "plan (host)": the host's planning in wall
// milliseconds), the etree level (the forward pass's step; the plan's
// segment, 0 or 1; -1 where none), the batch (in the factor: the size class
// of a dense pass, 1024 for fronts of >= 1024 vertices and 0 for smaller
// ones; -1 for the other passes), the bytes its min-plus tiles move at
// least (A, B once per strip of C's rows, C written; 0 for the other
// kernels), its add-mins (min-plus tiles and dense rounds) and milliseconds.
struct SupernodalLaunch {
  const char* pass;
  std::int32_t level;
  std::int64_t batch;
  double bytes;
  double ops;
  double ms;
};

// supernodal: split-K's default (Hooks::supernodal_split_k): off until the
// device numbers decide.
inline constexpr std::int64_t kSplitKDefault = 0;

struct Hooks {
  // fw: the int16 attempt's range certificate reports failure, so the
  // matrix is solved again in int32; supernodal: the same for its int16
  // working rows (the run's rows again in int32 rows).
  std::atomic<bool> fail_int16_certificate{false};
  // fw: the tagged predecessor attempt reports its range exceeded, so the
  // production fallback (int32 distances, predecessors from tight edges) runs.
  std::atomic<bool> fail_tagged_range{false};
  // Predecessor rows the dispatcher rebuilt on the host because their GPU
  // tree was broken (counts up; tests read the difference).
  std::atomic<std::int64_t> repaired_rows{0};
  // sssp: when > 0, the device memory (bytes) its result rows may take, so
  // small graphs stream their rows to the sink in several chunks.
  std::atomic<std::int64_t> sparse_row_budget{0};
  // sssp: keep the working row in global memory even when it fits in shared memory.
  std::atomic<bool> sparse_global_row{false};
  // sssp: when > 0, at most this many resident blocks (the benchmark's sweep
  // of how many global-memory working rows stay in L2 at once).
  std::atomic<std::int64_t> sparse_max_blocks{0};
  // sssp: chunks of rows computed and handed to the sink (counts up).
  std::atomic<std::int64_t> sparse_chunks{0};
  // Row split (deferred downloads): times the rows kept on the device went
  // to the sink, once after the last chunk and once each time the device
  // budget was full (counts up).
  std::atomic<std::int64_t> row_split_flushes{0};
  // Row split: pieces of drawn chunks that the two-lane pipeline queued
  // (counts up; 0 when the split ran serially).
  std::atomic<std::int64_t> row_split_pipelined_pieces{0};
  // GPU row solvers: chunks whose target columns were gathered on the
  // device (SolveOptions::targets) rather than cut on the host (counts up).
  std::atomic<std::int64_t> gathered_chunks{0};
  // supernodal: when > 0, the rows of sources one batch of the solve phase
  // holds (so small graphs take several batches).
  std::atomic<std::int64_t> supernodal_batch_rows{0};
  // supernodal: when > 0, fronts with more columns than this (at most the
  // shared-memory closure's 64) go through the dense fw rounds, so small
  // graphs exercise that path.
  std::atomic<std::int64_t> supernodal_dense_columns{0};
  // supernodal: when set, the factor is v6's (every dense front one at a
  // time through fw's rounds) whatever the working rows' type; else int32
  // rows take the merged chains (the tiled factor after
  // supernodal::merge_chains at supernodal::kDefaultMergePercent, the default since it
  // measured 1.47x v6's compute on uniform 32768 and no slower elsewhere,
  // docs/perf.md) and other types v6. The hooks below replace the default
  // when set.
  std::atomic<bool> supernodal_v6_factor{false};
  // supernodal: when set, the factor's batched dense path (measured slower
  // than v6): fw's rounds close only each dense front's diagonal block and
  // the level's dense panels and update matrices run as grouped min-plus
  // launches.
  std::atomic<bool> supernodal_batched_factor{false};
  // supernodal: when set, the tiled factor without the merge: the
  // batched path, with the panels and update matrices of the dense fronts of
  // >= 1024 vertices on fw's 128 x 128 phase-3 tile
  // (kernels/supernodal/tiled_update.cuh); int32 and float32 (float64 stays
  // batched).
  std::atomic<bool> supernodal_tiled_factor{false};
  // supernodal: when 128 or 64, each dense front's rounds (v6: the whole
  // front's first k pivots; batched and tiled: its diagonal block's closure)
  // run as ONE cooperative launch on that tile (cuda/persistent_rounds.hpp)
  // where the padded block is at most 2048 (opt-in until measured; int32 on
  // either tile, float32 on 128 whatever is asked; float64 and larger
  // blocks keep fw's launches); 0: fw's launches.
  std::atomic<std::int64_t> supernodal_persistent_rounds{0};
  // supernodal: fronts whose rounds ran as the one persistent launch (counts up).
  std::atomic<std::int64_t> supernodal_persistent_fronts{0};
  // supernodal: when > 0, the batched, tiled and merged (default) paths
  // close the diagonal block of each dense front with at most this many
  // columns (capped at cuda::kSquaringClosureMaxK) by repeated min-plus
  // squaring in one cooperative launch (cuda/persistent_rounds.hpp,
  // squaring_front_closure; int32 rows only); larger blocks keep fw's
  // launches, or the persistent rounds when those are asked too. 0: off.
  // The default is cuda::kSquaringClosureDefaultMaxK (640; promoted after
  // the H100 bench, docs/perf.md "Squaring closure").
  std::atomic<std::int64_t> supernodal_squaring_closure{640};
  // supernodal: diagonal blocks the squaring closure took (counts up).
  std::atomic<std::int64_t> supernodal_squaring_fronts{0};
  // supernodal: when > 0, the paths the squaring closure runs on close the
  // dense fronts' diagonal blocks that it does not take (more columns than
  // supernodal_squaring_closure) and that have at most this many columns
  // (capped at cuda::kBlockedClosureMaxK) by the blocked (2 x 2, recursive)
  // closure in one cooperative launch (cuda/persistent_rounds.hpp,
  // BlockedClosure; int32 rows only): sub-blocks of more than
  // supernodal_blocked_leaf columns (0: cuda::kBlockedClosureLeafMaxK, 704)
  // split in two, the leaves squared. 0: off. The default is
  // cuda::kBlockedClosureDefaultMaxK (4096; promoted after the H100 bench,
  // docs/perf.md "Blocked closure"). supernodal_blocked_fronts counts the
  // blocks it took.
  std::atomic<std::int64_t> supernodal_blocked_closure{4096};
  std::atomic<std::int64_t> supernodal_blocked_leaf{0};
  std::atomic<std::int64_t> supernodal_blocked_fronts{0};
  // supernodal: when > 0, the symbolic analysis is followed by
  // supernodal::merge_chains with max_extra_ops = this / 100 (the default
  // path takes kDefaultMergePercent): chained fronts of >= 1024 vertices merge into deeper
  // pivot blocks, so the tiled factor's panels and updates run fewer, deeper
  // passes. supernodal_merge_min_front, when > 0, replaces the 1024 (tests
  // force merges on small graphs with it).
  std::atomic<std::int64_t> supernodal_merge_chains{0};
  std::atomic<std::int64_t> supernodal_merge_min_front{0};
  // supernodal: when set, the tiled factor (int32 rows: the default merged
  // path, or the tiled hook) looks ahead along chains of fronts of >= 1024
  // vertices: front l + 1's diagonal block is assembled from the leading
  // p x p block of front l's update and closed while front l's whole s x s
  // update runs beside it on a second stream (docs/perf.md, "Look-ahead";
  // opt-in until measured). supernodal_large_front, when > 0, replaces the
  // 1024 of the tiled factor's large class (tests make chains of small
  // graphs' fronts with it). supernodal_lookahead_levels counts the levels
  // that looked ahead.
  std::atomic<bool> supernodal_lookahead{false};
  std::atomic<std::int64_t> supernodal_large_front{0};
  std::atomic<std::int64_t> supernodal_lookahead_levels{0};
  // supernodal: the tiled factor's 64 x 64 C tile (tile64; int32 and
  // float32 rows; src/supernodal/tile_choice.hpp,
  // kernels/supernodal/tiled_update.cuh's Tiled64Traits): 0 off (fw's 128
  // tile everywhere, the default until measured on the device), 1 by shape
  // (choose_tile: launches of under two waves of 128 tiles, or padding
  // more than a tenth), 2 every panel launch, 3 every panel and update
  // launch. Off wherever split-K, stream-K or the look-ahead is on (they
  // plan on the 128 tile). supernodal_tile64_launches counts the launches
  // on the 64 tile.
  std::atomic<std::int64_t> supernodal_tile64{0};
  std::atomic<std::int64_t> supernodal_tile64_launches{0};
  // supernodal: U-first panels (int32 rows, the tiled path; off wherever
  // split-K, stream-K or the look-ahead is on): 0 off (the default until
  // measured on the device), else the panels' launch computes U_K alone and
  // L_K runs after the update matrices, which read the raw F[S,K]
  // (supernodal_solver.cu's plan_tiled). supernodal_u_first_fronts counts
  // the fronts planned so.
  std::atomic<std::int64_t> supernodal_u_first{0};
  std::atomic<std::int64_t> supernodal_u_first_fronts{0};
  // supernodal: split-K for the tiled factor's launches of few tiles (int32
  // rows; src/supernodal/split_k.hpp, kernels/supernodal/tiled_update.cuh):
  // 0 off (the default until measured on the device), 1 by shape (launches
  // of fewer than two waves of tiles, where the model gains), N >= 2 every
  // tiled panel and update launch split into N pieces where the depth allows
  // (tests). supernodal_split_k_launches counts the split launches.
  std::atomic<std::int64_t> supernodal_split_k{kSplitKDefault};
  std::atomic<std::int64_t> supernodal_split_k_launches{0};
  // supernodal: stream-K for the same launches (kernels/supernodal/stream_k.cuh;
  // int32 rows): 0 off (the default until measured), 1 by shape (the resident
  // blocks, each an equal share of the launch's (tile, k-chunk) steps, where
  // the model gains; before split-K where both are set), N >= 2 every tiled
  // panel and update launch on N blocks (tests). supernodal_stream_k_launches
  // counts its launches.
  std::atomic<std::int64_t> supernodal_stream_k{0};
  std::atomic<std::int64_t> supernodal_stream_k_launches{0};
  // supernodal: when set, `automatic` precision attempts int16 working rows
  // (as --precision int16 does) where fw's int16 rule allows; off by
  // default until measured (docs/perf.md, v7).
  std::atomic<bool> supernodal_int16_auto{false};
  // supernodal: rows whose int16 working rows certified (counts up), and
  // int16 attempts whose certificate failed (the rows went again in int32).
  std::atomic<std::int64_t> supernodal_int16_rows{0};
  std::atomic<std::int64_t> supernodal_int16_fallbacks{0};
  // supernodal: fronts factored through the dense fw rounds (counts up).
  std::atomic<std::int64_t> supernodal_dense_fronts{0};
  // supernodal: when set, every launch of the solve phase is timed and
  // appended here (events around each launch: for profiles, not timings).
  std::atomic<std::vector<SupernodalLaunch>*> supernodal_profile{nullptr};
  // Every GPU path: the sink is prepared (Sink::prepare) for results of any
  // size, not only from HostWarmup::kMinPreparedBytes, so small test graphs
  // exercise that path.
  std::atomic<bool> prepare_every_sink{false};
};

inline Hooks hooks;

// Sets a hook for the lifetime of the object.
class ForceHook {
 public:
  explicit ForceHook(std::atomic<bool>& hook) : hook_(hook) { hook_ = true; }
  ForceHook(const ForceHook&) = delete;
  ForceHook& operator=(const ForceHook&) = delete;
  ~ForceHook() { hook_ = false; }

 private:
  std::atomic<bool>& hook_;
};

}  // namespace apsp::cuda::testing
