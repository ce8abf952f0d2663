// apsp solve IN [-o OUT] [...]: read, solve into the output files (or into
// memory with --verify, then check and write), and print a one-screen summary
// with the time of each stage and the peak host memory.
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <system_error>
#include <type_traits>
#include <variant>

#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "apsp/registry.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "apsp/verify.hpp"
#include "cli.hpp"
#include "progress.hpp"

namespace apsp::cli {
namespace {

struct SolveArgs {
  GraphInput input;
  std::string output;
  std::string out_format = "auto";
  std::string predecessors_path;
  std::string algorithm = "auto";
  std::string backend = "auto";
  std::string precision = "auto";
  std::string weights = "auto";
  std::string block;
  std::string memory_budget;
  int threads = 0;
  std::optional<int> device;  // unset: device 0 in one process, --devices' GPUs when distributed
  bool verify = false;
  bool checkpoint = false;  // keep partial rows for --resume
  bool resume = false;
  double checkpoint_every = FileSink::kDefaultCheckpointSeconds;
  DistributedArgs distributed;
  // A part of the matrix (parts.cpp): vertex lists, a sparse result, the output's type.
  std::string sources;
  std::string targets;
  std::optional<double> cutoff;
  std::int64_t nearest = 0;
  std::string output_type = "auto";
  bool sparse() const { return cutoff.has_value() || nearest > 0; }
  bool part() const { return !sources.empty() || !targets.empty() || sparse() || output_type != "auto"; }
};

// --output-type: unset for auto (the solve's own type), else int16, int32, float32 or float64.
std::optional<Element> parse_output_type(const std::string& name) {
  if (name == "auto") return std::nullopt;
  if (name == "int16") return Element::int16;
  if (name == "int32") return Element::int32;
  if (name == "float32") return Element::float32;
  if (name == "float64") return Element::float64;
  throw UsageError("'" + name + "' is not an output type (auto, int16, int32, float32 or float64)", "output-type");
}

// "WxH" with positive W and H, e.g. "32x8".
BlockShape parse_block(const std::string& text) {
  static const std::regex shape("([1-9][0-9]{0,3})x([1-9][0-9]{0,3})");
  std::smatch m;
  if (!std::regex_match(text, m, shape))
    throw UsageError("--block '" + text + "' is not WxH with positive integers (e.g. 32x8)");
  return BlockShape{std::stoi(m[1]), std::stoi(m[2])};
}

// "BYTES" with an optional K, M, G or T (powers of 1024), e.g. "512M"; > 0.
std::uint64_t parse_memory_budget(const std::string& text) {
  static const std::regex size("([1-9][0-9]{0,15})([KMGT]?)");
  std::smatch m;
  if (!std::regex_match(text, m, size))
    throw UsageError("'" + text + "' is not a positive byte count with an optional K, M, G or T (e.g. 512M)",
                     "memory_budget");
  const std::string unit = m[2];
  const int shift = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : 40;
  const std::uint64_t count = std::stoull(m[1]);
  if (count > (std::numeric_limits<std::uint64_t>::max() >> shift))
    throw UsageError("'" + text + "' is more bytes than 64 bits count", "memory_budget");
  return count << shift;
}

// Algorithms whose work is n^3 relaxations (the registry's Work::cubic), for
// which updates/s = n^3 / compute time is meaningful.
bool is_floyd_warshall_type(const std::string& algorithm) {
  const AlgorithmInfo* info = find_algorithm(algorithm);
  return info != nullptr && info->work == Work::cubic;
}

// Stages of the whole command in the order they ran: the CLI's own (read,
// normalize, verify, write...) around the library's.
class Stages {
 public:
  Stages() : last_(std::chrono::steady_clock::now()) {}
  void lap(const char* name, std::uint64_t bytes = 0) {
    const auto now = std::chrono::steady_clock::now();
    times_.add(name, std::chrono::duration<double>(now - last_).count(), bytes);
    last_ = now;
  }
  // Appends the library's stages; the time since the last lap not covered by
  // them is left for "other".
  void append(const StageTimes& library) {
    for (const Stage& stage : library.stages) times_.stages.push_back(stage);
    last_ = std::chrono::steady_clock::now();
  }
  const StageTimes& times() const { return times_; }

 private:
  StageTimes times_;
  std::chrono::steady_clock::time_point last_;
};

std::string peak_host_memory() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return "unknown";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(usage.ru_maxrss) / 1024.0);  // ru_maxrss is in KiB
  return text;
}

// The distances of a host matrix of the weight type W.
template <class W>
HostVector<W>& host_distances(HostMatrixSink& host) {
  if constexpr (std::is_same<W, float>::value)
    return host.distances_f32();
  else if constexpr (std::is_same<W, double>::value)
    return host.distances_f64();
  else
    return host.distances();
}

template <class W>
Element element_of() {
  return std::is_same<W, float>::value    ? Element::float32
         : std::is_same<W, double>::value ? Element::float64
                                          : Element::int32;
}

// Solves the loaded graph `g` (normalized, weight type W) into the files,
// verifies when asked, and prints the summary.
template <class W>
void solve_loaded(const SolveArgs& a, SolveOptions opts, std::unique_ptr<FileSink>& files, const LoadedAnyGraph& loaded,
                  const BasicGraph<W>& g, std::chrono::steady_clock::time_point start) {
  Stages stages;
  stages.append(loaded.times);
  const std::int64_t n = g.n;
  if (!a.sources.empty()) opts.sources = parse_vertex_list(a.sources, n, loaded.ids, "sources");
  if (!a.targets.empty()) opts.targets = parse_vertex_list(a.targets, n, loaded.ids, "targets");
  const std::int64_t rows = a.sources.empty() ? n : static_cast<std::int64_t>(opts.sources.size());
  const std::int64_t columns = a.targets.empty() ? n : static_cast<std::int64_t>(opts.targets.size());
  const auto cells = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(columns);
  const std::uint64_t result_bytes = cells * (sizeof(W) + (opts.predecessors ? sizeof(vertex_t) : 0));

  ProgressBar bar;
  std::unique_ptr<ProgressSink> progress;
  if (files) progress = std::make_unique<ProgressSink>(*files, bar);
  // Every row written passes a ConvertingSink: --output-type's conversion,
  // and the narrowest exact type for the summary's advice.
  std::unique_ptr<ConvertingSink> written;
  if (progress) written = std::make_unique<ConvertingSink>(*progress, parse_output_type(a.output_type));
  std::optional<SparseSink> sparse;
  if (a.sparse()) sparse.emplace(SparseKeep{a.cutoff, a.nearest});
  opts.cutoff = a.cutoff;  // the searches stop past it (the sparse sink drops the rest)
  // Only a drawn bar listens: a listener makes the GPU solver wait for each
  // round to report it (7% of fw's compute at n = 32768 on the H100).
  if (bar.enabled())
    opts.progress = [&](double fraction) {
      bar.draw("solving", fraction);
      if (fraction >= 1.0 && progress) progress->writing_started();
    };

  SolveSummary result;
  double verified_within = 0;  // verify's relative tolerance (0: exact, int32)
  // A GPU solve checks its result on the device before the download
  // (SolveOptions::verify), so its rows can stream to the files too.
  opts.verify = a.verify && choose_backend(g, opts) == Backend::cuda;
  if (a.verify && !opts.verify && (!a.sources.empty() || !a.targets.empty() || a.sparse()))
    throw UsageError("the CPU's check needs the whole matrix in memory; verify without --sources, --targets, "
                     "--cutoff and --nearest (or on the GPU, which checks whole rows before the part is cut)",
                     "verify");
  if (sparse) {
    // The kept pairs only, in memory; written as a graph file once complete.
    result = solve(g, opts, *sparse);
    stages.append(result.times);
    if (!a.output.empty()) {
      write_sparse(a.output, a.out_format, sparse->result(), opts.sources, opts.targets, loaded.ids, n,
                   result.weights == WeightType::int32);
      stages.lap("write");
    }
  } else if (!a.verify || opts.verify) {
    // Rows go straight to the files (or nowhere) as the solver finishes them.
    NullSink nothing;
    result = solve(g, opts, written ? static_cast<Sink&>(*written) : nothing);
    stages.append(result.times);
  } else {
    // The check needs the distances in memory: solve into a host matrix,
    // verify it, and only then write the files (begun first, so that a file
    // that cannot be written fails before the solve).
    if (written) written->begin(SinkLayout{n, element_of<W>(), opts.predecessors});
    stages.lap("open files");
    HostMatrixSink host;
    result = solve(g, opts, host);
    stages.append(result.times);
    const HostVector<W>& distances = host_distances<W>(host);
    VerifyReport check = apsp::verify(g, distances, [&](double f) { bar.draw("verifying", f); });
    if (check.ok && opts.predecessors)
      check = verify_predecessors(g, distances, host.predecessors(), [&](double f) { bar.draw("verifying", f); });
    if (!check.ok) throw VerifyError(check.first_violation);
    verified_within = check.relative_tolerance;
    stages.lap("verify", result_bytes);
    if (written) {
      progress->writing_started();
      put_matrix(*written, Plane::distances, distances.data(), n);
      if (opts.predecessors) put_matrix(*written, Plane::predecessors, host.predecessors().data(), n);
      stages.lap("write", result_bytes);
      written->commit();
      stages.lap("commit");
    }
  }
  const std::optional<Element> output_type = parse_output_type(a.output_type);
  // Unset where rows kept from a killed run were never scanned: no advice,
  // and a lossy conversion is not called exact.
  const std::optional<Element> narrowest = written ? written->narrowest_exact() : std::optional<Element>();
  const bool rounded = written && written->lossy() && (!narrowest || *narrowest == Element::float64);
  written.reset();
  progress.reset();
  const double total = seconds_since(start);

  std::printf("apsp solve %s\n", a.input.path.c_str());
  print_row("n", std::to_string(n));
  print_row("m", std::to_string(g.edges.size()) + " after normalization (" + std::to_string(loaded.edges_as_read) +
                     " as read)");
  print_row("algorithm", result.algorithm);
  print_row("backend", to_string(result.backend));
  print_row("weights", to_string(result.weights));
  if (result.weights == WeightType::int32) print_row("precision", to_string(result.precision));
  if (!result.note.empty()) print_row("note", result.note);
  if (result.backend == Backend::cpu)
    print_row("threads", std::to_string(a.threads > 0 ? a.threads : omp_get_max_threads()));
  for (const Stage& stage : stages.times().stages) print_stage(stage.name, stage.seconds, stage.bytes);
  const double other = total - stages.times().total();
  print_stage("other", std::max(0.0, other), 0);
  print_stage("total", total, 0);
  const double compute = result.times.seconds("compute");
  if (is_floyd_warshall_type(result.algorithm) && compute > 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%12.4g",
                  static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / compute);
    print_row("updates/s", rate);
  }
  print_row("peak host memory", peak_host_memory());
  if (!a.output.empty()) print_row("output", a.output);
  if (!a.sources.empty() || !a.targets.empty())
    print_row("part", std::to_string(rows) + " sources x " + std::to_string(columns) + " targets");
  if (sparse) {
    const SparseDistances& kept = sparse->result();
    const double share = cells == 0 ? 0.0 : 100.0 * static_cast<double>(kept.size()) / static_cast<double>(cells);
    char text[96];
    std::snprintf(text, sizeof text, "%zu pairs (%.3g%% of %llu)", kept.size(), share,
                  static_cast<unsigned long long>(cells));
    print_row("kept", text);
  }
  if (output_type)
    print_row("output type",
              std::string(to_string(*output_type)) +
                  (rounded ? " (lossy: rounded from " + std::string(to_string(result.weights)) + ")" : " (exact)"));
  if (narrowest == Element::float64)
    print_row("advice", "float64 is the narrowest output type that holds every distance exactly; float32 halves it, "
                        "rounded (lossy) (--output-type)");
  else if (narrowest)
    print_row("advice", std::string(to_string(*narrowest)) + " is the narrowest output type that holds every distance "
                                                             "exactly (--output-type)");
  if (opts.predecessors) print_row("predecessors", a.predecessors_path);
  if (a.verify) {
    if (verified_within > 0)
      std::printf("verify: ok (within %.3g relative: n * epsilon(%s))\n", verified_within, to_string(result.weights));
    else
      std::printf("verify: ok\n");
  }
}

void run_solve(const SolveArgs& a) {
  if (a.checkpoint || a.resume) {
    const char* option = a.resume ? "resume" : "checkpoint";
    if (a.output.empty() && a.predecessors_path.empty())
      throw UsageError("keeps partial rows of an output file; give -o or --predecessors", option);
    if (a.verify)
      throw UsageError("--verify checks the result in memory before writing it; it cannot resume partial rows", option);
    if (a.sparse())
      throw UsageError("a sparse result (--cutoff, --nearest) is kept in memory and written once complete; it keeps "
                       "no partial rows",
                       option);
  }
  if (a.distributed.super_width != 0 && !runs_distributed(a.distributed))
    throw UsageError("is for the distributed solver (--distribution or mpirun); one process goes out of core with "
                     "--algo fw-ooc",
                     "super_width");
  if (runs_distributed(a.distributed)) {
    if (a.input.relabel) throw UsageError("--relabel is not available with the distributed solver", "relabel");
    if (a.output_type != "auto")
      throw UsageError("is not available with the distributed solver (every rank writes its rows in the solve's own "
                       "type)",
                       "output-type");
    if (a.sparse() && !a.predecessors_path.empty())
      throw UsageError("a sparse result (--cutoff, --nearest) holds distances only, not predecessors", "predecessors");
    if (a.sparse() && !a.output.empty()) io::format_from_path(a.output);  // an unknown extension fails before the solve
    // --device D is the ranks' one GPU, as --devices D would name it.
    DistributedArgs distributed = a.distributed;
    if (a.device) {
      if (!distributed.devices.empty())
        throw UsageError("both --device and --devices name GPUs for the distributed solver; give one", "device");
      if (a.backend == "cpu") throw UsageError("names a GPU, and the distributed cpu backend uses none", "device");
      distributed.devices = std::to_string(*a.device);
    }
    return run_distributed_solve(DistributedSolve{a.input,
                                                  a.output,
                                                  a.out_format,
                                                  a.predecessors_path,
                                                  a.algorithm,
                                                  a.backend,
                                                  a.precision,
                                                  a.block,
                                                  a.threads,
                                                  a.verify,
                                                  distributed,
                                                  a.weights,
                                                  a.checkpoint || a.resume,
                                                  a.resume,
                                                  a.checkpoint_every,
                                                  a.memory_budget.empty() ? 0 : parse_memory_budget(a.memory_budget),
                                                  a.sources,
                                                  a.targets,
                                                  a.cutoff,
                                                  a.nearest});
  }
  const auto start = std::chrono::steady_clock::now();
  SolveOptions opts;
  opts.algorithm = a.algorithm;
  opts.backend = parse_backend(a.backend);
  opts.precision = parse_precision(a.precision);
  if (!a.block.empty()) opts.block = parse_block(a.block);
  opts.threads = a.threads;
  opts.device = a.device.value_or(0);
  if (!a.memory_budget.empty()) opts.memory_budget = parse_memory_budget(a.memory_budget);
  opts.predecessors = !a.predecessors_path.empty();
  // Output names and formats are checked before reading; sizes, disk space and
  // memory once n is known, before solving.
  if (a.sparse() && opts.predecessors)
    throw UsageError("a sparse result (--cutoff, --nearest) holds distances only, not predecessors", "predecessors");
  if (a.sparse() && a.output_type != "auto")
    throw UsageError("a sparse result (--cutoff, --nearest) is written as a graph file in the distances' own type",
                     "output-type");
  if (a.sparse() && !a.output.empty()) io::format_from_path(a.output);  // an unknown extension fails before the solve
  parse_output_type(a.output_type);
  std::unique_ptr<FileSink> files;
  if (!a.sparse() && (!a.output.empty() || opts.predecessors))
    files = std::make_unique<FileSink>(MatrixFileTarget{a.output, io::parse_format(a.out_format)},
                                       MatrixFileTarget{a.predecessors_path, io::Format::automatic});
  if (files && (a.checkpoint || a.resume)) files->keep_partial(a.resume, a.checkpoint_every);

  // --backend cuda: the device's context starts on a helper thread while the
  // graph is read and normalized, and while the solve does its host work
  // (check, auto's probe, a part's renumbering): nothing waits for the
  // helper here; the solve's first device call does, inside its stage
  // "device start" (docs/perf.md, "A part's fixed costs"). The helper drops
  // its errors: the solve's own CUDA calls report them as they always did
  // (no device, an ordinal that does not exist). `context` outlives the
  // solve: its destructor joins the helper.
  std::future<void> context;
  if (a.backend == "cuda") {
    try {
      context = std::async(std::launch::async, [device = a.device.value_or(0)] {
        try {
          cuda::create_context(device);
        } catch (...) {  // reported by the solve itself
        }
      });
    } catch (const std::system_error&) {  // no thread: the solve creates the context itself
    }
  }
  const LoadedAnyGraph loaded = load_any_graph(a.input, a.weights);
  // --weights int32 asks for int32 distances: refused before the solve where
  // (n-1) * max|w| can reach kInf (auto solves such a graph in float64).
  if (const Graph* ints = std::get_if<Graph>(&loaded.normalized);
      ints && a.weights == "int32" && choose_weight_type(*ints) != WeightType::int32)
    throw UsageError("int32 distances cannot hold every distance of this graph ((n-1) * max|w| reaches 2^30 - 1); "
                     "use auto or float64",
                     "weights");
  std::visit([&](const auto& g) { solve_loaded(a, opts, files, loaded, g, start); }, loaded.normalized);
  // The id map goes beside the result once the result is complete; a result
  // written without --relabel drops a map an earlier run left there, which
  // would describe another result.
  const std::string& result = a.output.empty() ? a.predecessors_path : a.output;
  if (result.empty()) return;
  const std::string map = io::id_map_path(result);
  if (a.input.relabel) {
    io::write_id_map(map, loaded.ids);
    print_row("id map", map + " (" + std::to_string(loaded.ids.size()) + " vertices of ids 0.." +
                            std::to_string(loaded.vertices_as_read - 1) + ")");
  } else {
    std::error_code ignored;
    std::filesystem::remove(map, ignored);
  }
}

}  // namespace

Command add_solve_command(CLI::App& app) {
  auto args = std::make_shared<SolveArgs>();
  CLI::App* cmd = app.add_subcommand("solve", "Compute all-pairs shortest distances");
  cmd->footer(
      "What a size costs: the distances take n^2 x 4 bytes (n = 32768: 4 GiB), the predecessors as much again.\n"
      "Without --verify the rows go to the -o / --predecessors files as they are finished: dijkstra, johnson and\n"
      "bellman-ford hold no n x n matrix then; fw-seq and fw-blocked hold their working matrix (fw-blocked with\n"
      "predecessors: three). --verify holds the result in memory. Before any work, a result that does not fit the\n"
      "memory available and a file that does not fit its disk are refused (exit 3).");
  add_graph_input_options(*cmd, args->input, "IN");
  cmd->add_option("-o,--output", args->output, "Distance matrix file (.bin .npy .txt); without it only the summary");
  cmd->add_option("--out-format", args->out_format, "Output format instead of the one the extension names")
      ->capture_default_str();
  cmd->add_option("--algo", args->algorithm, "Algorithm (apsp info lists them)")->capture_default_str();
  cmd->add_option("--backend", args->backend, "auto, cpu or cuda")->capture_default_str();
  cmd->add_option("--threads", args->threads, "CPU threads (0 = OpenMP default)")->check(count_up_to(kMaxThreads));
  cmd->add_option("--predecessors", args->predecessors_path, "Also write the predecessor matrix to this file");
  cmd->add_flag("--verify", args->verify, "Check the result in O(n*m) and print 'verify: ok'");
  cmd->add_flag("--checkpoint", args->checkpoint,
                "Keep the rows written so far beside the output (.OUT.apsp-partial and its journal) when the run "
                "fails or is killed, for --resume (.bin and .npy outputs)");
  cmd->add_flag("--resume", args->resume,
                "Continue the rows (and fw-blocked's rounds) an interrupted --checkpoint run of the same solve left "
                "(implies --checkpoint)");
  cmd->add_option(
         "--checkpoint-every", args->checkpoint_every,
         "With --checkpoint: seconds between the round checkpoints of fw-blocked and the distributed fw (0: none)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--relabel", args->input.relabel,
                "Number the vertices an edge touches 0..k-1 (ids that run high, as in SNAP edge lists) and write "
                "the original ids beside the result (OUT.ids), which path and verify read back");
  add_weights_option(*cmd, args->weights);
  cmd->add_option("--precision", args->precision, "Arithmetic: auto, int32, int16 (GPU) or int64 (CPU)")
      ->capture_default_str();
  cmd->add_option("--block", args->block, "GPU thread-block shape WxH, e.g. 32x8");
  cmd->add_option("--device", args->device, "CUDA device ordinal")->check(count_up_to(std::numeric_limits<int>::max()));
  cmd->add_option("--memory-budget", args->memory_budget,
                  "Device memory the GPU's dense solver may use, e.g. 8G (default: the free memory); auto solves "
                  "out of core (fw-ooc) when fw's matrix exceeds it. Distributed fw: what each rank may use for its "
                  "share (device memory on GPU ranks, host memory on CPU ranks); a share that fits neither in core "
                  "nor out of core is refused before any work");
  cmd->add_option("--sources", args->sources,
                  "Rows of these sources only: a list (0,5,10-20) or a file of ids; the input's ids (--relabel's "
                  "original ones)");
  cmd->add_option("--targets", args->targets, "Columns of these targets only, as --sources; writes sources x targets");
  cmd->add_option("--cutoff", args->cutoff,
                  "Keep distances <= X only: a sparse result, written to -o as a graph file (.txt/.edges edge "
                  "list, .mtx, .gr) of edges source target distance");
  cmd->add_option("--nearest", args->nearest,
                  "Keep the K nearest targets of each source only (the source itself at 0 counts): sparse, as "
                  "--cutoff")
      ->check(count_up_to(std::numeric_limits<vertex_t>::max()));
  cmd->add_option("--output-type", args->output_type,
                  "Distances written as int16 (integers below 32767 only, else refused; 32767 = unreachable; .npy "
                  "or text), int32 (exact integers only, else refused), float32 (rounds float64: lossy) or float64; "
                  "auto = the solve's own type")
      ->capture_default_str();
  add_distributed_options(*cmd, args->distributed);
  return Command{cmd, [args] { run_solve(*args); }};
}

}  // namespace apsp::cli
