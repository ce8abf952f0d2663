#include <functional>
#include <string>

#include "apsp/cpu.hpp"
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/registry.hpp"
#include "apsp/solver.hpp"
#include "core/algorithm_checks.hpp"
#include "core/progress.hpp"

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
    if (named == nullptr) throw_unknown_algorithm(opts.algorithm, Backend::automatic);
    return named->backend;
  }
  // int64 is a CPU mode: asking for it keeps the CPU at any size.
  if (opts.precision == Precision::int64) return Backend::cpu;
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
  if (opts.backend != Backend::automatic || opts.algorithm != "auto") return false;
  try {
    require_options_honoured("auto", Backend::cpu, opts);
  } catch (const UsageError&) {
    return false;
  }
  return !fits_int32_arithmetic(normalized, weight_stats(normalized));
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

}  // namespace

SolveResult solve(const Graph& g, const SolveOptions& opts) {
  const Graph normalized = normalize(g);
  SolveResult out;
  out.n = normalized.n;
  out.backend = resolve_backend(normalized, opts);
  require_options_honoured(opts.algorithm, out.backend, opts);
  if (out.backend == Backend::cuda && opts.precision == Precision::int64)
    throw UsageError("int64 is a CPU mode; the GPU computes in int32 or int16", "precision");
  ProgressMeter meter(opts.progress);
  if (out.backend == Backend::cpu) {
    cpu::solve(normalized, reporting_into(opts, meter.whole()), out);
  } else if (!cpu_may_take_over(normalized, opts)) {
    cuda::solve(normalized, reporting_into(opts, meter.whole()), out);
  } else {
    try {
      cuda::solve(normalized, reporting_into(opts, meter.whole().part(0, kGpuAttemptShare)), out);
    } catch (const ArithmeticRangeError& refusal) {
      out = SolveResult{};
      cpu::solve(normalized, reporting_into(opts, meter.whole().rest()), out);
      out.note = std::string(refusal.what()) + "; solved on the CPU in int64 instead";
    }
  }
  meter.finish();
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
    case Precision::int64: return "int64";
  }
  return "?";
}

Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::automatic;
  if (s == "cpu") return Backend::cpu;
  if (s == "cuda" || s == "gpu") return Backend::cuda;
  throw UsageError("unknown backend '" + s + "' (expected auto, cpu or cuda)", "backend");
}

Precision parse_precision(const std::string& s) {
  if (s == "auto") return Precision::automatic;
  if (s == "int32") return Precision::int32;
  if (s == "int16") return Precision::int16;
  if (s == "int64") return Precision::int64;
  throw UsageError("unknown precision '" + s + "' (expected auto, int16, int32 or int64)", "precision");
}

}  // namespace apsp
