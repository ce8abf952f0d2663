// The distributed solver's "auto": the row split of a per-source algorithm
// or the distributed Floyd-Warshall, from the one-process cost models.
#include <string>
#include <type_traits>

#include "apsp/cpu.hpp"
#include "apsp/distributed.hpp"
#include "apsp/registry.hpp"
#include "solve/auto_choice.hpp"

namespace apsp {
namespace {

bool splits_rows(const std::string& name, Backend backend) {
  const AlgorithmInfo* info = find_algorithm(name, backend);
  return info != nullptr && (info->work == Work::per_source || info->work == Work::separators);
}

template <class W>
DistributedChoice choose_typed(const BasicGraph<W>& normalized, Backend backend, int ranks) {
  constexpr bool kDouble = std::is_same<W, double>::value;
  const std::string over = " over " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks");
  DistributedChoice c;
  std::string one_process;
  if (backend == Backend::cuda) {
    SolveOptions opts;
    opts.backend = Backend::cuda;
    const choice::GpuChoice gpu = choice::choose_gpu_algorithm(core::probe_graph(normalized), opts);
    c.algorithm = gpu.algorithm;
    one_process = gpu.why;
  } else {
    const BasicWeightStats<W> stats = weight_stats(normalized);
    c.algorithm = cpu::choose_algorithm(normalized, stats);
    one_process =
        cpu::choice_reason(normalized.n, static_cast<std::int64_t>(normalized.edges.size()), stats.has_negative());
  }
  // Both layouts divide the work by the ranks; Floyd-Warshall's rounds add
  // communication that grows with them (docs/scaling.md) and the row split
  // adds none, so the one-process verdict carries over, and a dense verdict
  // moves to the row split only where the distributed fw cannot run: float64
  // on GPUs (their fw computes int32 or float32).
  if (splits_rows(c.algorithm, backend)) {
    c.row_split = true;
    c.why = one_process + "; its rows split" + over;
  } else if (kDouble && backend == Backend::cuda) {
    c.algorithm = "sssp";
    c.row_split = true;
    c.why = one_process + "; the distributed GPU fw takes no float64, so sssp's rows split" + over;
  } else {
    for (const AlgorithmInfo& a : algorithm_registry())
      if (a.backend == backend && a.distributable) c.algorithm = a.name;
    c.why = one_process + "; distributed Floyd-Warshall" + over;
  }
  return c;
}

}  // namespace

DistributedChoice choose_distributed(const Graph& normalized, Backend backend, int ranks) {
  return choose_typed(normalized, backend, ranks);
}
DistributedChoice choose_distributed(const GraphF32& normalized, Backend backend, int ranks) {
  return choose_typed(normalized, backend, ranks);
}
DistributedChoice choose_distributed(const GraphF64& normalized, Backend backend, int ranks) {
  return choose_typed(normalized, backend, ranks);
}

}  // namespace apsp
