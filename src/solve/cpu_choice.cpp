// The CPU's "auto": its cost model (choose_algorithm, choice_reason), the
// resolution of SolveOptions::algorithm (resolve_algorithm) and the public
// apsp::cpu::solve, which resolves "auto" here and hands the named algorithm
// to the backend (cpu/run.hpp). It lives in the solve layer beside the GPU's
// model (auto_choice.*), so that every "auto" decision has one home above the
// backends. Declared in include/apsp/cpu.hpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "apsp/cpu.hpp"
#include "apsp/error.hpp"
#include "core/algorithm_checks.hpp"
#include "cpu/backend.hpp"
#include "cpu/run.hpp"

namespace apsp::cpu {
namespace {

// Cost model behind "auto", fitted on the 2-core development machine with
// both threads (docs/perf.md, "Crossover"): one search per source costs about
// kSearchBase + kSearchPerDoubling * log2(m / n) nanoseconds per (source,
// vertex) pair, nearly independent of n; fw-blocked costs kFwPerRelaxation
// nanoseconds per relaxation, so kFwPerRelaxation * n per pair. Johnson's
// potentials and int64 labels make its searches kJohnsonFactor slower. Only
// the ratios matter, so the model carries over to faster or slower cores.
constexpr double kSearchBase = 3.2;
constexpr double kSearchPerDoubling = 10.3;
constexpr double kFwPerRelaxation = 0.015;
constexpr double kJohnsonFactor = 1.15;

// The model's costs per (source, vertex) pair, in nanoseconds.
struct CpuCosts {
  double search = 0;
  double fw = 0;
  double degree = 0;
};

CpuCosts cpu_costs(std::int64_t vertices, std::int64_t edges, bool negative) {
  CpuCosts c;
  const double n = static_cast<double>(vertices);
  c.degree = n > 0 ? static_cast<double>(edges) / n : 0;
  c.search = (kSearchBase + kSearchPerDoubling * std::log2(std::max(1.0, c.degree))) * (negative ? kJohnsonFactor : 1.0);
  c.fw = kFwPerRelaxation * n;
  return c;
}

std::string choose_by_model(std::int64_t n, std::int64_t m, bool negative) {
  const CpuCosts c = cpu_costs(n, m, negative);
  if (c.search >= c.fw) return "fw-blocked";
  return negative ? "johnson" : "dijkstra";
}

template <class W>
std::string choose_typed(const BasicGraph<W>& normalized, const BasicWeightStats<W>& s) {
  return choose_by_model(normalized.n, static_cast<std::int64_t>(normalized.edges.size()), s.has_negative());
}

std::string reason_by_model(std::int64_t n, std::int64_t m, bool negative) {
  const CpuCosts c = cpu_costs(n, m, negative);
  const std::string search = negative ? "johnson" : "dijkstra";
  char line[200];
  std::snprintf(line, sizeof line, "auto picked %s: model %.3g ns per pair for %s against %.3g for fw-blocked (m/n = %.1f)",
                choose_by_model(n, m, negative).c_str(), c.search, search.c_str(), c.fw, c.degree);
  return line;
}

template <class W>
std::string choice_reason_typed(const BasicGraph<W>& normalized, const BasicWeightStats<W>& s) {
  check_normalized(normalized);
  return reason_by_model(normalized.n, static_cast<std::int64_t>(normalized.edges.size()), s.has_negative());
}

// The CPU entry called `name`'s name, or the unknown-algorithm error naming
// the CPU's algorithms.
const char* cpu_name(const std::string& name) {
  const AlgorithmInfo* info = find_algorithm_in(detail::cpu_algorithm_infos(), name);
  if (info == nullptr) throw_unknown_algorithm(name, Backend::cpu, detail::cpu_algorithm_infos());
  return info->name;
}

void require_threads(const SolveOptions& opts) {
  if (opts.threads < 0) throw UsageError("must be >= 0, got " + std::to_string(opts.threads), "threads");
}

template <class W>
std::string resolve_typed(const BasicGraph<W>& normalized, const SolveOptions& opts) {
  require_threads(opts);
  if (opts.algorithm != "auto") return cpu_name(opts.algorithm);
  // Rows of some sources only: one search per source, whatever the density.
  if (!opts.sources.empty()) return weight_stats(normalized).has_negative() ? "johnson" : "dijkstra";
  return choose_typed(normalized, weight_stats(normalized));
}

template <class W>
void solve_typed(const BasicGraph<W>& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  check_normalized(normalized);
  require_options_honoured(opts.algorithm, Backend::cpu, opts, detail::cpu_algorithm_infos());
  SolveOptions run = opts;
  run.algorithm = resolve_typed(normalized, opts);
  detail::run_named(normalized, run, sink, out);
}

}  // namespace

std::string choose_algorithm(const Graph& normalized, const WeightStats& s) { return choose_typed(normalized, s); }
std::string choose_algorithm(const GraphF32& normalized, const BasicWeightStats<float>& s) {
  return choose_typed(normalized, s);
}
std::string choose_algorithm(const GraphF64& normalized, const BasicWeightStats<double>& s) {
  return choose_typed(normalized, s);
}

std::string choice_reason(const Graph& normalized, const WeightStats& s) { return choice_reason_typed(normalized, s); }

std::string choose_algorithm(std::int64_t n, std::int64_t m, bool negative) { return choose_by_model(n, m, negative); }
std::string choice_reason(std::int64_t n, std::int64_t m, bool negative) { return reason_by_model(n, m, negative); }

std::string resolve_algorithm(const Graph& normalized, const SolveOptions& opts) {
  return resolve_typed(normalized, opts);
}
std::string resolve_algorithm(const GraphF32& normalized, const SolveOptions& opts) {
  return resolve_typed(normalized, opts);
}
std::string resolve_algorithm(const GraphF64& normalized, const SolveOptions& opts) {
  return resolve_typed(normalized, opts);
}

std::string resolve_algorithm(std::int64_t n, const DenseScan& scan, const SolveOptions& opts) {
  require_threads(opts);
  if (opts.algorithm != "auto") return cpu_name(opts.algorithm);
  const bool negative = scan.min_w < 0;
  if (!opts.sources.empty()) return negative ? "johnson" : "dijkstra";
  return choose_by_model(n, scan.m, negative);
}

void solve(const Graph& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  solve_typed(normalized, opts, sink, out);
}
void solve(const GraphF32& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  solve_typed(normalized, opts, sink, out);
}
void solve(const GraphF64& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  solve_typed(normalized, opts, sink, out);
}

void solve(const DenseView& view, const DenseScan& scan, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  require_options_honoured(opts.algorithm, Backend::cpu, opts, detail::cpu_algorithm_infos());
  SolveOptions run = opts;
  run.algorithm = resolve_algorithm(view.n, scan, opts);
  detail::run_named(view, scan, run, sink, out);
}

}  // namespace apsp::cpu
