// Distributed all-pairs shortest paths: blocked Floyd-Warshall over the ranks
// of a Communicator (apsp/comm.hpp). Each rank builds only the tiles it owns
// from the edge list, and hands the rows it ends up with to its own Sink:
// the matrix is never gathered on one host unless a sink does it.
//
// Layouts, with T = ceil(n / b) tiles of b x b per side and P ranks:
//   rows  block rows: tile row I lives on rank I mod P. Each round the owner
//         of the pivot row closes the pivot tile, updates its pivot row and
//         broadcasts that b x n strip to every rank; every rank updates its
//         pivot-column tiles and then the rest of its rows.
//   2d    a pr x pc process grid (any P: pr * pc = P, non-square too): tile
//         (I, J) lives on grid rank (I mod pr, J mod pc). The pivot tile goes
//         along its process row, the pivot row panel down the process
//         columns and the pivot column panel along the process rows, so a
//         rank receives O(n b / pr + n b / pc) per round instead of O(n b).
// rows is the 2d schedule on a P x 1 grid, where the pivot tile travels
// inside the row strip. With look-ahead the tiles of round k+1's panels are
// updated first, and round k+1's pivot and panels are closed and sent while
// the rest of round k's update runs.
//
// On the CPU the result is exactly what the single-process fw-blocked gives
// (the same tile kernels in the same order per tile), predecessors included,
// for int32 weights and for float32 and float64 ones (computed and delivered
// in their own type, negative cycles judged by the same rule).
// On GPUs the distances are those of the single-GPU fw (int16 attempts
// certified, as there); predecessors are each row's breadth-first tree over
// its tight edges.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"

namespace apsp {

enum class Distribution { rows, grid };

const char* to_string(Distribution d);                  // "rows", "2d"
Distribution parse_distribution(const std::string& s);  // throws UsageError (option "distribution")

struct DistributedOptions {
  Distribution distribution = Distribution::rows;
  // 2d: the process grid, grid_rows * grid_cols = ranks; 0 x 0 picks the most
  // square one with grid_rows <= grid_cols (6 ranks: 2 x 3; 3 ranks: 1 x 3).
  int grid_rows = 0;
  int grid_cols = 0;
  bool lookahead = true;
  // cpu: fw-blocked's tile kernel on every rank (OpenMP inside the rank).
  // cuda: the production GPU kernels on one device per rank (Johnson
  // potentials computed by every rank). automatic = cpu.
  Backend backend = Backend::cpu;
  // cuda: automatic attempts int16 when the one-GPU rule would, int16 always
  // attempts it (UsageError when the weights leave no room); an attempt
  // whose range certificate fails on any rank reruns in int32. cpu: int32 or
  // int64 by the weights whatever is asked, except int16 (UsageError).
  Precision precision = Precision::automatic;
  // backend cuda: this rank's device; -1 = the communicator's (comm.device()), else 0.
  int device = -1;
  bool predecessors = false;
  // Each rank checks the rows it delivers as verify() and
  // verify_predecessors() would (RowVerifier); a violation on any rank is an
  // agreed Error "verify failed: ..." and nothing is committed.
  bool verify = false;
  // Host threads of this rank: the CPU engine's, and the GPU engine's
  // conversion of the rows it delivers (set for the calling thread during
  // the solve, then restored). 0 = the calling thread's OpenMP default;
  // ranks that share a node's CPUs should each ask for their share.
  int threads = 0;
  // This rank's fraction of rounds done (0..1], from the calling thread.
  std::function<void(double)> progress;
  // Out of core per rank, forced: > 0 (a multiple of 64) runs the rounds as
  // fw-ooc's super-rounds of this width (tiles of super_width, each stepped
  // as fw-ooc steps its super-tiles), in either layout; results are those of
  // in-core fw-blocked. On the cuda backend (a multiple of 128, int32
  // weights; UsageError otherwise) each rank keeps its share in page-locked
  // host memory and streams the super-tiles through its device with the
  // one-GPU fw-ooc's ring and kernels: in-core distributed fw's distances.
  // 0: in-core tiles (GPU ranks go out of core by themselves when their
  // share does not fit their device: memory_budget).
  std::int64_t super_width = 0;
  // Row split on GPUs: download each chunk of rows as soon as it is computed
  // (SolveOptions::row_split_per_chunk_download), the default; false keeps a
  // rank's chunks on its device and downloads them once, after its last
  // chunk (or when its device buffer is full). On 2 H200s (2026-11-27,
  // docs/scaling.md) keeping them gave 1.64x / 1.83x of one GPU's compute
  // against 1.64x / 1.79x, but a slower end to end (2.23 / 3.09 s against
  // 1.90 / 2.99 s on R-MAT 65536 / geometric 126146): the downloads at the
  // end ran at 14-31 GB/s and overlap nothing.
  bool row_download_per_chunk = true;
  // Row split on GPUs: each rank computes its chunks one after another, each
  // waited for before the next is drawn (SolveOptions::row_split_serial, the
  // default), or, when false, queues the next chunk beside the one computing
  // (the pipeline, opt-in: measured no faster end to end).
  bool row_split_serial = true;
  // The per-rank memory choice (docs/scaling.md, "The per-rank memory
  // choice"): > 0 caps the memory each rank may use for its share of fw's
  // tiles, so that tests and users can drive it: the device memory of GPU
  // ranks (at most their free memory), the host memory of CPU ranks. 0: the
  // device's free memory, the host's available memory. A GPU rank's share
  // that exceeds its device goes out of core (agreed by every rank); one
  // that fits neither way is refused before any work (ResourceError naming
  // the rank and the sizes).
  std::uint64_t memory_budget = 0;
  // A part of the matrix (as SolveOptions::sources, targets and cutoff, the
  // same on every rank): the row split (solve_distributed_rows) only; the
  // distributed Floyd-Warshall refuses them (UsageError). The rows of the
  // chosen sources are what the row split hands out, and each rank cuts its
  // rows to the targets before its sink (on GPUs on the device), so a rank
  // holds about its share of sources x targets, never sources x n. The
  // sinks begin with SinkLayout::rows / columns of the part. A vertex
  // outside 0..n-1 is an agreed UsageError ("sources", "targets") before
  // any work; verify with any of them is a UsageError ("verify").
  std::vector<vertex_t> sources;
  std::vector<vertex_t> targets;
  std::optional<double> cutoff;
};

// Seconds one rank spent in the rounds, split three ways.
struct RankTimes {
  double compute = 0;        // some tile kernel of this rank was running
  double communication = 0;  // inside communicator calls (overlaps compute with look-ahead)
  double wait = 0;           // rounds time with no kernel running: exposed communication and imbalance
  // Row split: the part of the rank's rows' time spent downloading them from
  // the device into its sink (its conversion and checks included). 0 on CPU
  // ranks and in the rounds. A CPU rank's compute is the rest of its rows'
  // time; a GPU rank's is the time its device had a chunk's launch in
  // flight (overlapping launches counted once), which its download overlaps
  // when the chunks are pipelined (SolveOptions::row_split_serial off), so
  // compute + download may exceed the rows' time there.
  double download = 0;
};

struct DistributedResult {
  std::int64_t n = 0;
  int grid_rows = 1;
  int grid_cols = 1;
  std::int64_t tile = 0;  // b
  std::string algorithm;  // "fw-blocked" on the CPU, "fw" on GPUs
  Backend backend = Backend::cpu;
  Precision precision = Precision::int32;
  std::vector<RankTimes> ranks;  // every rank's times, on every rank (index = rank)
  double setup_seconds = 0;      // this rank: checks, agreement, building its tiles
  // setup_seconds split: normalize, same graph (the ranks' agreement on it),
  // split comms (the process rows' and columns' communicators), build tiles
  // (the GPU engine's device and context included), begin sink.
  StageTimes setup_stages;
  double rounds_seconds = 0;     // this rank: the rounds
  // Early device calls (Communicator::stages_until_ready): this rank's
  // rounds (of the first pass: an int16 attempt's rerun is not split) at
  // the device transport's switch, on the host clock at round boundaries:
  // "staged (R rounds)" and, after a switch, "after the switch (S
  // rounds)". Empty when the rounds began on the device transport.
  StageTimes rounds_stages;
  double output_seconds = 0;     // this rank: gathering its rows and handing them to the sink, verify included
  double verify_seconds = -1;    // this rank: checking its rows; -1 without verify
  // The row split with verify and predecessors: this rank's rows whose
  // predecessors were checked with their distances (0 otherwise).
  std::int64_t verified_predecessor_rows = 0;
  // Out of core per rank: the super width (0: in core) and why, for the summary.
  std::int64_t super_width = 0;
  std::string out_of_core;
  // The per-rank memory choice's verdict for the summary: "in core on every
  // rank", or which ranks needed out of core and the agreed width.
  std::string memory_plan;
  // A sink that keeps partial rows (Sink::keeps_partial, FileSink::
  // keep_partial): the line its resume has for the summary (rows kept from
  // an interrupted run, or why none were); empty otherwise.
  std::string resume_note;
  // Early device calls (Communicator::stages_until_ready: nccl unless
  // APSP_NCCL_EARLY=wait): the round from which the panels went through the
  // device transport (the rounds before it through the host's, staged), or
  // -1 when every round went through the host's (NCCL was not ready before
  // the last round) or there was nothing to switch.
  std::int64_t transport_switch_round = -1;
};

// Solves APSP with every rank of `comm`: collective, every rank passes the
// same graph (it need not be normalized) and options. The sink of each rank
// gets begin() and commit() on every rank and put() for the rows this rank
// delivers: rows layout, the rows of its tile rows; 2d, the rows of every
// pc-th of its process row's tile rows, gathered from the process row. On
// failure every sink gets discard().
//
// Errors that every rank learns at the same point (bad input on some rank,
// graphs that differ between ranks, a sink that cannot begin or commit,
// memory, a negative cycle, a distance beyond int32) are thrown on every
// rank as Agreed<E> (E the error's own type, see below). Any other error is
// thrown on the rank where it happened only; the caller then stops the
// others with comm.abort().
//
// Real weights (float32, float64): the cpu backend (UsageError "backend" on
// cuda); the sinks get rows of the weight type (Element::float32 / float64).
DistributedResult solve_distributed(Communicator& comm, const Graph& g, const DistributedOptions& opts, Sink& sink);
DistributedResult solve_distributed(Communicator& comm, const GraphF32& g, const DistributedOptions& opts, Sink& sink);
DistributedResult solve_distributed(Communicator& comm, const GraphF64& g, const DistributedOptions& opts, Sink& sink);
DistributedResult solve_distributed(Communicator& comm, const AnyGraph& g, const DistributedOptions& opts, Sink& sink);

// The row split (design.md): every rank holds the whole graph and runs
// `algorithm`, a registry entry of opts.backend whose rows are independent
// (Work::per_source or Work::separators: dijkstra, johnson, bellman-ford,
// supernodal on the CPU), drawing chunks of result rows from one counter
// that every rank shares (Communicator::make_counter) until none are left:
// a rank that draws slow sources takes fewer chunks, and every row is
// computed exactly once, on some rank. Chunks shrink toward the end (guided:
// about remaining / (2 * threads of all ranks) rows). Each rank's rows go
// straight into its sink: begin() and commit() on every rank, put() for the
// rows it computed (a FileSink over `comm` writes them in place). Weights
// int32, float32 or float64; the distances are what one process gives, bit
// for bit for integers and the CPU's searches, within rounding for real
// supernodal rows (a chunk is another block of sources than one process's)
// and the GPU's label-correcting kernels. opts: threads, predecessors, precision, verify (each rank checks
// the distance rows it puts, as verify() would) and progress (the fraction
// of rows handed out to all ranks) apply; the grid options do not
// (DistributedResult: grid_rows = ranks, tile = the largest chunk, setup_stages
// normalize, same graph, shared counter, begin sink; rounds_seconds the rows). A
// failure on any rank stops the others from drawing rows and every rank
// throws it as Agreed<E>. Collective.
DistributedResult solve_distributed_rows(Communicator& comm, const Graph& g, const std::string& algorithm,
                                         const DistributedOptions& opts, Sink& sink);
DistributedResult solve_distributed_rows(Communicator& comm, const GraphF32& g, const std::string& algorithm,
                                         const DistributedOptions& opts, Sink& sink);
DistributedResult solve_distributed_rows(Communicator& comm, const GraphF64& g, const std::string& algorithm,
                                         const DistributedOptions& opts, Sink& sink);

// What "auto" runs distributed on `ranks` ranks of `backend` (cpu or cuda)
// for this normalized graph, `ranks_per_node` of them on each node (0: all
// on one). CPU: the one-process choice; a per-source algorithm or
// supernodal (sparse graphs, small separators) takes its row split
// (solve_distributed_rows), else the distributed Floyd-Warshall
// (solve_distributed: dense graphs). GPU: the one-GPU model's estimates for
// fw and for the row solvers (sssp, or supernodal where chosen), each
// divided by the ranks, fw's plus its measured distributed setup and output
// (src/solve/distributed_choice.cpp), whatever the weights (the distributed
// GPU fw takes int32, float32 and float64). fw's layout: rows while the
// rows layout's messages stay below half its rounds' compute (docs/scaling.md:
// every P of one node), else 2d. `part`: a part of the matrix is asked
// (DistributedOptions::sources, targets, cutoff), which the row split alone
// computes: the row split always (on the CPU, where the one-process choice is
// fw: dijkstra, or johnson for negative weights). `why` is the summary's line.
struct DistributedChoice {
  std::string algorithm;   // a registry name of `backend`
  bool row_split = false;  // solve_distributed_rows, else solve_distributed
  Distribution distribution = Distribution::rows;  // solve_distributed's layout
  std::string why;
};
DistributedChoice choose_distributed(const Graph& normalized, Backend backend, int ranks, int ranks_per_node = 0,
                                     bool part = false);
DistributedChoice choose_distributed(const GraphF32& normalized, Backend backend, int ranks, int ranks_per_node = 0,
                                     bool part = false);
DistributedChoice choose_distributed(const GraphF64& normalized, Backend backend, int ranks, int ranks_per_node = 0,
                                     bool part = false);
// The distributed fw's layout that choose_distributed picks for n vertices.
Distribution choose_distributed_layout(std::int64_t n, Backend backend, int ranks, int ranks_per_node = 0);

// Agreed<E>, AgreedFailure and agree(): apsp/comm.hpp.

}  // namespace apsp
