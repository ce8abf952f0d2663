// CUDA backend, host-safe declarations. Compiles without nvcc; when the
// project is built without CUDA these throw ResourceError / report no devices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/sink.hpp"
#include "apsp/solver.hpp"

namespace apsp::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int sm_major = 0;
  int sm_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0;
};

bool compiled_in();
// The devices this process sees, enumerated once, from their properties:
// creates no context on any of them. Empty without CUDA or without a GPU
// (never throws for "no device").
const std::vector<DeviceInfo>& devices();

// Creates `device`'s primary context now (cudaSetDevice, then a no-op
// cudaFree, on the calling thread), so that the time it takes can overlap
// other startup work: the distributed CLI creates it on a helper thread
// while MPI starts. Later calls on any thread reuse the context. UsageError
// (option "device") for a device that does not exist, DeviceError when the
// context cannot be created; nothing without CUDA.
void create_context(int device);

// Kernel names selectable with Backend::cuda (without "auto"); their traits
// are in the registry (apsp/registry.hpp).
std::vector<std::string> algorithms();

// Why in-core fw cannot hold an n-vertex matrix on device opts.device within
// opts.memory_budget (0 = its free memory), e.g. "the 40000-vertex matrix
// needs 6.10 GiB (...) of device memory, 4.00 GiB (...) allowed (memory
// budget)"; empty when it fits (and always without CUDA). "auto" then runs
// fw-ooc.
std::string fw_device_shortfall(std::int64_t n, const SolveOptions& opts);

// Runs a named GPU algorithm ("auto" = the production solver "fw").
// `g` must be normalized; `sink` has begun with this solve's layout. Streams
// every row into the sink (its commit is the caller's), and fills algorithm,
// precision, verified and the stages.
void solve(const Graph& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);
// Real weights: "fw" ("auto" too: the cost model's choice between fw and
// sssp is apsp::solve's) and "sssp" with its ladder ("sssp-frontier",
// "sssp-nearfar") in float32 or float64; other GPU algorithms take int32
// weights only (UsageError, option "algorithm").
void solve(const GraphF32& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);
void solve(const GraphF64& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out);

}  // namespace apsp::cuda
