#include <limits>
#include <utility>

#include "apsp/cpu.hpp"
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "core/stages.hpp"

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
    for (const auto& name : cpu::algorithms())
      if (name == opts.algorithm) return Backend::cpu;
    for (const auto& name : cuda::algorithms())
      if (name == opts.algorithm) return Backend::cuda;
    throw UsageError("unknown algorithm '" + opts.algorithm + "'");
  }
  // int16 is a mode of the GPU solver: asking for it picks the GPU at any size.
  if ((g.n >= kGpuMinVertices || opts.precision == Precision::int16) && !cuda::devices().empty()) return Backend::cuda;
  return Backend::cpu;
}

// True when g is already what normalize() returns: edges strictly sorted by
// (src, dst) (so no duplicates), inside 0..n-1, and no self-loops (a negative
// one is left for normalize to report). O(m) against normalize's sort.
bool is_normalized(const Graph& g) {
  if (g.n < 0 || g.n > std::numeric_limits<vertex_t>::max()) return false;
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const Edge& x = g.edges[e];
    if (x.src < 0 || x.src >= g.n || x.dst < 0 || x.dst >= g.n || x.src == x.dst) return false;
    if (e > 0) {
      const Edge& before = g.edges[e - 1];
      if (before.src > x.src || (before.src == x.src && before.dst >= x.dst)) return false;
    }
  }
  return true;
}

}  // namespace

SolveSummary solve(const Graph& g, const SolveOptions& opts, Sink& sink) {
  SolveSummary out;
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
  if (out.backend == Backend::cuda) {
    if (!cuda::compiled_in()) throw ResourceError("this build of apsp has no CUDA backend");
  } else {
    if (opts.precision == Precision::int16)
      throw UsageError("int16 is a GPU mode; the CPU computes in int32 (int64 where sums could overflow)", "precision");
    if (opts.block.x != 0 || opts.block.y != 0) throw UsageError("the block shape is a GPU kernel option", "block");
    run.algorithm = cpu::resolve_algorithm(normalized, opts);
  }
  try {
    // Options are checked: from here on the sink may hold memory or files.
    sink.begin(SinkLayout{normalized.n, Element::int32, opts.predecessors});
    clock.lap("open output");
    if (out.backend == Backend::cuda) {
      // The GPU backend returns host matrices; the rows go to the sink here
      // (a host-matrix sink takes the matrices whole).
      SolveResult gpu;
      cuda::solve(normalized, run, gpu);
      out.algorithm = gpu.algorithm;
      out.precision = gpu.precision;
      for (Stage& stage : gpu.times.stages) out.times.stages.push_back(std::move(stage));
      clock.restart();
      if (auto* host = dynamic_cast<HostMatrixSink*>(&sink)) {
        host->adopt(std::move(gpu.dist), std::move(gpu.pred));
        clock.lap("store");
      } else {
        put_matrix(sink, Plane::distances, gpu.dist.data(), normalized.n);
        if (opts.predecessors) put_matrix(sink, Plane::predecessors, gpu.pred.data(), normalized.n);
        const auto cells = static_cast<std::uint64_t>(normalized.n) * static_cast<std::uint64_t>(normalized.n);
        clock.lap("store", cells * sizeof(dist_t) * (opts.predecessors ? 2 : 1));
      }
    } else {
      cpu::solve(normalized, run, sink, out);
      clock.restart();
    }
    sink.commit();
    clock.lap("commit");
  } catch (...) {
    sink.discard();
    throw;
  }
  return out;
}

SolveResult solve(const Graph& g, const SolveOptions& opts) {
  HostMatrixSink sink;
  SolveResult result;
  static_cast<SolveSummary&>(result) = solve(g, opts, sink);
  result.dist = std::move(sink.distances());
  result.pred = std::move(sink.predecessors());
  return result;
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

const char* to_string(Backend b) {
  switch (b) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
  }
  return "?";
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::automatic: return "auto";
    case Precision::int32: return "int32";
    case Precision::int16: return "int16";
  }
  return "?";
}

Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::automatic;
  if (s == "cpu") return Backend::cpu;
  if (s == "cuda" || s == "gpu") return Backend::cuda;
  throw UsageError("unknown backend '" + s + "' (expected auto, cpu or cuda)");
}

Precision parse_precision(const std::string& s) {
  if (s == "auto") return Precision::automatic;
  if (s == "int32") return Precision::int32;
  if (s == "int16") return Precision::int16;
  throw UsageError("unknown precision '" + s + "' (expected auto, int32 or int16)");
}

}  // namespace apsp
