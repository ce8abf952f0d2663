#include <chrono>

#include "apsp/cpu.hpp"
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/solver.hpp"

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
  // int64 is a CPU mode: asking for it keeps the CPU at any size.
  if (opts.precision == Precision::int64) return Backend::cpu;
  // int16 is a mode of the GPU solver: asking for it picks the GPU at any size.
  if ((g.n >= kGpuMinVertices || opts.precision == Precision::int16) && !cuda::devices().empty()) return Backend::cuda;
  return Backend::cpu;
}

}  // namespace

SolveResult solve(const Graph& g, const SolveOptions& opts) {
  const Graph normalized = normalize(g);
  SolveResult out;
  out.n = normalized.n;
  out.backend = resolve_backend(normalized, opts);
  if (out.backend == Backend::cuda) {
    if (opts.precision == Precision::int64)
      throw UsageError("int64 is a CPU mode; the GPU computes in int32 or int16", "precision");
    if (!cuda::compiled_in()) throw ResourceError("this build of apsp has no CUDA backend");
    cuda::solve(normalized, opts, out);
  } else {
    cpu::solve(normalized, opts, out);
  }
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
  throw UsageError("unknown backend '" + s + "' (expected auto, cpu or cuda)");
}

Precision parse_precision(const std::string& s) {
  if (s == "auto") return Precision::automatic;
  if (s == "int32") return Precision::int32;
  if (s == "int16") return Precision::int16;
  if (s == "int64") return Precision::int64;
  throw UsageError("unknown precision '" + s + "' (expected auto, int16, int32 or int64)", "precision");
}

}  // namespace apsp
