// The CPU's "auto": its cost model (choose_algorithm, choice_reason), the
// resolution of SolveOptions::algorithm (resolve_algorithm) and the public
// apsp::cpu::solve, which resolves "auto" here and hands the named algorithm
// to the backend (cpu/run.hpp). It lives in the solve layer beside the GPU's
// model (auto_choice.*), so that every "auto" decision has one home above the
// backends. Declared in include/apsp/cpu.hpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "apsp/cpu.hpp"
#include "apsp/error.hpp"
#include "core/algorithm_checks.hpp"
#include "cpu/backend.hpp"
#include "cpu/run.hpp"
#include "core/graph_probe.hpp"
#include "solve/auto_choice.hpp"
#include "supernodal/symbolic.hpp"

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

// supernodal's place in the model (docs/perf.md, "supernodal on the CPU"),
// in the same units as the search model. Its cost per (source, vertex) pair
// is kSupernodalPerSolveOp * nnz(L) / n (the row solve's min-plus ops per
// source over n) + kSupernodalPerPair (gathering, permuting and handing a
// row over) + kSupernodalPerFactorOp * factor ops / n^2. Fitted on
// bench/cpu_solvers runs on the 2-core development machine: 0.34 ns per
// solve op, 10 ns per pair and 1.5 ns per factor op, against dijkstra's
// measured ns per pair in the same runs, 4.7 times the search model (grid,
// geometric, random-4, random-8 at n = 2048); the constants are those
// divided by 4.7. The symbolic analysis (METIS) that yields the op counts is
// run only where separators can be small: graphs of at least
// kSupernodalMinVertices vertices that pass choice::separators_may_be_small
// (solve/auto_choice.hpp, the GPU's gate too).
constexpr double kSupernodalPerSolveOp = 0.072;
constexpr double kSupernodalPerPair = 2.1;
constexpr double kSupernodalPerFactorOp = 0.32;
constexpr std::int64_t kSupernodalMinVertices = 1024;
// The probe is O(n + m) and the analysis about O(nnz(L)): neither is run on
// graphs with fewer edges than vertices (isolated vertices: the searches are
// trivial) or beyond 2^24 vertices (a 1 PiB int32 result; such a solve is
// refused for memory or disk, and the probe must not come first).
constexpr std::int64_t kSupernodalMaxVertices = std::int64_t{1} << 24;

// The CPU entry called `name`'s name, or the unknown-algorithm error naming
// the CPU's algorithms.
const char* cpu_name(const std::string& name) {
  const AlgorithmInfo* info = find_algorithm_in(detail::cpu_algorithm_infos(), name);
  if (info == nullptr) throw_unknown_algorithm(name, Backend::cpu, detail::cpu_algorithm_infos());
  return info->name;
}

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
  c.search = (kSearchBase + kSearchPerDoubling * std::log2(std::max(1.0, c.degree))) *
             (negative ? kJohnsonFactor : 1.0);
  c.fw = kFwPerRelaxation * n;
  return c;
}

template <class W>
CpuCosts cpu_costs(const BasicGraph<W>& normalized, const BasicWeightStats<W>& s) {
  check_normalized(normalized);
  return cpu_costs(normalized.n, static_cast<std::int64_t>(normalized.edges.size()), s.has_negative());
}

std::string choose_by_model(std::int64_t n, std::int64_t m, bool negative) {
  const CpuCosts c = cpu_costs(n, m, negative);
  if (c.search >= c.fw) return "fw-blocked";
  return negative ? "johnson" : "dijkstra";
}

std::string reason_by_model(std::int64_t n, std::int64_t m, bool negative);

// The CPU's "auto" for a normalized graph, and one line saying why.
struct CpuChoice {
  std::string algorithm;
  std::string why;
};

// The size-only model, then supernodal where the graph is deep enough for
// small separators and its symbolic op counts beat the model's choice.
template <class W>
CpuChoice choose_with_reason(const BasicGraph<W>& normalized, const BasicWeightStats<W>& s) {
  check_normalized(normalized);
  const std::int64_t n = normalized.n, m = static_cast<std::int64_t>(normalized.edges.size());
  CpuChoice choice{choose_by_model(n, m, s.has_negative()), reason_by_model(n, m, s.has_negative())};
  if (n < kSupernodalMinVertices || n > kSupernodalMaxVertices || m < n || !supernodal::ordering_available())
    return choice;
  const std::int64_t depth = core::probe_graph(normalized).hop_depth;
  char line[300];
  if (!choice::separators_may_be_small(n, depth)) {
    std::snprintf(line, sizeof line, "; supernodal not tried: hop depth %lld < %.0f log2 n, separators are large",
                  static_cast<long long>(depth), choice::kPlanarDepthPerLog2);
    choice.why += line;
    return choice;
  }
  const supernodal::Symbolic sym = supernodal::analyse(to_csr(normalized));
  const double vertices = static_cast<double>(n);
  const double estimate = kSupernodalPerSolveOp * sym.solve_ops_per_source / vertices + kSupernodalPerPair +
                          kSupernodalPerFactorOp * sym.factor_ops / (vertices * vertices);
  const CpuCosts costs = cpu_costs(n, m, s.has_negative());
  const bool pays = estimate < std::min(costs.search, costs.fw);
  std::snprintf(line, sizeof line,
                "%s model %.3g ns per pair for supernodal against %.3g for %s (hop depth %lld, top separator %lld, "
                "nnz(L)/n = %.1f)",
                pays ? "auto picked supernodal:" : ";", estimate, std::min(costs.search, costs.fw),
                choice.algorithm.c_str(), static_cast<long long>(depth), static_cast<long long>(sym.top_separator),
                sym.solve_ops_per_source / vertices);
  if (pays)
    choice = CpuChoice{"supernodal", line};
  else
    choice.why += line;
  return choice;
}

template <class W>
std::string choose_typed(const BasicGraph<W>& normalized, const BasicWeightStats<W>& s) {
  return choose_with_reason(normalized, s).algorithm;
}

std::string reason_by_model(std::int64_t n, std::int64_t m, bool negative) {
  const CpuCosts c = cpu_costs(n, m, negative);
  const std::string search = negative ? "johnson" : "dijkstra";
  char line[200];
  std::snprintf(line, sizeof line,
                "auto picked %s: model %.3g ns per pair for %s against %.3g for fw-blocked (m/n = %.1f)",
                choose_by_model(n, m, negative).c_str(), c.search, search.c_str(), c.fw, c.degree);
  return line;
}

template <class W>
std::string choice_reason_typed(const BasicGraph<W>& normalized, const BasicWeightStats<W>& s) {
  return choose_with_reason(normalized, s).why;
}

// What every resolve_algorithm decides before any model: a named algorithm
// is checked against the CPU's entries, and rows of some sources only take
// one search per source, whatever the density. Empty: the model decides.
// `negative()` (whether some weight is negative; a scan of the weights for a
// graph) is called only for the second.
template <class Negative>
std::optional<std::string> resolve_without_model(const SolveOptions& opts, const Negative& negative) {
  require_thread_count(opts.threads);
  if (opts.algorithm != "auto") return std::string(cpu_name(opts.algorithm));
  if (!opts.sources.empty()) return std::string(negative() ? "johnson" : "dijkstra");
  return std::nullopt;
}

// With `why`, the reason for an "auto" choice is stored there (one model
// evaluation, one symbolic analysis at most).
template <class W>
std::string resolve_typed(const BasicGraph<W>& normalized, const SolveOptions& opts, std::string* why = nullptr) {
  if (std::optional<std::string> named =
          resolve_without_model(opts, [&] { return weight_stats(normalized).has_negative(); }))
    return *named;
  CpuChoice choice = choose_with_reason(normalized, weight_stats(normalized));
  if (why) *why = std::move(choice.why);
  return choice.algorithm;
}

template <class W>
void solve_typed(const BasicGraph<W>& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  check_normalized(normalized);
  // auto's analysis (if it runs) is the one the supernodal solver uses.
  const supernodal::AnalysisReuse reuse;
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

std::string resolve_algorithm(const Graph& normalized, const SolveOptions& opts) {
  return resolve_typed(normalized, opts);
}
std::string resolve_algorithm(const Graph& normalized, const SolveOptions& opts, std::string* why) {
  return resolve_typed(normalized, opts, why);
}
std::string resolve_algorithm(const GraphF32& normalized, const SolveOptions& opts) {
  return resolve_typed(normalized, opts);
}
std::string resolve_algorithm(const GraphF64& normalized, const SolveOptions& opts) {
  return resolve_typed(normalized, opts);
}

std::string choose_algorithm(std::int64_t n, std::int64_t m, bool negative) { return choose_by_model(n, m, negative); }
std::string choice_reason(std::int64_t n, std::int64_t m, bool negative) { return reason_by_model(n, m, negative); }

std::string resolve_algorithm(std::int64_t n, const DenseScan& scan, const SolveOptions& opts) {
  const bool negative = scan.min_w < 0;
  if (std::optional<std::string> named = resolve_without_model(opts, [&] { return negative; })) return *named;
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
