// Private to src/distributed, for the GPU engines' .cu files (in core,
// gpu_engine.cu; out of core per rank, gpu_ooc_engine.cu): the integer
// problem they share (computed once; an int16 attempt hands it to the int32
// rerun) and the rule that decides an int16 attempt.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/solver.hpp"
#include "core/csr.hpp"
#include "cuda/instance.hpp"
#include "cuda/kernels/common/words.cuh"

namespace apsp::dist {

// The Johnson-reweighted problem and, with predecessors, the graph's
// out-edges for the tight-edge trees.
struct GpuProblem {
  std::int64_t n = 0;
  cuda::Reweighted reweighted;
  bool predecessors = false;
  Csr out_edges;  // the normalized graph's CSR, with predecessors

  const std::vector<Edge>& edges() const { return reweighted.edges; }
};

// Reweights `normalized` (every rank computes the potentials): throws
// NegativeCycleError or OverflowError as cuda::reweight does.
inline std::shared_ptr<GpuProblem> make_gpu_problem(const Graph& normalized, bool predecessors) {
  auto problem = std::make_shared<GpuProblem>();
  problem->n = normalized.n;
  problem->reweighted = cuda::reweight(normalized);
  problem->predecessors = predecessors;
  if (predecessors) problem->out_edges = to_csr(normalized);
  return problem;
}

// Whether an engine attempts int16 for `precision`: int16 always (UsageError
// when the largest reweighted weight leaves no room below the int16
// infinity, or when the layout cannot: `layout_allows` false, `layout_rule`
// says why); automatic when both allow it and the host's estimate of the
// largest distance fits (the same rule as on one GPU); the result is
// certified either way.
inline bool attempt_int16(const GpuProblem& problem, Precision precision, bool layout_allows = true,
                          const std::string& layout_rule = {}) {
  const weight_t max_weight = problem.reweighted.max_weight;
  const bool weights_allow = max_weight < cuda::kernels::kInf16 / 2;
  if (precision == Precision::int16 && !weights_allow)
    throw UsageError("int16: the largest (reweighted) edge weight " + std::to_string(max_weight) +
                         " leaves no room below the int16 infinity " + std::to_string(cuda::kernels::kInf16),
                     "precision");
  if (precision == Precision::int16 && !layout_allows) throw UsageError("int16: " + layout_rule, "precision");
  return precision == Precision::int16 ||
         (precision == Precision::automatic && weights_allow && layout_allows && problem.n > 0 &&
          cuda::estimate_largest_distance(problem.reweighted.edges, problem.n, max_weight) < cuda::kernels::kInf16 / 2);
}

}  // namespace apsp::dist
