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
#include "core/graph_probe.hpp"
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
// kSupernodalMinVertices vertices whose breadth-first hop depth is at least
// kPlanarDepthPerLog2 * log2(n). Grids and geometric graphs measure 5.3-32
// times log2(n) at n = 1024-65536, R-MAT, scale-free and uniform random
// graphs (expanders, separators of order n) at most 2.
constexpr double kSupernodalPerSolveOp = 0.072;
constexpr double kSupernodalPerPair = 2.1;
constexpr double kSupernodalPerFactorOp = 0.32;
constexpr double kPlanarDepthPerLog2 = 3;
constexpr std::int64_t kSupernodalMinVertices = 1024;
// The probe is O(n + m) and the analysis about O(nnz(L)): neither is run on
// graphs with fewer edges than vertices (isolated vertices: the searches are
// trivial) or beyond 2^24 vertices (a 1 PiB int32 result; such a solve is
// refused for memory or disk, and the probe must not come first).
constexpr std::int64_t kSupernodalMaxVertices = std::int64_t{1} << 24;

const detail::CpuAlgorithm& find(const std::string& name) {
  for (const detail::CpuAlgorithm& a : detail::cpu_algorithm_table())
    if (name == a.info.name) return a;
  throw_unknown_algorithm(name, Backend::cpu, detail::cpu_algorithm_infos());
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
  const double log_n = std::log2(static_cast<double>(n));
  char line[300];
  if (static_cast<double>(depth) < kPlanarDepthPerLog2 * log_n) {
    std::snprintf(line, sizeof line, "; supernodal not tried: hop depth %lld < %.0f log2 n, separators are large",
                  static_cast<long long>(depth), kPlanarDepthPerLog2);
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
                pays ? "auto picked supernodal:" : ";", estimate, std::min(costs.search, costs.fw), choice.algorithm.c_str(),
                static_cast<long long>(depth), static_cast<long long>(sym.top_separator),
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
  std::snprintf(line, sizeof line, "auto picked %s: model %.3g ns per pair for %s against %.3g for fw-blocked (m/n = %.1f)",
                choose_by_model(n, m, negative).c_str(), c.search, search.c_str(), c.fw, c.degree);
  return line;
}

template <class W>
std::string choice_reason_typed(const BasicGraph<W>& normalized, const BasicWeightStats<W>& s) {
  return choose_with_reason(normalized, s).why;
}

// With `why`, the reason for an "auto" choice is stored there (one model
// evaluation, one symbolic analysis at most).
template <class W>
std::string resolve_typed(const BasicGraph<W>& normalized, const SolveOptions& opts, std::string* why = nullptr) {
  require_thread_count(opts.threads);
  if (opts.algorithm != "auto") return find(opts.algorithm).info.name;
  // Rows of some sources only: one search per source, whatever the density.
  if (!opts.sources.empty()) return weight_stats(normalized).has_negative() ? "johnson" : "dijkstra";
  CpuChoice choice = choose_with_reason(normalized, weight_stats(normalized));
  if (why) *why = std::move(choice.why);
  return choice.algorithm;
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
  require_options_honoured(opts.algorithm, Backend::cpu, opts, detail::cpu_algorithm_infos());
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
  require_options_honoured(opts.algorithm, Backend::cpu, opts, detail::cpu_algorithm_infos());
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
  require_thread_count(opts.threads);
  if (opts.algorithm != "auto") return find(opts.algorithm).info.name;
  const bool negative = scan.min_w < 0;
  if (!opts.sources.empty()) return negative ? "johnson" : "dijkstra";
  return choose_by_model(n, scan.m, negative);
}

bool reads_dense(const std::string& algorithm, const SolveOptions& opts) {
  const AlgorithmInfo* info = find_algorithm_in(detail::cpu_algorithm_infos(), algorithm);
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
  // {name, backend, work, role, predecessors, int16, block, real, available}, run for int32, float32, float64
  static const std::vector<CpuAlgorithm> table = {
      {{"fw-seq", Backend::cpu, Work::cubic, Role::teaching, true, false, false, true, true}, fw_seq, fw_seq, fw_seq},
      {{"fw-blocked", Backend::cpu, Work::cubic, Role::production, true, false, false, true, true},
       fw_blocked, fw_blocked, fw_blocked},
      {{"dijkstra", Backend::cpu, Work::per_source, Role::production, true, false, false, true, true},
       dijkstra, dijkstra, dijkstra},
      {{"bellman-ford", Backend::cpu, Work::per_source, Role::teaching, true, false, false, true, true},
       bellman_ford, bellman_ford, bellman_ford},
      {{"johnson", Backend::cpu, Work::per_source, Role::production, true, false, false, true, true},
       johnson, johnson, johnson},
      {{"supernodal", Backend::cpu, Work::separators, Role::production, true, false, false, true,
        supernodal::ordering_available()},
       supernodal, supernodal, supernodal},
  };
  return table;
}

const std::vector<AlgorithmInfo>& cpu_algorithm_infos() {
  static const std::vector<AlgorithmInfo> infos = [] {
    std::vector<AlgorithmInfo> list;
    for (const CpuAlgorithm& a : cpu_algorithm_table()) list.push_back(a.info);
    return list;
  }();
  return infos;
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
