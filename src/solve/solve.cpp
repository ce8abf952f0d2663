#include <cmath>
#include <functional>
#include <type_traits>
#include <string>
#include <limits>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "apsp/cpu.hpp"
#include "apsp/cuda.hpp"
#include "apsp/dense.hpp"
#include "apsp/error.hpp"
#include "apsp/registry.hpp"
#include "apsp/solver.hpp"
#include "core/algorithm_checks.hpp"
#include "solve/auto_choice.hpp"
#include "core/dense_cells.hpp"
#include "core/progress.hpp"
#include "apsp/sinks.hpp"
#include "core/stages.hpp"
#include "sink/part.hpp"
#include "sink/resume.hpp"
#include "supernodal/symbolic.hpp"

namespace apsp {
namespace {

// Below this many vertices the whole solve, copies included, is faster on
// the CPU: measured on the H100 machine (16 cores) with apsp_bench_gpu_bench
// crossover, docs/perf.md. The GPU won from n = 1536 on R-MAT and dense graphs.
constexpr std::int64_t kGpuMinVertices = 1536;

Backend resolve_backend(const Graph& g, const SolveOptions& opts) {
  if (opts.backend != Backend::automatic) return opts.backend;
  if (opts.algorithm != "auto") {
    // An explicit algorithm name picks the backend that has it.
    const AlgorithmInfo* named = find_algorithm(opts.algorithm);
    if (named == nullptr) throw_unknown_algorithm(opts.algorithm, Backend::automatic, algorithm_registry());
    return named->backend;
  }
  // int64 is a CPU mode: asking for it keeps the CPU at any size.
  if (opts.precision == Precision::int64) return Backend::cpu;
  // Rows of some sources only: the per-source CPU algorithms compute them.
  if (!opts.sources.empty()) return Backend::cpu;
  // int16 is a mode of the GPU solver: asking for it picks the GPU at any size.
  if ((g.n >= kGpuMinVertices || opts.precision == Precision::int16) && !cuda::devices().empty()) return Backend::cuda;
  return Backend::cpu;
}

// Under Backend::automatic, a GPU whose int32 arithmetic cannot hold the
// graph's (Johnson-reweighted) distances hands the graph to the CPU, which
// computes in int64: only when the choice was left to auto, the CPU honours
// every option, and the weights allow distances that large at all
// ((n - 1) * max|w| >= kInf / 2; below that the GPU cannot refuse).
bool cpu_may_take_over(const Graph& normalized, const SolveOptions& opts) {
  // Under verify the GPU checks the result before its rows reach the sink;
  // a CPU takeover could not, so a GPU refusal stands.
  if (opts.backend != Backend::automatic || opts.algorithm != "auto" || opts.verify) return false;
  try {
    require_options_honoured("auto", Backend::cpu, opts, algorithm_registry());
  } catch (const UsageError&) {
    return false;
  }
  return !fits_int32_arithmetic(normalized, weight_stats(normalized));
}

// auto's probe on the GPU: the cost model, given the symbolic analysis to run
// when supernodal might pay (solve/auto_choice.hpp). The analysis is kept by
// the caller's supernodal::AnalysisReuse for the supernodal solver.
template <class W>
choice::GpuChoice choose_on_gpu(const BasicGraph<W>& normalized, const SolveOptions& opts) {
  const AlgorithmInfo* supernodal_gpu = find_algorithm("supernodal", Backend::cuda);
  choice::AnalyseSeparators analyse;
  if (supernodal_gpu != nullptr && supernodal_gpu->available)
    analyse = [&normalized] {
      const supernodal::Symbolic s = supernodal::analyse(to_csr(normalized));
      return choice::SeparatorFigures{s.factor_ops, s.solve_ops_per_source, s.top_separator};
    };
  return choice::choose_gpu_algorithm(core::probe_graph(normalized), opts, analyse);
}

// The part of the progress bar a GPU attempt covers when the CPU may take
// over: the CPU, if it must, reports into the rest, so the bar never goes
// back; a GPU that succeeds jumps to the end.
constexpr double kGpuAttemptShare = 0.5;

// SolveOptions whose progress reports into `span`.
SolveOptions reporting_into(const SolveOptions& opts, ProgressSpan span) {
  SolveOptions staged = opts;
  staged.progress = span ? std::function<void(double)>([span](double f) { span.report(f); }) : nullptr;
  return staged;
}

// SinkLayout::rows of a solve: one per source of opts.sources, or -1 (n).
std::int64_t rows_of(const SolveOptions& opts) {
  return opts.sources.empty() ? -1 : static_cast<std::int64_t>(opts.sources.size());
}

// SinkLayout::columns of a solve: one per target the backend gathers
// (SolveOptions::targets, set by sink::PartRoute for the GPU row solvers), or -1 (n).
std::int64_t columns_of(const SolveOptions& opts) {
  return opts.targets.empty() ? -1 : static_cast<std::int64_t>(opts.targets.size());
}

// Whether `algorithm` on `backend` computes the rows of SolveOptions::sources itself.
bool computes_chosen(const std::string& algorithm, Backend backend) {
  return computes_chosen_rows(algorithm, backend, algorithm_registry());
}

// Whether `algorithm` is one of the GPU's row solvers (sssp and its ladder,
// supernodal): they compute rows 0..k-1 of a graph and no other part.
bool gpu_row_solver(const std::string& algorithm, Backend backend) {
  const AlgorithmInfo* a = find_algorithm(algorithm, Backend::cuda);
  return backend == Backend::cuda && a != nullptr && (a->work == Work::per_source || a->work == Work::separators);
}

// The sink's side of every solve: begin() with `layout` once the options are
// checked, compute(into, run) (`into`: the sink, or what forwards the rows an
// interrupted run did not leave to it; `run`: the options, sources narrowed
// to those rows where `narrow_sources`), then commit(); on any failure,
// begin() included, discard() and rethrow. `key()` is the solve's
// resume::solve_key, asked only by a sink that keeps partial rows.
template <class Key, class Compute>
void run_into_sink(Sink& sink, SinkLayout layout, const SolveOptions& run, bool narrow_sources, Key key,
                   SolveSummary& out, StageClock& clock, ProgressMeter& meter, Compute compute,
                   bool row_range = false) {
  try {
    if (sink.keeps_partial()) layout.solve_key = key();
    // Options are checked: from here on the sink may hold memory or files.
    sink.begin(layout);
    clock.lap("open output");
    resume::RowsLeft left = resume::rows_left(sink, layout, run, narrow_sources, row_range);
    if (!left.note.empty()) out.note = out.note.empty() ? left.note : out.note + "; " + left.note;
    if (!left.nothing_left) compute(left.into ? *left.into : sink, left.run);
    if (left.rows_computed >= 0) {
      const std::string rows = "resumed: rows " + std::to_string(left.split->first()) + ".." +
                               std::to_string(left.split->end() - 1) + " in " + std::to_string(left.ranges) +
                               (left.ranges == 1 ? " range" : " ranges") + " computed (" +
                               std::to_string(left.rows_computed) + " of " + std::to_string(layout.row_count()) + ")";
      out.note = out.note.empty() ? rows : out.note + "; " + rows;
    }
    if (RoundCheckpoints* rounds = sink.round_checkpoints(); rounds != nullptr && !rounds->note().empty())
      out.note = out.note.empty() ? rounds->note() : out.note + "; " + rounds->note();
    clock.restart();
    meter.finish();
    sink.commit();
    clock.lap("commit");
  } catch (...) {
    sink.discard();
    throw;
  }
  meter.finish();
}

// Whether `algorithm` on `backend` computes the rows of chosen sources only
// (SolveOptions::sources), so that a resumed solve computes only its rows left.
bool narrows_sources(const std::string& algorithm, Backend backend) {
  const AlgorithmInfo* info = find_algorithm(algorithm);
  return backend == Backend::cpu && info != nullptr && info->backend == Backend::cpu && takes_sources(*info);
}

// Real weights: an explicit backend or a named algorithm's backend; under
// auto the GPU (fw or sssp in float32 / float64) from the same size as int32 graphs,
// when a device is present and no integer mode is asked for.
template <class W>
Backend resolve_backend_real(const BasicGraph<W>& g, const SolveOptions& opts) {
  if (opts.backend != Backend::automatic) return opts.backend;
  if (opts.algorithm != "auto") {
    const AlgorithmInfo* named = find_algorithm(opts.algorithm);
    if (named == nullptr) throw_unknown_algorithm(opts.algorithm, Backend::automatic, algorithm_registry());
    return named->backend;
  }
  if (opts.precision != Precision::automatic && opts.precision != Precision::int32) return Backend::cpu;
  if (g.n >= kGpuMinVertices && !cuda::devices().empty()) return Backend::cuda;
  return Backend::cpu;
}

// The one place a real-valued solve meets the GPU backend: every float32 /
// float64 solve on Backend::cuda comes here, after the sink has begun.
template <class W>
void solve_on_cuda_real(const BasicGraph<W>& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  cuda::solve(normalized, opts, sink, out);
}

template <class W>
SolveSummary solve_real(const BasicGraph<W>& g, const SolveOptions& opts, Sink& sink) {
  SolveSummary out;
  out.weights = weight_type_of<W>;
  // One symbolic analysis per solve: auto's probe and the supernodal solver share it.
  const supernodal::AnalysisReuse reuse;
  StageClock clock(out.times);
  BasicGraph<W> copy;
  const bool ready = is_normalized(g);
  if (!ready) copy = normalize(g);
  const BasicGraph<W>& normalized = ready ? g : copy;
  clock.lap(ready ? "check graph" : "normalize");
  out.n = normalized.n;
  out.backend = resolve_backend_real(normalized, opts);
  SolveOptions run = opts;
  if (out.backend == Backend::cuda && opts.algorithm == "auto") {
    // "auto" on the GPU: fw or sssp by the cost model for this weight type
    // (solve/auto_choice.hpp), as for int32 graphs; the GPU backend then
    // refuses integer precision modes for real weights.
    const choice::GpuChoice choice = choose_on_gpu(normalized, opts);
    run.algorithm = choice.algorithm;
    out.note = choice.why;
    clock.lap("auto probe");
  }
  require_options_honoured(run.algorithm, out.backend, run, algorithm_registry());
  if (out.backend == Backend::cpu) {
    run.algorithm = cpu::resolve_algorithm(normalized, opts);
    // The CPU's pick is noted as for int32 graphs (issue 20, defect 16).
    if (opts.algorithm == "auto")
      out.note = cpu::choice_reason(normalized.n, static_cast<std::int64_t>(normalized.edges.size()),
                                    weight_stats(normalized).has_negative());
  }
  sink::PartRoute<BasicGraph<W>> route(run, normalized, gpu_row_solver(run.algorithm, out.backend),
                                       computes_chosen(run.algorithm, out.backend), sink);
  if (&route.graph() != &normalized) clock.lap("renumber sources");
  if (out.backend == Backend::cpu)
    require_sources_honoured(run.algorithm, out.backend, normalized.n, run, algorithm_registry());
  ProgressMeter meter(opts.progress);
  const SinkLayout layout{normalized.n, weight_type_of<W> == WeightType::float32 ? Element::float32 : Element::float64,
                          opts.predecessors, rows_of(run), columns_of(run)};
  const auto key = [&] { return resume::solve_key(normalized, run.algorithm, out.backend, run); };
  run_into_sink(
      route.sink(), layout, run, narrows_sources(run.algorithm, out.backend), key, out, clock, meter,
      [&](Sink& into, const SolveOptions& left) {
        if (out.backend == Backend::cpu)
          cpu::solve(route.graph(), reporting_into(left, meter.whole()), into, out);
        else
          solve_on_cuda_real(route.graph(), reporting_into(left, meter.whole()), into, out);
      },
      gpu_row_solver(run.algorithm, out.backend));
  return out;
}

// A solve into host memory: the matrices of a HostMatrixSink moved out.
template <class D, class G, class Distances>
BasicSolveResult<D> solve_into_host(const G& g, const SolveOptions& opts, Distances distances) {
  HostMatrixSink sink;
  BasicSolveResult<D> result;
  static_cast<SolveSummary&>(result) = solve(g, opts, sink);
  result.dist = std::move(distances(sink));
  result.pred = std::move(sink.predecessors());
  return result;
}

}  // namespace

SolveSummary solve(const GraphF32& g, const SolveOptions& opts, Sink& sink) { return solve_real(g, opts, sink); }
SolveSummary solve(const GraphF64& g, const SolveOptions& opts, Sink& sink) { return solve_real(g, opts, sink); }

SolveResultF32 solve(const GraphF32& g, const SolveOptions& opts) {
  return solve_into_host<float>(g, opts, [](HostMatrixSink& s) -> HostVector<float>& { return s.distances_f32(); });
}
SolveResultF64 solve(const GraphF64& g, const SolveOptions& opts) {
  return solve_into_host<double>(g, opts, [](HostMatrixSink& s) -> HostVector<double>& { return s.distances_f64(); });
}

Backend choose_backend(const GraphF32& g, const SolveOptions& opts) { return resolve_backend_real(g, opts); }
Backend choose_backend(const GraphF64& g, const SolveOptions& opts) { return resolve_backend_real(g, opts); }

SolveSummary solve(const Graph& g, const SolveOptions& opts, Sink& sink) {
  SolveSummary out;
  // One symbolic analysis per solve: auto's probe and the supernodal solver share it.
  const supernodal::AnalysisReuse reuse;
  StageClock clock(out.times);
  // A graph that is normalized already (the CLI's) is only checked, not copied.
  Graph copy;
  const bool ready = is_normalized(g);
  if (!ready) copy = normalize(g);
  const Graph& normalized = ready ? g : copy;
  clock.lap(ready ? "check graph" : "normalize");
  out.n = normalized.n;
  out.backend = resolve_backend(normalized, opts);
  SolveOptions run = opts;
  if (out.backend == Backend::cuda && opts.algorithm == "auto") {
    // "auto" on the GPU: fw or sssp by the cost model (solve/auto_choice.hpp),
    // resolved before the option checks so they name the method that runs;
    // fw becomes fw-ooc only when its matrix does not fit the device.
    choice::GpuChoice choice = choose_on_gpu(normalized, opts);
    if (choice.algorithm == "fw")
      choice::prefer_out_of_core(choice, cuda::fw_device_shortfall(normalized.n, opts), WeightType::int32);
    run.algorithm = choice.algorithm;
    out.note = choice.why;
    clock.lap("auto probe");
  }
  require_options_honoured(run.algorithm, out.backend, run, algorithm_registry());
  if (out.backend == Backend::cuda && opts.precision == Precision::int64)
    throw UsageError("int64 is a CPU mode; the GPU computes in int32 or int16", "precision");
  if (out.backend == Backend::cuda && !cuda::compiled_in())
    throw ResourceError("this build of apsp has no CUDA backend");
  if (out.backend == Backend::cpu) {
    run.algorithm = cpu::resolve_algorithm(normalized, opts, opts.algorithm == "auto" ? &out.note : nullptr);
    if (opts.algorithm == "auto") clock.lap("auto probe");
  }
  sink::PartRoute<Graph> route(run, normalized, gpu_row_solver(run.algorithm, out.backend),
                               computes_chosen(run.algorithm, out.backend), sink);
  // The GPU row solvers' renumbering (sources first), apart from the sink's "open output".
  if (&route.graph() != &normalized) clock.lap("renumber sources");
  if (out.backend == Backend::cpu)
    require_sources_honoured(run.algorithm, out.backend, normalized.n, run, algorithm_registry());
  ProgressMeter meter(opts.progress);
  const Graph& solved = route.graph();
  const auto key = [&] { return resume::solve_key(normalized, run.algorithm, out.backend, run); };
  const SinkLayout layout{normalized.n, Element::int32, opts.predecessors, rows_of(run), columns_of(run)};
  const auto compute = [&](Sink& into, const SolveOptions& left) {
    if (out.backend == Backend::cpu) {
      cpu::solve(solved, reporting_into(left, meter.whole()), into, out);
    } else if (!cpu_may_take_over(normalized, opts)) {
      cuda::solve(solved, reporting_into(left, meter.whole()), into, out);
    } else {
      try {
        cuda::solve(solved, reporting_into(left, meter.whole().part(0, kGpuAttemptShare)), into, out);
      } catch (const ArithmeticRangeError& refusal) {
        // The GPU refuses before its download: no row has reached the sink.
        SolveSummary cpu_out;
        cpu_out.n = normalized.n;
        cpu_out.times = std::move(out.times);
        // The rows the GPU was to compute (every row where the PartSink picks
        // them), cut here to the columns it was to gather.
        SolveOptions on_cpu = run;
        on_cpu.algorithm = cpu::resolve_algorithm(normalized, opts);
        on_cpu.targets.clear();
        std::optional<sink::PartSink> cut;
        if (!run.targets.empty()) {
          cut.emplace(into, std::vector<std::int64_t>{}, run.targets);
          SinkLayout whole = layout;
          whole.columns = -1;
          cut->begin_producer(whole);
        }
        cpu::solve(solved, reporting_into(on_cpu, meter.whole().rest()), cut ? *cut : into, cpu_out);
        out = std::move(cpu_out);
        out.note = std::string(refusal.what()) + "; solved on the CPU in int64 instead";
      }
    }
  };
  run_into_sink(route.sink(), layout, run, narrows_sources(run.algorithm, out.backend), key, out, clock, meter, compute,
                gpu_row_solver(run.algorithm, out.backend));
  return out;
}

Backend choose_backend(const Graph& g, const SolveOptions& opts) { return resolve_backend(g, opts); }

SolveResult solve(const Graph& g, const SolveOptions& opts) {
  return solve_into_host<dist_t>(g, opts, [](HostMatrixSink& s) -> HostVector<dist_t>& { return s.distances(); });
}

Backend choose_backend(const DenseView& v, const SolveOptions& opts) {
  // Only the size matters unless a precision other than auto or int32 is
  // asked for under auto: then the weight type does (an integer mode of a
  // real-valued graph keeps it on the CPU).
  const bool by_size = opts.backend != Backend::automatic || opts.algorithm != "auto" ||
                       opts.precision == Precision::automatic || opts.precision == Precision::int32;
  if (!by_size && scan_dense(v).weights == WeightType::float64) {
    GraphF64 shape;
    shape.n = v.n;
    return resolve_backend_real(shape, opts);
  }
  Graph shape;
  shape.n = v.n;
  return resolve_backend(shape, opts);
}

SolveSummary solve(const DenseView& v, const SolveOptions& opts, Sink& sink) {
  SolveSummary out;
  StageClock clock(out.times);
  // Each row's edge count too: the edge path below builds its list from it
  // in one pass instead of scanning the view again.
  std::vector<std::int64_t> row_edges;
  const DenseScan scan = core::scan_dense_rows(v, row_edges);
  clock.lap("scan dense", static_cast<std::uint64_t>(v.n) * static_cast<std::uint64_t>(v.n) * element_bytes(v.element));
  const bool real = scan.weights == WeightType::float64;
  Graph shape;
  shape.n = v.n;
  out.n = v.n;
  out.weights = scan.weights;
  if (real) {
    GraphF64 real_shape;
    real_shape.n = v.n;
    out.backend = resolve_backend_real(real_shape, opts);
  } else {
    out.backend = resolve_backend(shape, opts);
  }
  const std::string algorithm = out.backend == Backend::cpu ? cpu::resolve_algorithm(v.n, scan, opts) : std::string();
  if (out.backend != Backend::cpu || !cpu::reads_dense(algorithm, opts)) {
    // The edge path: the view becomes a normalized edge list, solved as any graph.
    AnyGraph g = core::dense_edges(v, scan, row_edges);
    clock.lap("dense to edges");
    SolveSummary inner = std::visit([&](const auto& edges) { return solve(edges, opts, sink); }, g);
    for (Stage& stage : inner.times.stages) out.times.stages.push_back(std::move(stage));
    inner.times = std::move(out.times);
    return inner;
  }
  // As solve(Graph) on the CPU: the options checked before the sink begins.
  require_options_honoured(opts.algorithm, Backend::cpu, opts, algorithm_registry());
  if (opts.algorithm == "auto") out.note = cpu::choice_reason(v.n, scan.m, scan.min_w < 0);
  SolveOptions run = opts;
  run.algorithm = algorithm;
  sink::PartRoute<DenseView> route(run, v, false, computes_chosen(run.algorithm, Backend::cpu), sink);
  ProgressMeter meter(opts.progress);
  const SinkLayout layout{v.n, real ? Element::float64 : Element::int32, opts.predecessors, rows_of(run)};
  // The dense CPU algorithms compute every row: a resumed one skips the kept rows' puts only.
  const auto key = [&] { return resume::solve_key(v, run.algorithm, Backend::cpu, run); };
  run_into_sink(route.sink(), layout, run, false, key, out, clock, meter, [&](Sink& into, const SolveOptions& left) {
    cpu::solve(v, scan, reporting_into(left, meter.whole()), into, out);
  });
  return out;
}

std::vector<std::string> list_algorithms(Backend b) {
  switch (b) {
    case Backend::cpu: return cpu::algorithms();
    case Backend::cuda: return cuda::algorithms();
    case Backend::automatic: break;
  }
  auto all = cpu::algorithms();
  for (auto& name : cuda::algorithms()) all.push_back(name);
  return all;
}

}  // namespace apsp
