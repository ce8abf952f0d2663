#include "core/negative_cycle.hpp"

#include <cmath>
#include <limits>

#include "core/bellman_ford.hpp"
#include "core/csr.hpp"

namespace apsp::core {

template <class W>
bool cycle_is_negative(const std::vector<W>& weights) {
  // Neumaier-compensated sum in long double: the weights as given, each
  // exactly representable in long double.
  long double sum = 0, compensation = 0, magnitude = 0;
  for (const W w : weights) {
    const long double x = static_cast<long double>(w);
    const long double t = sum + x;
    compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
    magnitude += std::fabs(x);
  }
  const long double unit_roundoff = static_cast<long double>(std::numeric_limits<W>::epsilon()) / 2;
  const long double k = static_cast<long double>(weights.size());
  return sum + compensation < -k * unit_roundoff * magnitude;
}

template <class W>
std::int64_t vertex_on_negative_cycle(const BasicCsr<W>& g) {
  BasicBellmanFord<W> search(g.n, 0.0);
  const CsrView<W> view = csr_view(g);
  const std::int64_t on_cycle = search.from_all(view);
  if (on_cycle < 0) return -1;
  // The parent pointers close a cycle through on_cycle: its edges are
  // parent -> v, each the lightest such edge (the one a relaxation takes).
  const std::vector<vertex_t>& parent = search.parents();
  std::vector<W> weights;
  std::int64_t v = on_cycle;
  do {
    const vertex_t u = parent[static_cast<std::size_t>(v)];
    W lightest = std::numeric_limits<W>::infinity();
    for (std::int64_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e)
      if (g.col[e] == v && g.weight[e] < lightest) lightest = g.weight[e];
    weights.push_back(lightest);
    v = u;
  } while (v != on_cycle && static_cast<std::int64_t>(weights.size()) <= g.n);
  return cycle_is_negative(weights) ? on_cycle : -1;
}

template bool cycle_is_negative(const std::vector<float>&);
template bool cycle_is_negative(const std::vector<double>&);
template std::int64_t vertex_on_negative_cycle(const CsrF32&);
template std::int64_t vertex_on_negative_cycle(const CsrF64&);

}  // namespace apsp::core
