#include "apsp/cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <new>
#include <string>
#include <type_traits>

#include "apsp/error.hpp"
#include "core/algorithm_checks.hpp"
#include "core/resources.hpp"
#include "cpu/backend.hpp"
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

const detail::CpuAlgorithm& find(const std::string& name) {
  for (const detail::CpuAlgorithm& a : detail::cpu_algorithm_table())
    if (name == a.info.name) return a;
  throw_unknown_algorithm(name, Backend::cpu);
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
  c.search = (kSearchBase + kSearchPerDoubling * std::log2(std::max(1.0, c.degree))) * (negative ? kJohnsonFactor : 1.0);
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

template <class W>
std::string resolve_typed(const BasicGraph<W>& normalized, const SolveOptions& opts) {
  if (opts.threads < 0) throw UsageError("must be >= 0, got " + std::to_string(opts.threads), "threads");
  if (opts.algorithm != "auto") return find(opts.algorithm).info.name;
  // Rows of some sources only: one search per source, whatever the density.
  if (!opts.sources.empty()) return weight_stats(normalized).has_negative() ? "johnson" : "dijkstra";
  return choose_typed(normalized, weight_stats(normalized));
}

// Runs `algorithm` (resolved, honouring opts) on `graph`, or on `dense`
// when it is set (graph then has its n and no edges; BasicJob::dense).
template <class W>
void run_job(const detail::CpuAlgorithm& algorithm, const BasicGraph<W>& graph, const DenseView* dense,
             const BasicWeightStats<W>& stats, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  if (std::is_floating_point<W>::value && (opts.precision == Precision::int16 || opts.precision == Precision::int64))
    throw UsageError(std::string(to_string(opts.precision)) + " is an integer mode; " +
                         to_string(weight_type_of<W>) + " weights compute in " + to_string(weight_type_of<W>),
                     "precision");
  bool int32_arithmetic = false;
  if constexpr (std::is_integral<W>::value)
    int32_arithmetic = opts.precision != Precision::int64 && fits_int32_arithmetic(graph, stats);
  const detail::BasicJob<W> job{graph,
                                stats,
                                int32_arithmetic,
                                opts.predecessors,
                                opts.threads > 0 ? opts.threads : omp_get_max_threads(),
                                opts.progress,
                                opts.sources,
                                sink,
                                out.times,
                                out.precision,
                                dense};
  out.n = graph.n;
  out.weights = weight_type_of<W>;
  try {
    algorithm(job);
  } catch (const std::bad_alloc&) {  // the n x n matrices report their own size first
    throw ResourceError(std::string("out of memory running ") + algorithm.info.name + " on " +
                        std::to_string(graph.n) + " vertices");
  }
  out.algorithm = algorithm.info.name;
  out.backend = Backend::cpu;
}

template <class W>
void solve_typed(const BasicGraph<W>& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  check_normalized(normalized);
  require_options_honoured(opts.algorithm, Backend::cpu, opts);
  run_job(find(resolve_typed(normalized, opts)), normalized, nullptr, weight_stats(normalized), opts, sink, out);
}

// The view's weight range as the job's stats (W: the scan's weight type).
template <class W>
BasicWeightStats<W> stats_of(const DenseScan& s) {
  BasicWeightStats<W> stats;
  stats.min_w = static_cast<W>(s.min_w);
  stats.max_w = static_cast<W>(s.max_w);
  stats.max_abs = static_cast<typename BasicWeightStats<W>::magnitude_type>(s.max_abs);
  return stats;
}

template <class W>
void solve_dense_typed(const DenseView& view, const DenseScan& scan, const SolveOptions& opts, Sink& sink,
                       SolveSummary& out) {
  require_options_honoured(opts.algorithm, Backend::cpu, opts);
  const detail::CpuAlgorithm& algorithm = find(resolve_algorithm(view.n, scan, opts));
  if (!reads_dense(algorithm.info.name, opts))
    throw UsageError(std::string(algorithm.info.name) + " reads an edge list, not a dense view (use dense_to_graph)",
                     "algorithm");
  BasicGraph<W> shape;
  shape.n = view.n;
  run_job(algorithm, shape, &view, stats_of<W>(scan), opts, sink, out);
}

}  // namespace

std::vector<std::string> algorithms() {
  std::vector<std::string> names;
  for (const detail::CpuAlgorithm& a : detail::cpu_algorithm_table()) names.emplace_back(a.info.name);
  return names;
}

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
std::string resolve_algorithm(const GraphF32& normalized, const SolveOptions& opts) {
  return resolve_typed(normalized, opts);
}
std::string resolve_algorithm(const GraphF64& normalized, const SolveOptions& opts) {
  return resolve_typed(normalized, opts);
}

std::string choose_algorithm(std::int64_t n, std::int64_t m, bool negative) { return choose_by_model(n, m, negative); }
std::string choice_reason(std::int64_t n, std::int64_t m, bool negative) { return reason_by_model(n, m, negative); }

std::string resolve_algorithm(std::int64_t n, const DenseScan& scan, const SolveOptions& opts) {
  if (opts.threads < 0) throw UsageError("must be >= 0, got " + std::to_string(opts.threads), "threads");
  if (opts.algorithm != "auto") return find(opts.algorithm).info.name;
  const bool negative = scan.min_w < 0;
  if (!opts.sources.empty()) return negative ? "johnson" : "dijkstra";
  return choose_by_model(n, scan.m, negative);
}

bool reads_dense(const std::string& algorithm, const SolveOptions& opts) {
  const AlgorithmInfo* info = find_algorithm(algorithm);
  return info != nullptr && info->backend == Backend::cpu && info->work == Work::cubic && !opts.predecessors &&
         opts.sources.empty();
}

void solve(const DenseView& view, const DenseScan& scan, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  if (scan.weights == WeightType::float64)
    solve_dense_typed<double>(view, scan, opts, sink, out);
  else
    solve_dense_typed<weight_t>(view, scan, opts, sink, out);
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

namespace detail {

const std::vector<CpuAlgorithm>& cpu_algorithm_table() {
  // {name, backend, work, role, predecessors, int16, block, available}, run for int32, float32, float64
  static const std::vector<CpuAlgorithm> table = {
      {{"fw-seq", Backend::cpu, Work::cubic, Role::teaching, true, false, false, true}, fw_seq, fw_seq, fw_seq},
      {{"fw-blocked", Backend::cpu, Work::cubic, Role::production, true, false, false, true},
       fw_blocked, fw_blocked, fw_blocked},
      {{"dijkstra", Backend::cpu, Work::per_source, Role::production, true, false, false, true},
       dijkstra, dijkstra, dijkstra},
      {{"bellman-ford", Backend::cpu, Work::per_source, Role::teaching, true, false, false, true},
       bellman_ford, bellman_ford, bellman_ford},
      {{"johnson", Backend::cpu, Work::per_source, Role::production, true, false, false, true},
       johnson, johnson, johnson},
      {{"supernodal", Backend::cpu, Work::separators, Role::production, true, false, false,
        supernodal::ordering_available()},
       supernodal, supernodal, supernodal},
  };
  return table;
}

dist_t to_output(std::int64_t value, std::int64_t from, std::int64_t to) {
  if (value >= kInf || value <= -kInf)
    throw OverflowError("distance from " + std::to_string(from) + " to " + std::to_string(to) + " is " +
                        std::to_string(value) + ", outside the int32 output range (|d| < " +
                        std::to_string(kInf) + ")");
  return static_cast<dist_t>(value);
}

void throw_out_of_memory(const char* what, std::int64_t bytes) {
  throw ResourceError(std::string("cannot allocate ") + what + " (" + std::to_string(bytes) + " bytes)");
}

std::size_t matrix_bytes(std::int64_t n, std::size_t cell_bytes, const char* what) {
  const auto cells = static_cast<unsigned __int128>(n) * static_cast<unsigned __int128>(n);
  const unsigned __int128 bytes = cells * cell_bytes;
  if (bytes > std::numeric_limits<std::size_t>::max() / 2)
    throw_out_of_memory(what, bytes > std::numeric_limits<std::int64_t>::max()
                                  ? std::numeric_limits<std::int64_t>::max()
                                  : static_cast<std::int64_t>(bytes));
  resources::require_memory(static_cast<std::uint64_t>(bytes),
                            std::string(what) + " (" + std::to_string(n) + " x " + std::to_string(n) + ")");
  return static_cast<std::size_t>(bytes);
}

}  // namespace detail
}  // namespace apsp::cpu
