#include "apsp/potentials.hpp"

#include "apsp/error.hpp"
#include "core/bellman_ford.hpp"

namespace apsp {

std::vector<std::int64_t> johnson_potentials(const Csr& g) {
  check_csr(g);
  core::BellmanFord search(g.n);
  const std::int64_t on_cycle = search.from_all(core::csr_view(g));
  if (on_cycle >= 0) throw NegativeCycleError(on_cycle);
  return search.take_labels();
}

}  // namespace apsp
