#include "apsp/cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <new>
#include <string>
#include <type_traits>

#include "apsp/error.hpp"
#include "core/algorithm_checks.hpp"
#include "core/resources.hpp"
#include "cpu/backend.hpp"
#include "cpu/run.hpp"
#include "supernodal/symbolic.hpp"

namespace apsp::cpu {
namespace {

const detail::CpuAlgorithm& find(const std::string& name) {
  for (const detail::CpuAlgorithm& a : detail::cpu_algorithm_table())
    if (name == a.info.name) return a;
  throw_unknown_algorithm(name, Backend::cpu, detail::cpu_algorithm_infos());
}

// Runs `algorithm` (resolved, honouring opts) on `graph`, or on `dense`
// when it is set (graph then has its n and no edges; BasicJob::dense).
template <class W>
void run_job(const detail::CpuAlgorithm& algorithm, const BasicGraph<W>& graph, const DenseView* dense,
             const BasicWeightStats<W>& stats, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  if (opts.row_split != nullptr && algorithm.info.work != Work::per_source && algorithm.info.work != Work::separators)
    throw UsageError(std::string(algorithm.info.name) + " computes the whole matrix at once; a row split is for the "
                                                        "per-source algorithms and supernodal",
                     "algorithm");
  if (std::is_floating_point<W>::value && (opts.precision == Precision::int16 || opts.precision == Precision::int64))
    throw UsageError(std::string(to_string(opts.precision)) + " is an integer mode; " + to_string(weight_type_of<W>) +
                         " weights compute in " + to_string(weight_type_of<W>),
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
                                dense,
                                opts.row_split,
                                opts.cutoff};
  out.n = graph.n;
  out.weights = weight_type_of<W>;
  try {
    algorithm(job);
  } catch (const std::bad_alloc&) {  // the n x n matrices report their own size first
    throw ResourceError(std::string("out of memory running ") + algorithm.info.name + " on " + std::to_string(graph.n) +
                        " vertices");
  }
  out.algorithm = algorithm.info.name;
  out.backend = Backend::cpu;
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
void run_dense_typed(const DenseView& view, const DenseScan& scan, const SolveOptions& opts, Sink& sink,
                     SolveSummary& out) {
  const detail::CpuAlgorithm& algorithm = find(opts.algorithm);
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

bool reads_dense(const std::string& algorithm, const SolveOptions& opts) {
  const AlgorithmInfo* info = find_algorithm_in(detail::cpu_algorithm_infos(), algorithm);
  return info != nullptr && info->backend == Backend::cpu && info->work == Work::cubic && !opts.predecessors &&
         opts.sources.empty();
}

namespace detail {

template <class W>
void run_named(const BasicGraph<W>& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  run_job(find(opts.algorithm), normalized, nullptr, weight_stats(normalized), opts, sink, out);
}
template void run_named(const Graph&, const SolveOptions&, Sink&, SolveSummary&);
template void run_named(const GraphF32&, const SolveOptions&, Sink&, SolveSummary&);
template void run_named(const GraphF64&, const SolveOptions&, Sink&, SolveSummary&);

void run_named(const DenseView& view, const DenseScan& scan, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  if (scan.weights == WeightType::float64)
    run_dense_typed<double>(view, scan, opts, sink, out);
  else
    run_dense_typed<weight_t>(view, scan, opts, sink, out);
}

const std::vector<CpuAlgorithm>& cpu_algorithm_table() {
  // {name, backend, work, role, predecessors, int16, block, real, distributable, available[, int64_labels]},
  // run for int32, float32, float64
  static const std::vector<CpuAlgorithm> table = {
      {{"fw-seq", Backend::cpu, Work::cubic, Role::teaching, true, false, false, true, false, true},
       fw_seq,
       fw_seq,
       fw_seq},
      {{"fw-blocked", Backend::cpu, Work::cubic, Role::production, true, false, false, true, true, true},
       fw_blocked,
       fw_blocked,
       fw_blocked},
      {{"fw-ooc", Backend::cpu, Work::cubic, Role::teaching, true, false, false, true, false, true},
       fw_out_of_core,
       fw_out_of_core,
       fw_out_of_core},
      {{"dijkstra", Backend::cpu, Work::per_source, Role::production, true, false, false, true, false, true},
       dijkstra,
       dijkstra,
       dijkstra},
      {{"bellman-ford", Backend::cpu, Work::per_source, Role::teaching, true, false, false, true, false, true, true},
       bellman_ford,
       bellman_ford,
       bellman_ford},
      {{"johnson", Backend::cpu, Work::per_source, Role::production, true, false, false, true, false, true, true},
       johnson,
       johnson,
       johnson},
      {{"supernodal", Backend::cpu, Work::separators, Role::production, true, false, false, true, false,
        supernodal::ordering_available()},
       supernodal,
       supernodal,
       supernodal},
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
                        std::to_string(value) + ", outside the int32 output range (|d| < " + std::to_string(kInf) +
                        ")");
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
