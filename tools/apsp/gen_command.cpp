// apsp gen KIND -n N [...] [--seed S] -o OUT: write a seeded synthetic graph
// (a drawn seed when none is given; the summary line names the seed used).
#include <cstdio>
#include <random>
#include <memory>
#include <regex>
#include <string>

#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/io.hpp"
#include "cli.hpp"

namespace apsp::cli {
namespace {

struct GenArgs {
  std::string kind;
  std::string weights = "1:100";
  std::string output;
  std::string format = "auto";
  int real_decimals = -1;  // --real D: real weights with D decimals; -1 = integers
  GenerateOptions opts;
  const CLI::Option* seed = nullptr;  // --seed, to tell a given seed from the default
};

// A seed from the system's entropy source, for a run without --seed.
std::uint64_t drawn_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

// "LO:HI", each an int32, e.g. "-20:50".
void parse_weight_range(const std::string& text, GenerateOptions& opts) {
  static const std::regex range("(-?[0-9]{1,10}):(-?[0-9]{1,10})");
  std::smatch m;
  const auto fits = [](const std::string& v) {
    const long long x = std::stoll(v);
    return x >= -2147483648LL && x <= 2147483647LL;
  };
  if (!std::regex_match(text, m, range) || !fits(m[1]) || !fits(m[2]))
    throw UsageError("--weights '" + text + "' is not LO:HI with 32-bit integers (e.g. 1:100 or -20:50)");
  opts.w_lo = std::stoi(m[1]);
  opts.w_hi = std::stoi(m[2]);
}

void run_gen(GenArgs& a) {
  const bool drawn = a.seed->count() == 0;
  if (drawn) a.opts.seed = drawn_seed();
  a.opts.kind = parse_graph_kind(a.kind);
  parse_weight_range(a.weights, a.opts);
  const io::Format format = io::parse_format(a.format);
  io::check_graph_output(a.output, a.opts.n, a.opts.w_lo, a.opts.w_hi, format);  // fail before generating
  std::int64_t n = 0;
  std::size_t m = 0;
  if (a.real_decimals >= 0) {
    const GraphF64 g = generate_real(a.opts, a.real_decimals);
    io::write_graph(a.output, g, format);
    n = g.n;
    m = g.edges.size();
  } else {
    const Graph g = generate(a.opts);
    io::write_graph(a.output, g, format);
    n = g.n;
    m = g.edges.size();
  }
  std::printf("%s: %s graph, n = %lld, m = %zu, weights %d:%d%s, seed %llu%s\n", a.output.c_str(), a.kind.c_str(),
              static_cast<long long>(n), m, a.opts.w_lo, a.opts.w_hi,
              a.real_decimals >= 0 ? (" real, " + std::to_string(a.real_decimals) + " decimals").c_str() : "",
              static_cast<unsigned long long>(a.opts.seed), drawn ? " (drawn; --seed repeats it)" : "");
}

}  // namespace

Command add_gen_command(CLI::App& app) {
  auto args = std::make_shared<GenArgs>();
  CLI::App* cmd = app.add_subcommand("gen", "Generate a seeded random graph");
  cmd->add_option("KIND", args->kind, "random (or uniform), scale-free, rmat, grid, dense or geometric")->required();
  cmd->add_option("-n", args->opts.n, "Vertices")->required()->check(CLI::NonNegativeNumber);
  cmd->add_option("-m", args->opts.m, "Edges for random and rmat (default 8n)");
  cmd->add_option("--degree", args->opts.degree, "Edges per new vertex (scale-free); nearest neighbours (geometric)")
      ->capture_default_str();
  cmd->add_option("--density", args->opts.density, "Edge probability (dense)")->capture_default_str();
  cmd->add_option("--weights", args->weights, "Weight range LO:HI, e.g. -20:50")->capture_default_str();
  cmd->add_option("--real", args->real_decimals,
                  "Real weights in the --weights range with this many decimals (0..6), e.g. --real 3")
      ->check(CLI::Range(0, 6));
  args->seed = cmd->add_option("--seed", args->opts.seed, "Random seed (default: drawn, and printed)");
  cmd->add_option("-o,--output", args->output, "Graph file; the extension picks the format")->required();
  cmd->add_option("--format", args->format, "Output format instead of the one the extension names")
      ->capture_default_str();
  return Command{cmd, [args] { run_gen(*args); }};
}

}  // namespace apsp::cli
