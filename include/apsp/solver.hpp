// The solver interface: one entry point, backends and algorithms chosen by name.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"
#include "apsp/sink.hpp"

namespace apsp {

class RowSplit;

enum class Backend { automatic, cpu, cuda };
// Arithmetic width. As a request (SolveOptions::precision): automatic picks;
// int16 is a GPU mode (two distances per 32-bit word where the result proves
// it exact); int32 means no narrower than 32 bits (the GPU skips the int16
// attempt; the CPU still widens to int64 where sums could overflow); int64 is
// a CPU mode that computes every algorithm in int64. As a result
// (SolveResult::precision): the width actually used.
enum class Precision { automatic, int32, int16, int64 };

struct BlockShape {
  int x = 0;  // 0 means the kernel's default
  int y = 0;
};

// The most CPU threads a solve (SolveOptions::threads, DistributedOptions::
// threads) takes: far past any host's cores, and below the count at which an
// OpenMP team's creation fails (100000 crashed the process). More is a
// UsageError (option "threads"), as is a negative count.
constexpr int kMaxThreads = 1024;

struct SolveOptions {
  // Algorithm name: "auto", or one of list_algorithms(backend).
  std::string algorithm = "auto";
  Backend backend = Backend::automatic;
  int threads = 0;            // CPU threads, 0..kMaxThreads; 0 = OpenMP default
  bool predecessors = false;  // also compute predecessors (SolveResult::pred, the sink's predecessors plane)
  Precision precision = Precision::automatic;  // requested arithmetic width (see Precision)
  // Check the result with the O(n*m) certificate before it reaches the sink:
  // on the device for GPU solves (SolveSummary::verified is then set; a
  // failure throws VerifyError). Other backends leave the check to the
  // caller (apsp::verify), and verified stays false.
  bool verify = false;
  BlockShape block;  // GPU thread-block shape for kernels that take one
  int device = 0;    // CUDA device ordinal
  // Called with the fraction done (0..1) from the calling thread; may be empty.
  // It may stop the solve by throwing (apsp::Cancelled, for a front end whose
  // user asked to stop): the solve discards the sink and rethrows. Calls come
  // at least once per 1% of the rows of the per-source CPU algorithms, per
  // tile round of fw-blocked, per 2^24 relaxations of fw-seq, per 1/64 of the GPU
  // solver's rounds.
  std::function<void(double)> progress;
  // The source vertices whose rows to compute, in this order (each in
  // 0..n-1; repeats allowed); empty = every vertex, the n x n result. With
  // k sources the result has k rows of n (row r: from sources[r]); a sink
  // is told so by SinkLayout::rows. The per-source CPU algorithms (dijkstra,
  // johnson, bellman-ford, supernodal; "auto" then picks among them and the
  // CPU) compute those rows only; any other algorithm computes every row and
  // the solve keeps the chosen ones as they arrive (a dense fw: compute,
  // then slice; no n x n matrix reaches the sink). A source outside 0..n-1
  // is a UsageError (option "sources").
  std::vector<vertex_t> sources;
  // Bytes of device memory the GPU's dense solver may use; 0 = the device's
  // free memory. In-core fw refuses a matrix larger than it (ResourceError);
  // "auto" then solves out of core (fw-ooc on the GPU: the matrix in host
  // memory, streamed through the device in super-tiles that fit the budget).
  // For tests (out of core at small n) and for a GPU shared with others.
  std::uint64_t memory_budget = 0;
  // The target vertices whose columns to keep, in this order (each in
  // 0..n-1; repeats allowed); empty = every vertex. With t targets each row
  // holds t values (column c: the distance to targets[c]; predecessors stay
  // vertex ids); a sink is told so by SinkLayout::columns. The rows are cut
  // to these columns as each block arrives, before the sink. A target
  // outside 0..n-1 is a UsageError (option "targets").
  std::vector<vertex_t> targets;
  // The row split (apsp/row_split.hpp) this solve shares its rows with, or
  // null (every row is this solve's). When set, only the chunks this solve
  // draws from it are computed and put into the sink (begin() and commit()
  // still come): the distributed row path (solve_distributed_rows) gives
  // each rank one over a counter all ranks share. Honoured by the CPU's
  // per-source algorithms and supernodal, and the GPU's sssp ladder and
  // supernodal; any other algorithm is a UsageError (option "algorithm").
  RowSplit* row_split = nullptr;
  // With row_split on the GPU: each drawn chunk goes to the sink as soon as
  // it is computed (beside the next chunks' compute unless row_split_serial),
  // the default of the distributed row split, instead
  // of staying on the device until the last chunk (or until the device holds
  // no more) and going down all at once. The rows put are the same.
  bool row_split_per_chunk_download = false;
  // With row_split on the GPU: compute the drawn chunks one after another on
  // one stream, each waited for, certified and delivered before the next is
  // drawn (the default), or, when false, the pipeline that queues the next
  // chunk beside the one computing (two lanes of scratch; opt-in: on two
  // H200s its rows stage was no faster, docs/scaling.md). The rows put are
  // the same.
  bool row_split_serial = true;
  // Distances above it are not wanted (a sparse result of SparseKeep::cutoff,
  // scipy's `limit`): the CPU's dijkstra and johnson stop each search past
  // it, so their time follows what is kept, and report what lies beyond as
  // unreachable (predecessors -1). Other algorithms compute everything; the
  // sink's cutoff drops the rest. Unset = none; NaN is a UsageError (option
  // "cutoff").
  std::optional<double> cutoff;
};

// One stage of a solve: what ran, its wall time, and the bytes it moved
// (read, uploaded, downloaded, written or checked; 0 for a stage that moves
// none worth a rate, such as the compute).
struct Stage {
  std::string name;
  double seconds = 0;
  std::uint64_t bytes = 0;
};

// The stages of a solve in the order they ran (the seeds' "time
// distribution"). Each stage is a wall-clock interval on the calling thread
// and stages do not overlap, so they add up to the solve's wall time less the
// untimed glue between them. Work that overlaps another stage is named with
// it: the per-source CPU algorithms hand rows to the sink while computing, so
// their "compute" includes the sink's time. Backends append their stages.
struct StageTimes {
  std::vector<Stage> stages;

  void add(std::string name, double seconds, std::uint64_t bytes = 0);
  // Seconds of every stage called `name` (0 when none ran).
  double seconds(const std::string& name) const;
  double total() const;  // the sum of all stages
};

// What a solve did, besides its rows (which went to a Sink).
struct SolveSummary {
  std::int64_t n = 0;
  std::string algorithm;  // the algorithm that actually ran (auto resolved)
  Backend backend = Backend::cpu;
  Precision precision =
      Precision::int32;  // arithmetic width actually used (int32, int16 or int64; int32 for real weights)
  WeightType weights = WeightType::int32;  // the weight type of the graph and its distances
  StageTimes times;
  // One line about how the result was reached when it is not the plain
  // choice, e.g. why the GPU handed the graph to the CPU; empty otherwise.
  std::string note;
  bool verified = false;  // the result passed the certificate inside the solve (SolveOptions::verify)
};

// A solve's result in host memory. The matrices are allocated without
// zero-filling (HostVector) and filled by the solver's threads. D is the
// distance type: int32 (kInf = unreachable), float or double (+infinity).
template <class D>
struct BasicSolveResult : SolveSummary {
  // rows x columns row-major: rows = n or the count of SolveOptions::sources,
  // columns = n or the count of SolveOptions::targets; kUnreachable<D> = unreachable
  HostVector<D> dist;
  // the same shape when requested: pred[i*n+j] = vertex before j on a shortest path from
  // row i's source to j, -1 if none
  HostVector<vertex_t> pred;
};
using SolveResult = BasicSolveResult<dist_t>;
using SolveResultF32 = BasicSolveResult<float>;
using SolveResultF64 = BasicSolveResult<double>;

// Solves APSP into host memory. The graph need not be normalized. Throws
// apsp::Error subtypes. Same as solve(g, opts, sink) with a HostMatrixSink.
// Real weights: the CPU backend for now (Backend::cuda is a UsageError,
// Backend::automatic picks the CPU); a negative cycle is a diagonal entry
// below minus the rounding tolerance (n * epsilon * max|w|), as
// NegativeCycleError.
SolveResult solve(const Graph& g, const SolveOptions& opts = {});
SolveResultF32 solve(const GraphF32& g, const SolveOptions& opts = {});
SolveResultF64 solve(const GraphF64& g, const SolveOptions& opts = {});

// The backend solve() would run `opts` on (Backend::automatic resolved: an
// algorithm name picks its backend; otherwise size, precision, the weight
// type and whether a device is present decide).
Backend choose_backend(const Graph& g, const SolveOptions& opts);
Backend choose_backend(const GraphF32& g, const SolveOptions& opts);
Backend choose_backend(const GraphF64& g, const SolveOptions& opts);

// Solves APSP and hands the rows to `sink` (apsp/sinks.hpp: a host matrix, a
// file, nothing; or your own). Calls sink.begin() once the options are
// checked and before any heavy work, then put() for every row of every plane
// (distances, and predecessors when opts.predecessors), then commit(); when
// anything fails, begin() included, it calls sink.discard() and rethrows.
// Real weights: distances go to the sink as Element::float32 / float64 rows
// (+infinity = unreachable).
SolveSummary solve(const Graph& g, const SolveOptions& opts, Sink& sink);
SolveSummary solve(const GraphF32& g, const SolveOptions& opts, Sink& sink);
SolveSummary solve(const GraphF64& g, const SolveOptions& opts, Sink& sink);

// Algorithm names available on a backend (without "auto"), in a stable order.
std::vector<std::string> list_algorithms(Backend b);

const char* to_string(Backend b);
const char* to_string(Precision p);
Backend parse_backend(const std::string& s);      // throws UsageError
Precision parse_precision(const std::string& s);  // throws UsageError

}  // namespace apsp
