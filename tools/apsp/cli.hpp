// Pieces shared by the subcommands of the `apsp` command-line tool. Commands
// never print errors: they throw apsp::Error subtypes (or CLI11 parse errors)
// and main() turns them into one `apsp: ` line and an exit code.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"

namespace apsp::cli {

// A subcommand: its parser, and what to do when it was the one given.
struct Command {
  CLI::App* parser = nullptr;
  std::function<void()> run;
};

Command add_solve_command(CLI::App& app);
Command add_gen_command(CLI::App& app);
Command add_verify_command(CLI::App& app);
Command add_path_command(CLI::App& app);
Command add_info_command(CLI::App& app);

// A check of a whole-number option in 0..max ("--threads: -1 is not a count
// from 0 to 1024"), in place of CLI11's range checks, whose message prints
// the bounds as doubles.
CLI::Validator count_up_to(std::int64_t max);

// How an input graph is read: the --format, --undirected and --no-edge options.
struct GraphInput {
  std::string path;
  std::string format = "auto";
  bool undirected = false;
  std::optional<std::int64_t> no_edge;  // unset: the readers' default (io::ReadOptions)
  bool relabel = false;                 // compact the vertices an edge touches to 0..k-1 (apsp::compact_vertices)
};
// Registers GRAPH (positional, named `positional_name`), --format, --undirected and --no-edge.
void add_graph_input_options(CLI::App& cmd, GraphInput& in, const std::string& positional_name);

struct LoadedGraph {
  Graph normalized;
  std::int64_t edges_as_read = 0;
  StageTimes times;  // "read" (with the file's bytes) and "normalize"
};
LoadedGraph load_graph(const GraphInput& in);

// A graph in the weight type `weights` names (--weights): "int32", "float32",
// "float64", or "auto" (int32 when every weight read is an integer inside
// int32, float64 otherwise; io::read_any_graph). int32 refuses a real weight
// naming its line or cell. UsageError (option "weights") for another name.
struct LoadedAnyGraph {
  AnyGraph normalized;
  std::int64_t edges_as_read = 0;
  std::int64_t vertices_as_read = 0;
  std::vector<vertex_t> ids;  // with GraphInput::relabel: the original id of each vertex
  StageTimes times;           // "read" (with the file's bytes), "normalize" and "relabel"
};
LoadedAnyGraph load_any_graph(const GraphInput& in, const std::string& weights);

// Registers --weights (solve, verify, path): the weight type load_any_graph reads.
void add_weights_option(CLI::App& cmd, std::string& weights);

// An n x n matrix of T (distances or int32 predecessors) read in place where
// the file allows (io::BasicMatrixFile), checked to match a graph of `n`
// vertices; throws InputError naming `path`. Defined for int32, float, double.
template <class T>
std::unique_ptr<io::BasicMatrixFile<T>> open_square_matrix(const std::string& path, std::int64_t n, const char* what,
                                                           io::Format format = io::Format::automatic);

// The distance matrix of verify and path: DIST (positional) and --dist-format.
struct DistancesInput {
  std::string path;
  std::string format = "auto";  // bin-f32 / bin-f64 only when named
};
void add_distances_input_options(CLI::App& cmd, DistancesInput& d);

// A normalized graph and its distance matrix in one weight type W.
template <class W>
struct GraphWithDistances {
  BasicGraph<W> graph;
  std::unique_ptr<io::BasicMatrixFile<W>> distances;
  std::vector<vertex_t> ids;  // the original id of each vertex, from DIST's id map; empty without one
};
using AnyGraphWithDistances =
    std::variant<GraphWithDistances<weight_t>, GraphWithDistances<float>, GraphWithDistances<double>>;
// Reads the graph and its distance matrix in one weight type: `weights`
// (--weights) when named; under "auto" the type the matrix file stores
// (io::stored_matrix_type: a float .npy's dtype, bin-f32 / bin-f64), the
// graph converted to it as `solve --weights` converts; a text matrix, which
// stores no type, is read in the graph's own (load_any_graph's auto). A matrix
// that stores another type than the one named, or int32 distances of a graph
// with real weights, is an InputError naming both types; the one conversion
// made is the library's of a float .npy of integers for int32 (io::MatrixFile).
// An id map beside DIST (io::id_map_path, written by solve --relabel)
// relabels the graph as solve did; a map that does not match the graph's
// relabelling is an InputError naming it.
AnyGraphWithDistances load_graph_with_distances(const GraphInput& in, const std::string& weights,
                                                const DistancesInput& d);

// The vertices --sources / --targets name (`option`): SPEC is a list
// ("0,5,10-20", ranges inclusive) or else a file of whitespace- or
// comma-separated ids ('#' comments). Ids are the file's own: with
// --relabel (`ids` not empty: the original id of each vertex) they are
// mapped to the relabelled vertices. UsageError for an id outside the graph
// (or left out by --relabel), InputError for a file that cannot be read.
std::vector<vertex_t> parse_vertex_list(const std::string& spec, std::int64_t n, const std::vector<vertex_t>& ids,
                                        const char* option);

// The sparse result of --cutoff / --nearest written as a graph file (an
// edge list, Matrix Market or DIMACS by the extension or --out-format): an
// edge source -> target weighted by the distance, for each kept pair, in the
// input's ids (--relabel's original ids); `sources`, `targets`: the
// solve's lists (empty: every vertex). Integer distances as an int32
// graph, real ones as float64. Written whole or not at all (io::write_graph).
void write_sparse(const std::string& path, const std::string& format, const SparseDistances& kept,
                  const std::vector<vertex_t>& sources, const std::vector<vertex_t>& targets,
                  const std::vector<vertex_t>& ids, std::int64_t n, bool integers);

double seconds_since(std::chrono::steady_clock::time_point start);

// Summary lines (solve, distributed solve): "  LABEL            VALUE".
void print_row(const char* label, const std::string& value);
// A stage's line: "   12.345 ms" and, where bytes moved, "  3.21 GB/s"
// (10^9 bytes per second).
void print_stage(const std::string& name, double seconds, std::uint64_t bytes = 0);

// The distributed solve (distributed.cpp): --distribution, --grid and
// --no-lookahead, --super-width, and the solve options it reads.
struct DistributedArgs {
  std::string distribution;  // rows or 2d; empty = not asked
  std::string grid;          // RxC for 2d
  bool no_lookahead = false;
  std::int64_t super_width = 0;  // --super-width: out of core per rank, forced (CPU or GPU ranks)
  std::string devices;        // GPUs: one process over them, or the ranks of a node in turn
  std::string comm = "auto";  // under mpirun: auto, mpi or nccl
};
void add_distributed_options(CLI::App& cmd, DistributedArgs& args);
// True under an MPI launcher, with --distribution or --devices: `solve` then runs
// run_distributed_solve instead of the single-process solver.
bool runs_distributed(const DistributedArgs& args);
struct DistributedSolve {
  const GraphInput& input;
  const std::string& output;
  const std::string& out_format;
  const std::string& predecessors_path;
  const std::string& algorithm;
  const std::string& backend;
  const std::string& precision;
  const std::string& block;
  int threads;
  bool verify;
  const DistributedArgs& distributed;
  const std::string& weights;  // --weights: auto, int32, float32 or float64
  bool checkpoint = false;     // --checkpoint: keep the rows of a killed run
  bool resume = false;         // --resume: continue them
  double checkpoint_every = 0;  // --checkpoint-every: seconds between the dense rounds' checkpoints
  std::uint64_t memory_budget = 0;  // --memory-budget: what each rank may use for its fw share (0: all it has)
  // A part of the matrix: --sources, --targets (lists as parse_vertex_list
  // reads them; empty: every vertex), --cutoff, --nearest (a sparse result,
  // gathered on rank 0 and written there as a graph file).
  const std::string& sources;
  const std::string& targets;
  std::optional<double> cutoff;
  std::int64_t nearest = 0;
  bool sparse() const { return cutoff.has_value() || nearest > 0; }
  bool part() const { return !sources.empty() || !targets.empty() || sparse(); }
};
void run_distributed_solve(const DistributedSolve& s);


// Prints "apsp: MESSAGE" as one line on stderr (unless `print` is false) and
// returns the exit code.
int report_error(const std::string& message, ExitCode code, bool print = true);
// The same for the exception being handled (call inside a catch block): a
// UsageError's option is spelled as its flag, "--precision: ...". `prefix`
// goes before the message ("rank 2: ").
int report_current_exception(const std::string& prefix = {}, bool print = true);

// Thrown by a command that has reported its error itself: main() returns
// `code` without printing again.
struct ExitStatus {
  int code;
};

}  // namespace apsp::cli
