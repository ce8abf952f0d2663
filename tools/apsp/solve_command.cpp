// apsp solve IN [-o OUT] [...]: read, solve, optionally verify and write, and
// print a one-screen summary with the time of each stage.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <regex>
#include <string>

#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "apsp/solver.hpp"
#include "apsp/verify.hpp"
#include "cli.hpp"

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
  std::string block;
  int threads = 0;
  int device = 0;
  bool verify = false;
  DistributedArgs distributed;
};

// "WxH" with positive W and H, e.g. "32x8".
BlockShape parse_block(const std::string& text) {
  static const std::regex shape("([1-9][0-9]{0,3})x([1-9][0-9]{0,3})");
  std::smatch m;
  if (!std::regex_match(text, m, shape))
    throw UsageError("--block '" + text + "' is not WxH with positive integers (e.g. 32x8)");
  return BlockShape{std::stoi(m[1]), std::stoi(m[2])};
}

// Algorithms whose work is n^3 relaxations (Floyd-Warshall: every "fw*" and
// the blocked and lab GPU kernels), for which updates/s is meaningful.
bool is_floyd_warshall_type(const std::string& algorithm) {
  static const char* const kernels[] = {"naive",      "coalesced",   "segmented",  "shared-rowcol",
                                        "shared-row", "tran-double", "blocked-32", "blocked-64"};
  return algorithm.rfind("fw", 0) == 0 ||
         std::any_of(std::begin(kernels), std::end(kernels), [&](const char* name) { return algorithm == name; });
}

// A bar on stderr, redrawn when the whole percentage changes; only for a terminal.
class ProgressBar {
 public:
  void draw(double fraction) {
    const int percent = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100);
    if (percent == shown_) return;
    shown_ = percent;
    const int filled = percent * kWidth / 100;
    std::fprintf(stderr, "\rsolving [%.*s%*s] %3d%%", filled, "########################################",
                 kWidth - filled, "", percent);
    std::fflush(stderr);
  }
  ~ProgressBar() {
    if (shown_ >= 0) std::fprintf(stderr, "\r%*s\r", kWidth + 20, "");
  }

 private:
  static constexpr int kWidth = 40;
  int shown_ = -1;
};

void print_row(const char* label, const std::string& value) { std::printf("  %-15s %s\n", label, value.c_str()); }
void print_time(const char* stage, double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%12.3f ms", seconds * 1e3);
  print_row(stage, text);
}

void run_solve(const SolveArgs& a) {
  if (runs_distributed(a.distributed))
    return run_distributed_solve(DistributedSolve{a.input, a.output, a.out_format, a.predecessors_path, a.algorithm,
                                                  a.backend, a.precision, a.block, a.threads, a.verify,
                                                  a.distributed});
  const auto start = std::chrono::steady_clock::now();
  SolveOptions opts;
  opts.algorithm = a.algorithm;
  opts.backend = parse_backend(a.backend);
  opts.precision = parse_precision(a.precision);
  if (!a.block.empty()) opts.block = parse_block(a.block);
  opts.threads = a.threads;
  opts.device = a.device;
  opts.predecessors = !a.predecessors_path.empty();
  const io::Format out_format = io::parse_format(a.out_format);
  if (!a.output.empty() && out_format == io::Format::automatic) io::format_from_path(a.output);  // fail before solving
  if (opts.predecessors) io::format_from_path(a.predecessors_path);

  const LoadedGraph loaded = load_graph(a.input);
  const double read_s = seconds_since(start);
  const std::int64_t n = loaded.normalized.n;
  const double matrix_bytes = 4.0 * static_cast<double>(n) * static_cast<double>(n);
  require_memory(matrix_bytes * (opts.predecessors ? 2 : 1),
                 "the " + std::to_string(n) + " x " + std::to_string(n) + " result" +
                     (opts.predecessors ? " with predecessors" : ""));

  std::unique_ptr<ProgressBar> bar;
  if (isatty(STDERR_FILENO)) {
    bar = std::make_unique<ProgressBar>();
    opts.progress = [&bar](double fraction) { bar->draw(fraction); };
  }
  const SolveResult result = solve(loaded.normalized, opts);
  bar.reset();

  double verify_s = -1;
  if (a.verify) {
    const auto verify_start = std::chrono::steady_clock::now();
    VerifyReport check = apsp::verify(loaded.normalized, result.dist);
    if (check.ok && opts.predecessors) check = verify_predecessors(loaded.normalized, result.dist, result.pred);
    if (!check.ok) throw Error("verify failed: " + check.first_violation);
    verify_s = seconds_since(verify_start);
  }

  const auto write_start = std::chrono::steady_clock::now();
  if (!a.output.empty()) io::write_matrix(a.output, result.dist, n, out_format);
  if (opts.predecessors) io::write_matrix(a.predecessors_path, result.pred, n);
  const double write_s = a.output.empty() && !opts.predecessors ? 0 : seconds_since(write_start);

  std::printf("apsp solve %s\n", a.input.path.c_str());
  print_row("n", std::to_string(n));
  print_row("m", std::to_string(loaded.normalized.edges.size()) + " after normalization (" +
                     std::to_string(loaded.edges_as_read) + " as read)");
  print_row("algorithm", result.algorithm);
  print_row("backend", to_string(result.backend));
  print_row("precision", to_string(result.precision));
  if (result.backend == Backend::cpu) print_row("threads", std::to_string(a.threads > 0 ? a.threads : omp_get_max_threads()));
  print_time("read", read_s);
  print_time("host-to-device", result.times.host_to_device);
  print_time("compute", result.times.compute);
  print_time("device-to-host", result.times.device_to_host);
  print_time("write", write_s);
  if (verify_s >= 0) print_time("verify", verify_s);
  print_time("total", seconds_since(start));
  if (is_floyd_warshall_type(result.algorithm) && result.times.compute > 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%12.4g",
                  static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / result.times.compute);
    print_row("updates/s", rate);
  }
  if (!a.output.empty()) print_row("output", a.output);
  if (opts.predecessors) print_row("predecessors", a.predecessors_path);
  if (verify_s >= 0) std::printf("verify: ok\n");
}

}  // namespace

Command add_solve_command(CLI::App& app) {
  auto args = std::make_shared<SolveArgs>();
  CLI::App* cmd = app.add_subcommand("solve", "Compute all-pairs shortest distances");
  add_graph_input_options(*cmd, args->input, "IN");
  cmd->add_option("-o,--output", args->output, "Distance matrix file (.bin .npy .txt); without it only the summary");
  cmd->add_option("--out-format", args->out_format, "Output format instead of the one the extension names")
      ->capture_default_str();
  cmd->add_option("--algo", args->algorithm, "Algorithm (apsp info lists them)")->capture_default_str();
  cmd->add_option("--backend", args->backend, "auto, cpu or cuda")->capture_default_str();
  cmd->add_option("--threads", args->threads, "CPU threads (0 = OpenMP default)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--predecessors", args->predecessors_path, "Also write the predecessor matrix to this file");
  cmd->add_flag("--verify", args->verify, "Check the result in O(n*m) and print 'verify: ok'");
  cmd->add_option("--precision", args->precision, "GPU arithmetic: auto, int32 or int16")->capture_default_str();
  cmd->add_option("--block", args->block, "GPU thread-block shape WxH, e.g. 32x8");
  cmd->add_option("--device", args->device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  add_distributed_options(*cmd, args->distributed);
  return Command{cmd, [args] { run_solve(*args); }};
}

}  // namespace apsp::cli
