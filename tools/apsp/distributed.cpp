// apsp solve on several ranks: under mpirun (one rank per process), or with
// --distribution in one process (the single communicator). Every rank reads
// the input, solves its part and writes its rows into the one output file;
// rank 0 prints the summary. An error every rank sees together (bad input on
// some rank, a negative cycle, ...) is printed once, by rank 0, and every
// rank exits with its code; any other error is printed by its rank, which
// then aborts the job through the communicator. Launch and placement (which
// GPU, how many threads, which communicator) are the library's
// (apsp/comm.hpp); this file keeps the options and the printing.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <regex>
#include <string>
#include <variant>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/cuda.hpp"
#include "apsp/distributed.hpp"
#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "apsp/registry.hpp"
#include "apsp/sinks.hpp"
#include "cli.hpp"

namespace apsp::cli {
namespace {

// "RxC" with positive R and C, e.g. "2x3".
void parse_grid(const std::string& text, DistributedOptions& opts) {
  static const std::regex shape("([1-9][0-9]{0,5})x([1-9][0-9]{0,5})");
  std::smatch m;
  if (!std::regex_match(text, m, shape))
    throw UsageError("'" + text + "' is not RxC with positive integers (e.g. 2x3)", "grid");
  opts.grid_rows = std::stoi(m[1]);
  opts.grid_cols = std::stoi(m[2]);
}

// The ranks write their rows in place (FileSink with a communicator): binary
// formats only. Refused here, before the graph is read.
void require_binary(const std::string& path, const std::string& format, const char* option) {
  if (path.empty()) return;
  const io::Format f = format == "auto" ? io::format_from_path(path) : io::parse_format(format);
  if (f == io::Format::edge_list || f == io::Format::text_matrix)
    throw UsageError(std::string("the distributed solver writes .bin or .npy matrices (every rank writes its own rows "
                                 "in place), not ") +
                         io::to_string(f),
                     option);
}

// "auto, fw-blocked or fw": what --algorithm may name under the distributed
// solver, from the registry's distributable column.
std::string distributable_names() {
  std::vector<std::string> names{"auto"};
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.distributable) names.emplace_back(a.name);
  std::string list = names.front();
  for (std::size_t i = 1; i < names.size(); ++i) list += (i + 1 == names.size() ? " or " : ", ") + names[i];
  return list;
}

// True when --algorithm names an algorithm whose rows are independent (one
// search per source, or supernodal): the row split runs it
// (solve_distributed_rows) instead of the distributed Floyd-Warshall.
bool runs_row_split(const DistributedSolve& s) {
  if (s.algorithm == "auto") return false;
  const AlgorithmInfo* named = find_algorithm(s.algorithm);
  return named != nullptr && (named->work == Work::per_source || named->work == Work::separators);
}

// True when "auto" chooses between the row split and Floyd-Warshall
// (choose_distributed): no --distribution, --grid or --super-width names fw
// (--distribution rows with a part of the matrix, which only the row split
// computes, names rows of it).
bool auto_chooses(const DistributedSolve& s) {
  const bool layout = !s.distributed.distribution.empty() && !(s.part() && s.distributed.distribution == "rows");
  return s.algorithm == "auto" && !layout && s.distributed.grid.empty() && s.distributed.super_width == 0;
}

// True when `algorithm` (a registry name, as run) is a row split's.
bool is_row_algorithm(const std::string& algorithm) {
  const AlgorithmInfo* named = find_algorithm(algorithm);
  return named != nullptr && (named->work == Work::per_source || named->work == Work::separators);
}

// The A/B of the GPU row split's download: each rank downloads every chunk
// of rows as soon as it is computed (the default, faster end to end as
// measured), or, with APSP_ROW_DOWNLOAD=deferred in the environment, once
// after its last chunk (scripts/gpu-scale sssp runs both).
bool per_chunk_download() {
  const char* mode = std::getenv("APSP_ROW_DOWNLOAD");
  return mode == nullptr || std::string(mode) != "deferred";
}

// The A/B of the GPU row split's pipeline: each rank computes its chunks
// one after another, each waited for before the next is drawn (the
// default), unless APSP_ROW_PIPELINE=pipelined in the environment queues the
// next chunk beside the one computing.
bool serial_row_split() {
  const char* mode = std::getenv("APSP_ROW_PIPELINE");
  return mode == nullptr || std::string(mode) != "pipelined";
}

DistributedOptions options_of(const DistributedSolve& s) {
  DistributedOptions opts;
  opts.row_download_per_chunk = per_chunk_download();
  opts.row_split_serial = serial_row_split();
  opts.distribution = parse_distribution(s.distributed.distribution.empty() ? "rows" : s.distributed.distribution);
  if (!s.distributed.grid.empty()) {
    if (opts.distribution != Distribution::grid) throw UsageError("a grid shape needs --distribution 2d", "grid");
    parse_grid(s.distributed.grid, opts);
  }
  opts.lookahead = !s.distributed.no_lookahead;
  opts.super_width = s.distributed.super_width;
  opts.memory_budget = s.memory_budget;
  opts.backend = parse_backend(s.backend);
  // A GPU-only algorithm (sssp) names its backend, as --devices does.
  const AlgorithmInfo* named = s.algorithm == "auto" ? nullptr : find_algorithm(s.algorithm);
  if (opts.backend == Backend::automatic)
    opts.backend = s.distributed.devices.empty() && (named == nullptr || named->backend == Backend::cpu)
                       ? Backend::cpu
                       : Backend::cuda;
  if (runs_row_split(s)) {
    if (s.distributed.super_width != 0)
      throw UsageError("is for distributed fw's rounds; the row split of " + s.algorithm + " holds rows, not tiles",
                       "super_width");
    if (s.memory_budget != 0)
      throw UsageError("is for distributed fw's tiles; the row split of " + s.algorithm + " holds rows, not tiles",
                       "memory_budget");
    if (opts.distribution != Distribution::rows)
      throw UsageError("the row split of " + s.algorithm + " hands out rows; --distribution 2d is for fw",
                       "distribution");
  } else if (s.algorithm != "auto") {
    if (named == nullptr || !named->distributable)
      throw UsageError("the distributed solver runs blocked Floyd-Warshall (" + distributable_names() +
                       ") or a per-source algorithm's row split, not '" + s.algorithm + "'");
  }
  opts.precision = parse_precision(s.precision);
  if (!s.block.empty()) throw UsageError("the distributed solver has no thread-block shape", "block");
  opts.threads = s.threads;
  opts.predecessors = !s.predecessors_path.empty();
  opts.verify = s.verify;
  opts.cutoff = s.cutoff;  // the searches stop past it (the sparse sink drops the rest)
  // A sparse result is a graph file rank 0 writes; a matrix, rows in place.
  if (!s.sparse()) require_binary(s.output, s.out_format, "output");
  require_binary(s.predecessors_path, "auto", "predecessors");
  return opts;
}

// The startup stages as the summary lists them: `timed` (this thread's:
// MPI, the wait for the GPU helper, the communicator), each under
// "startup", then `parts`: what the communicator reports of its making and
// the GPU helper's own times (devices, context; -1: not run), parts that
// overlapped other work (so they need not add up).
struct StartupLines {
  StageTimes timed;
  StageTimes parts;
};

// `clock` holds the moments on the process's clock (seconds since exec,
// apsp::seconds_since_process_start; -1: unknown): when the solve began,
// when the context was ready, so that with the communicator's "nccl init
// began" they show the chain exec -> libraries -> MPI / context -> NCCL.
struct StartupClock {
  double solve_began = -1;
  double context_ready = -1;
};

StartupLines startup_parts(const StageTimes& timed, const Communicator& comm, double devices_s, double context_s,
                           const StartupClock& clock) {
  StartupLines lines{timed, {}};
  if (clock.solve_began >= 0) lines.parts.add("solve began (since exec)", clock.solve_began);
  for (const auto& [name, seconds] : comm.startup_parts()) lines.parts.add(name, seconds);
  if (devices_s >= 0) lines.parts.add("devices (overlapped)", devices_s);
  if (context_s >= 0) lines.parts.add("context (overlapped)", context_s);
  if (clock.context_ready >= 0) lines.parts.add("context ready (since exec)", clock.context_ready);
  return lines;
}

// "min / median / max ms" of one of the ranks' times.
void print_spread(const char* label, const std::vector<RankTimes>& ranks, double RankTimes::*field) {
  std::vector<double> v;
  for (const RankTimes& t : ranks) v.push_back(t.*field * 1e3);
  std::sort(v.begin(), v.end());
  const double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  char text[96];
  std::snprintf(text, sizeof text, "%12.3f / %.3f / %.3f ms", v.front(), median, v.back());
  print_row(label, text);
}

// A stage's parts, each on a line of its own under it, indented.
void print_parts(const StageTimes& parts) {
  for (const Stage& part : parts.stages) print_stage("  " + part.name, part.seconds);
}

// The part's lines of the summary: rows x columns, and the pairs a sparse
// result kept (-1: not sparse).
struct PartLines {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::int64_t kept = -1;
};

void print_summary(const DistributedSolve& s, const Communicator& comm, const LoadedAnyGraph& loaded,
                   const DistributedResult& r, const std::string& why, int threads, const StartupLines& startup,
                   double read_s, const StageTimes& read_parts, double total_s, const PartLines& part) {
  const bool row_split = is_row_algorithm(r.algorithm);
  std::printf("apsp solve %s (distributed)\n", s.input.path.c_str());
  print_row("n", std::to_string(r.n));
  const std::size_t m = std::visit([](const auto& g) { return g.edges.size(); }, loaded.normalized);
  print_row("m", std::to_string(m) + " after normalization (" + std::to_string(loaded.edges_as_read) + " as read)");
  print_row("weights", to_string(weight_type(loaded.normalized)));
  print_row("algorithm", r.algorithm);
  if (!why.empty()) print_row("auto", why);
  if (!r.resume_note.empty()) print_row("note", r.resume_note);
  print_row("backend", to_string(r.backend));
  print_row("precision", to_string(r.precision));
  print_row("communicator",
            std::string(comm.kind()) + ", " + std::to_string(comm.size()) + (comm.size() == 1 ? " rank" : " ranks"));
  if (row_split)
    print_row("layout", "row split over " + std::to_string(r.grid_rows) + " ranks, chunks of up to " +
                            std::to_string(r.tile) + " rows drawn on demand" +
                            (r.backend != Backend::cuda
                                 ? std::string()
                                 : std::string(per_chunk_download()
                                                   ? ", each downloaded once computed"
                                                   : ", downloaded after the rank's last chunk (APSP_ROW_DOWNLOAD)") +
                                       (serial_row_split() ? ", one chunk at a time"
                                                           : ", the next chunk queued beside the one computing "
                                                             "(APSP_ROW_PIPELINE=pipelined)")));
  else
    print_row("grid", std::to_string(r.grid_rows) + " x " + std::to_string(r.grid_cols) + " (" +
                          (r.grid_cols > 1 ? "2d" : "rows") + "), tile " + std::to_string(r.tile) + ", look-ahead " +
                          (s.distributed.no_lookahead ? "off" : "on"));
  // Early device calls (nccl): which rounds' panels went through MPI.
  if (!row_split && r.backend == Backend::cuda && comm.stages_until_ready()) {
    const std::int64_t from = r.transport_switch_round;
    print_row("device transport", from < 0 && !comm.switches_transport()
                                      ? std::string("mpi (staged) for every round: nccl not started (the rows "
                                                    "layout on one node, or APSP_NCCL_EARLY=never)")
                                  : from < 0  ? std::string("mpi (staged) for every round: nccl was not ready before")
                                  : from == 0 ? std::string(comm.kind()) + " from round 0"
                                              : "mpi (staged) for rounds 0-" + std::to_string(from - 1) + ", then " +
                                                    comm.kind() + " from round " + std::to_string(from));
  }
  if (r.super_width > 0) print_row("out of core", r.out_of_core);
  if (!r.memory_plan.empty()) print_row("memory", r.memory_plan);
  print_row("threads", std::to_string(threads) + " per rank");
  print_stage("startup", startup.timed.total());
  print_parts(startup.timed);
  print_parts(startup.parts);
  print_stage("read", read_s);
  print_parts(read_parts);
  print_stage("setup", r.setup_seconds);
  print_parts(r.setup_stages);
  print_stage(row_split ? "rows" : "rounds", r.rounds_seconds);
  print_parts(r.rounds_stages);
  print_stage("output", r.output_seconds);
  if (r.verify_seconds >= 0) print_stage("verify", r.verify_seconds);
  print_stage("total", total_s);
  print_row("per rank", "min / median / max");
  print_spread("compute", r.ranks, &RankTimes::compute);
  print_spread("communication", r.ranks, &RankTimes::communication);
  print_spread("wait", r.ranks, &RankTimes::wait);
  if (row_split) print_spread("download", r.ranks, &RankTimes::download);
  if (r.rounds_seconds > 0 && !row_split) {
    char rate[32];
    const double n = static_cast<double>(r.n);
    std::snprintf(rate, sizeof rate, "%12.4g", n * n * n / r.rounds_seconds);
    print_row("updates/s", rate);
  }
  if (!s.output.empty()) print_row("output", s.output);
  if (!s.predecessors_path.empty()) print_row("predecessors", s.predecessors_path);
  if (!s.sources.empty() || !s.targets.empty())
    print_row("part", std::to_string(part.rows) + " sources x " + std::to_string(part.columns) + " targets");
  if (part.kept >= 0) {
    const double cells = static_cast<double>(part.rows) * static_cast<double>(part.columns);
    char text[96];
    std::snprintf(text, sizeof text, "%lld pairs (%.3g%% of %.0f)", static_cast<long long>(part.kept),
                  cells == 0 ? 0.0 : 100.0 * static_cast<double>(part.kept) / cells, cells);
    print_row("kept", text);
  }
  if (r.verify_seconds >= 0) std::printf("verify: ok\n");
}

// Test hook: with APSP_TEST_FAIL_RANK=R in the environment, rank R fails
// halfway through the rounds, as a device error there would, so that tests
// can check that every rank stops (tests/distributed/test_dist_cli.cpp).
// With APSP_TEST_PAUSE_MIDWAY set, every rank, halfway through the rounds
// (its output files begun), says "paused midway: rank R pid P" on stderr and
// waits for a signal: tests kill runs there without a race.
void inject_failure(const Communicator& comm, DistributedOptions& opts) {
  if (std::getenv("APSP_TEST_PAUSE_MIDWAY"))
    opts.progress = [rank = comm.rank(), paused = false](double fraction) mutable {
      if (fraction < 0.5 || paused) return;
      paused = true;
      std::fprintf(stderr, "paused midway: rank %d pid %ld\n", rank, static_cast<long>(::getpid()));
      std::fflush(stderr);
      for (;;) ::pause();
    };
  const char* failing = std::getenv("APSP_TEST_FAIL_RANK");
  if (!failing || std::to_string(comm.rank()) != failing) return;
  opts.progress = [rank = comm.rank()](double fraction) {
    if (fraction >= 0.5)
      throw ResourceError("injected failure on rank " + std::to_string(rank) + " (APSP_TEST_FAIL_RANK)");
  };
}

bool on_gpu(const DistributedSolve& s) {
  const AlgorithmInfo* named = s.algorithm == "auto" ? nullptr : find_algorithm(s.algorithm);
  const bool gpu_only = named != nullptr && named->backend == Backend::cuda;
  return s.backend == "cuda" || s.backend == "gpu" ||
         (s.backend == "auto" && (!s.distributed.devices.empty() || gpu_only));
}

// The GPU of this rank (backend cuda): the node's ranks take the listed
// devices (or all of the node's) in turn (apsp::rank_device). -1 on the CPU.
int rank_device(const DistributedSolve& s, int narrowed) {
  if (!on_gpu(s)) return -1;
  if (narrowed > 0) return 0;  // the rank's GPU is the only one it sees
  const std::vector<int> listed = s.distributed.devices.empty() ? std::vector<int>{}
                                                                : parse_device_list(s.distributed.devices);
  std::vector<int> node_devices;
  if (listed.empty())
    for (const auto& d : cuda::devices()) node_devices.push_back(d.ordinal);
  return apsp::rank_device(listed, node_devices, node_place().local_rank);
}

// What the world's device calls will be (apsp::DeviceCalls), known before
// the input is read: `unsplit` for a row split and for the distributed
// fw's rows layout (--distribution rows, the default under mpirun, with no
// --grid and in core), whose rounds broadcast over the whole world and
// never split it; `later` where auto chooses the layout after the read
// (solve_on then says which); `unknown` where a 2d grid or the
// out-of-core rounds may split it.
DeviceCalls device_calls_of(const DistributedSolve& s) {
  if (runs_row_split(s)) return DeviceCalls::unsplit;
  if (auto_chooses(s)) return DeviceCalls::later;
  const bool rows = (s.distributed.distribution.empty() || s.distributed.distribution == "rows") &&
                    s.distributed.grid.empty() && s.distributed.super_width == 0;
  return rows ? DeviceCalls::unsplit : DeviceCalls::unknown;
}

// The communicator of this rank (apsp::make_launch_communicator): mpi, or
// nccl for one GPU per rank; one rank without a launcher.
// `narrowed`: the node's GPU count when this rank sees its own alone
// (apsp::narrow_to_rank_gpu), else 0.
std::unique_ptr<Communicator> make_communicator(const DistributedSolve& s, int device, int narrowed) {
  const CommChoice choice = parse_comm_choice(s.distributed.comm);
  const int node_gpus = device < 0 || !launched_by_mpi() ? 0
                        : narrowed > 0                   ? narrowed
                                                         : static_cast<int>(cuda::devices().size());
  return make_launch_communicator(choice, device, node_gpus, device_calls_of(s));
}

// --sources and --targets of a graph of n vertices into opts: read by rank
// 0 alone (a list, or a file there), an error there every rank's verdict,
// the lists then broadcast. Collective.
void choose_part(Communicator& comm, const DistributedSolve& s, std::int64_t n, DistributedOptions& opts) {
  if (s.sources.empty() && s.targets.empty()) return;
  agree_from(comm, 0, [&] {
    if (!s.sources.empty()) opts.sources = parse_vertex_list(s.sources, n, {}, "sources");
    if (!s.targets.empty()) opts.targets = parse_vertex_list(s.targets, n, {}, "targets");
  });
  for (std::vector<vertex_t>* list : {&opts.sources, &opts.targets}) {
    std::int64_t size = static_cast<std::int64_t>(list->size());
    comm.broadcast(&size, 1, 0);
    list->resize(static_cast<std::size_t>(size));
    if (size > 0) comm.broadcast(list->data(), list->size(), 0);
  }
}

// After the solve: a sparse result (a SparseSink over `comm`, complete on
// rank 0) written there to -o; an error writing it is every rank's. The
// summary's part lines. Collective.
PartLines finish_part(Communicator& comm, const DistributedSolve& s, const DistributedOptions& opts, Sink& sink,
                      std::int64_t n, bool integers) {
  PartLines lines{opts.sources.empty() ? n : static_cast<std::int64_t>(opts.sources.size()),
                  opts.targets.empty() ? n : static_cast<std::int64_t>(opts.targets.size())};
  auto* sparse = dynamic_cast<SparseSink*>(&sink);
  if (sparse == nullptr) return lines;
  lines.kept = static_cast<std::int64_t>(sparse->result().size());
  agree_from(comm, 0, [&] {
    if (!s.output.empty())
      write_sparse(s.output, s.out_format, sparse->result(), opts.sources, opts.targets, {}, n, integers);
  });
  return lines;
}

std::unique_ptr<Sink> make_sink(Communicator& comm, const DistributedSolve& s) {
  if (s.sparse()) return std::make_unique<SparseSink>(comm, SparseKeep{s.cutoff, s.nearest});
  if (s.output.empty() && s.predecessors_path.empty()) return std::make_unique<NullSink>(NullSink::Rows::some);
  auto files = std::make_unique<FileSink>(comm, MatrixFileTarget{s.output, io::parse_format(s.out_format)},
                                          MatrixFileTarget{s.predecessors_path, io::Format::automatic});
  if (s.checkpoint) files->keep_partial(s.resume, s.checkpoint_every);
  return files;
}

// This rank's part of the solve: the row split of --algorithm's rows, or
// the distributed Floyd-Warshall, or for "auto" without a layout what
// choose_distributed picks (its reason in *why). Collective.
DistributedResult solve_on(Communicator& comm, const DistributedSolve& s, const AnyGraph& graph,
                           const DistributedOptions& opts, Sink& sink, std::string* why) {
  return std::visit(
      [&](const auto& g) {
        DistributedChoice choice{s.algorithm, runs_row_split(s), opts.distribution, {}};
        if (auto_chooses(s))
          agree(comm, [&] {
            // Ranks per node: the launcher's; every rank in this process (--devices) is one node.
            const int per_node = launched_by_mpi() ? node_place().local_size : 0;
            choice = choose_distributed(g, opts.backend, comm.size(), per_node, s.part());
          });
        // A world made with DeviceCalls::later (auto) decides its device
        // calls' way now (device_calls_of): a row split and the rows
        // layout never split it.
        comm.plan_device_calls(choice.row_split || choice.distribution == Distribution::rows ? DeviceCalls::unsplit
                                                                                             : DeviceCalls::unknown);
        *why = choice.why;
        if (!choice.row_split) {
          DistributedOptions fw = opts;
          fw.distribution = choice.distribution;
          return solve_distributed(comm, g, fw, sink);
        }
        return solve_distributed_rows(comm, g, choice.algorithm, opts, sink);
      },
      graph);
}

// --devices without mpirun: one rank per GPU, each a thread of this process
// over a local communicator group (NCCL between distinct GPUs).
void run_on_local_devices(const DistributedSolve& s, std::chrono::steady_clock::time_point start) {
  const std::vector<int> devices = parse_device_list(s.distributed.devices);
  DistributedOptions opts = options_of(s);
  if (opts.backend != Backend::cuda) throw UsageError("--devices runs the GPU solver; drop --backend cpu", "devices");
  if (opts.threads == 0) opts.threads = rank_threads(static_cast<int>(devices.size()), true);
  StageTimes startup;
  startup.add("options", seconds_since(start));
  const auto group_start = std::chrono::steady_clock::now();
  const std::vector<std::unique_ptr<Communicator>> group =
      make_local_communicators(static_cast<int>(devices.size()), devices);
  startup.add("communicators", seconds_since(group_start));
  const auto read_start = std::chrono::steady_clock::now();
  // Every rank reads the input (the ranks are threads of this process here).
  const LoadedAnyGraph loaded = load_any_graph(s.input, s.weights);
  const double read_s = seconds_since(read_start);
  std::vector<DistributedResult> results(group.size());
  std::string why;
  PartLines part;
  const std::int64_t n = std::visit([](const auto& g) { return g.n; }, loaded.normalized);
  const bool integers = weight_type(loaded.normalized) == WeightType::int32;
  run_on_threads(group, [&](Communicator& comm) {
    DistributedOptions mine = opts;
    mine.device = comm.device();
    choose_part(comm, s, n, mine);
    const std::unique_ptr<Sink> sink = make_sink(comm, s);
    std::string rank_why;
    results[static_cast<std::size_t>(comm.rank())] = solve_on(comm, s, loaded.normalized, mine, *sink, &rank_why);
    const PartLines lines = finish_part(comm, s, mine, *sink, n, integers);
    if (comm.rank() == 0) {
      why = rank_why;
      part = lines;
    }
  });
  print_summary(s, *group.front(), loaded, results.front(), why, opts.threads, StartupLines{startup, {}}, read_s,
                StageTimes{}, seconds_since(start), part);
}

bool current_exception_is_agreed() {
  try {
    throw;
  } catch (const AgreedFailure&) {
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

void add_distributed_options(CLI::App& cmd, DistributedArgs& args) {
  cmd.add_option("--distribution", args.distribution,
                 "Distributed solver layout: rows or 2d (the default under mpirun is rows)");
  cmd.add_option("--grid", args.grid, "2d process grid RxC (default: the most square one)");
  cmd.add_flag("--no-lookahead", args.no_lookahead, "Distributed solver: send the next panels only after each round");
  cmd.add_option("--super-width", args.super_width,
                 "Distributed solver: out of core per rank, forced: fw-ooc's super-rounds of this width (a "
                 "multiple of 64; of 128 on GPU ranks, whose shares then stay in host memory)");
  cmd.add_option("--devices", args.devices,
                 "Distributed GPU solver: without mpirun, one process on these GPUs (e.g. 0,1); under mpirun, the "
                 "GPUs the ranks of a node take in turn");
  cmd.add_option("--comm", args.comm, "Distributed solver under mpirun: auto, mpi or nccl")->capture_default_str();
}

bool runs_distributed(const DistributedArgs& args) {
  return !args.distribution.empty() || !args.devices.empty() || launched_by_mpi();
}

void run_distributed_solve(const DistributedSolve& s) {
  const auto start = std::chrono::steady_clock::now();
  if (!s.distributed.devices.empty() && !launched_by_mpi()) return run_on_local_devices(s, start);
  std::unique_ptr<Communicator> comm;
  int device = -1;
  // Where startup goes. A helper thread finds the node's GPUs (CUDA's
  // initialization), this rank's device and creates its context, while this
  // thread initializes MPI: neither needs the other. Then the communicator
  // (the NCCL id; NCCL's communicator itself is made on another helper
  // thread while this one reads the graph and builds the tiles). The
  // helper's and the communicator's parts are listed after the stages,
  // marked overlapped where they ran beside other work.
  StageTimes startup;
  double devices_s = -1, context_s = -1;  // the GPU helper's own times
  StartupClock clock;
  clock.solve_began = seconds_since_process_start();
  int narrowed = 0;  // the node's GPU count when this rank sees its own alone
  std::future<LoadedAnyGraph> parsed;  // rank 0's input, parsed beside the startup
  double parse_s = -1;                 // the parse's own time (rank 0)
  try {
    if (launched_by_mpi() && on_gpu(s))
      narrowed = narrow_to_rank_gpu(s.distributed.devices.empty() ? std::vector<int>{}
                                                                  : parse_device_list(s.distributed.devices),
                                    node_place().local_rank);
    std::future<int> gpu = std::async(std::launch::async, [&s, &devices_s, &context_s, &clock, narrowed] {
      const auto devices_start = std::chrono::steady_clock::now();
      const int d = rank_device(s, narrowed);
      devices_s = seconds_since(devices_start);
      if (d >= 0) {
        const auto context_start = std::chrono::steady_clock::now();
        cuda::create_context(d);
        context_s = seconds_since(context_start);
        clock.context_ready = seconds_since_process_start();
      }
      return d;
    });
    // MPI's initialization, here beside the helper: the communicator's
    // creation below finds it done.
    int world_rank = 0;
    if (launched_by_mpi() && comm_support().mpi) world_rank = make_mpi_communicator()->rank();
    startup.add("mpi", seconds_since(start));
    // Rank 0 alone reads the input (below); it starts now, beside the
    // context's creation (0.3-0.5 s of `gpu wait` on four H200s), which the
    // parse (0.12 s at R-MAT n = 65536) needs nothing of. Its error, kept
    // in the future, is every rank's verdict at the read, as before.
    if (world_rank == 0)
      parsed = std::async(std::launch::async, [&s, &parse_s] {
        const auto parse_start = std::chrono::steady_clock::now();
        LoadedAnyGraph g = load_any_graph(s.input, s.weights);
        parse_s = seconds_since(parse_start);
        return g;
      });
    const auto wait_start = std::chrono::steady_clock::now();
    device = gpu.get();
    startup.add("gpu wait", seconds_since(wait_start));
    const auto comm_start = std::chrono::steady_clock::now();
    comm = make_communicator(s, device, narrowed);
    startup.add("communicator", seconds_since(comm_start));
  } catch (...) {
    // No communicator to agree through: every rank reports (they fail alike).
    throw ExitStatus{report_current_exception()};
  }
  const auto read_start = std::chrono::steady_clock::now();
  try {
    DistributedOptions opts;
    LoadedAnyGraph loaded;
    agree(*comm, [&] {
      opts = options_of(s);
      opts.device = device;
      if (opts.threads == 0) opts.threads = rank_threads(node_place().local_size, false);
    });
    // Rank 0 alone reads and normalizes the input; the others receive the
    // normalized graph instead of parsing the file again (their time does
    // not grow with the input's text, and the file is read once). An error
    // reading it is every rank's verdict, reported once.
    StageTimes read_parts;
    agree_from(*comm, 0, [&] { loaded = parsed.valid() ? parsed.get() : load_any_graph(s.input, s.weights); });
    // What the read waited for the parse, begun beside the startup (rank
    // 0), and the parse's own time.
    read_parts.add("parse (rank 0)", seconds_since(read_start));
    if (parse_s >= 0) read_parts.add("parse (rank 0, overlapped)", parse_s);
    const auto broadcast_start = std::chrono::steady_clock::now();
    broadcast_graph(*comm, loaded.normalized, 0);
    std::int64_t counts[2] = {loaded.edges_as_read, loaded.vertices_as_read};
    comm->broadcast(counts, 2, 0);
    loaded.edges_as_read = counts[0];
    loaded.vertices_as_read = counts[1];
    read_parts.add("broadcast", seconds_since(broadcast_start));
    const double read_s = seconds_since(read_start);
    const std::int64_t n = std::visit([](const auto& g) { return g.n; }, loaded.normalized);
    choose_part(*comm, s, n, opts);
    inject_failure(*comm, opts);
    const std::unique_ptr<Sink> sink = make_sink(*comm, s);
    std::string why;
    const DistributedResult result = solve_on(*comm, s, loaded.normalized, opts, *sink, &why);
    const PartLines part = finish_part(*comm, s, opts, *sink, n, weight_type(loaded.normalized) == WeightType::int32);
    // Both solvers waited for the communicator's device side in their
    // setup; this makes its parts complete for the summary whatever ran.
    comm->wait_ready();
    if (comm->rank() == 0)
      print_summary(s, *comm, loaded, result, why, opts.threads,
                    startup_parts(startup, *comm, devices_s, context_s, clock), read_s, read_parts,
                    seconds_since(start), part);
  } catch (...) {
    // Every rank has this error: rank 0 says it once.
    if (current_exception_is_agreed() || comm->size() == 1)
      throw ExitStatus{report_current_exception({}, comm->rank() == 0)};
    // Only this rank has it, and the others may be waiting for it.
    const int code = report_current_exception("rank " + std::to_string(comm->rank()) + ": ");
    comm->abort(code);
    throw ExitStatus{code};
  }
}

}  // namespace apsp::cli
