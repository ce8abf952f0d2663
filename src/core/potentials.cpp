#include "apsp/potentials.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "apsp/error.hpp"
#include "core/bellman_ford.hpp"
#include "core/negative_cycle.hpp"
#include "core/weights.hpp"

namespace apsp {

namespace {

template <class W>
auto potentials_of(const BasicCsr<W>& g) {
  check_csr(g);
  if constexpr (std::is_floating_point<W>::value) {
    // Real weights: the negative-cycle decision is core::cycle_is_negative's
    // rule (the cycle's own edges, not n); the slack search below then only
    // has cycles left that rounding alone makes negative.
    const std::int64_t on_cycle = core::vertex_on_negative_cycle(g);
    if (on_cycle >= 0) throw NegativeCycleError(on_cycle);
  }
  double max_abs_weight = 0;
  for (const W w : g.weight) max_abs_weight = std::max(max_abs_weight, std::fabs(static_cast<double>(w)));
  core::BasicBellmanFord<W> search(g.n, core::relaxation_slack<W>(g.n, max_abs_weight));
  const std::int64_t on_cycle = search.from_all(core::csr_view(g));
  if (on_cycle >= 0) throw NegativeCycleError(on_cycle);
  return search.take_labels();
}

}  // namespace

std::vector<std::int64_t> johnson_potentials(const Csr& g) { return potentials_of(g); }
std::vector<double> johnson_potentials(const CsrF32& g) { return potentials_of(g); }
std::vector<double> johnson_potentials(const CsrF64& g) { return potentials_of(g); }

}  // namespace apsp
