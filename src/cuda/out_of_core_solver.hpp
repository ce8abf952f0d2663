// The GPU's out-of-core dense solve (registry entry fw-ooc on the cuda
// backend): the graph's matrix in host memory, closed by fw_out_of_core
// (fw_out_of_core.hpp) in super-rounds, certified and handed to the sink in
// row blocks. Host-only.
#pragma once

#include <cstdint>
#include <string>

#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"
#include "core/progress.hpp"

namespace apsp::cuda {

// Bytes of device memory in-core fw holds for n vertices: the n_pad x n_pad
// int32 matrix (twice with predecessors), `extra_bytes` of the caller's and
// the 96 MiB of working space DeviceInstance reserves.
std::uint64_t dense_instance_bytes(std::int64_t n_pad, bool predecessors, std::uint64_t extra_bytes = 0);

// Why in-core fw cannot take n vertices on the current device under
// opts.memory_budget (0 = the device's free memory; a budget above the free
// memory counts as the free memory): "the 40000-vertex matrix needs 6.0 GiB
// of device memory, 4.0 GiB allowed (--memory-budget)". Empty when it fits.
std::string dense_shortfall(std::int64_t n, const SolveOptions& opts);

// Solves `normalized` (int32 weights, negative ones reweighted with Johnson
// potentials) out of core into `sink`, which has begun: int32, or int16 when
// opts.precision asks for it (solved again in int32 when the int16 result
// does not certify). With opts.predecessors, in-core fw's predecessor mode:
// tagged distances and a midpoint matrix stream through the super-rounds
// (twice the host memory), or, when the tagged range does not certify, int32
// rounds with predecessors read off tight edges. Refuses before any work with
// ResourceError when host memory cannot hold the order x order working
// matrices, UsageError for int16 with predecessors. The range certificate
// runs on the host matrix before the first row reaches the sink; appends the
// super-tile shape to out.note.
void solve_out_of_core(const Graph& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out,
                       ProgressSpan progress);

}  // namespace apsp::cuda
