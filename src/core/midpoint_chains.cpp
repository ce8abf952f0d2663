#include "core/midpoint_chains.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"

namespace apsp::core {

void midpoints_to_predecessors(std::int32_t* mid, const std::int32_t* dist, std::int64_t n, std::int64_t order,
                               std::int32_t infinity) {
  constexpr std::int64_t kStrip = 16;
  const std::int64_t strips = ceil_div(n, kStrip);
  // The first broken cell (row * n + column) any thread met, or max.
  std::int64_t broken = std::numeric_limits<std::int64_t>::max();
#pragma omp parallel reduction(min : broken)
  {
    // link[i * kStrip + c]: a row (>= 0) to follow, or ~r once the chain's end r is known.
    std::vector<std::int32_t> link(static_cast<std::size_t>(n * kStrip));
    std::vector<std::int64_t> chain;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t s = 0; s < strips; ++s) {
      const std::int64_t j0 = s * kStrip, columns = std::min(kStrip, n - j0);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t c = 0; c < columns; ++c) {
          const std::int32_t m = mid[i * order + j0 + c];
          if (m >= n || m < -1) broken = std::min(broken, i * n + j0 + c);
          link[i * kStrip + c] = m >= 0 && m < n ? m : ~static_cast<std::int32_t>(i);
        }
      for (std::int64_t c = 0; c < columns; ++c)
        for (std::int64_t i = 0; i < n && broken == std::numeric_limits<std::int64_t>::max(); ++i) {
          chain.clear();
          std::int64_t x = i;
          while (link[x * kStrip + c] >= 0 && static_cast<std::int64_t>(chain.size()) <= n) {
            chain.push_back(x);
            x = link[x * kStrip + c];
          }
          if (static_cast<std::int64_t>(chain.size()) > n) {  // longer than any path: a cycle
            broken = std::min(broken, i * n + j0 + c);
            continue;
          }
          for (const std::int64_t y : chain) link[y * kStrip + c] = link[x * kStrip + c];
        }
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t c = 0; c < columns; ++c) {
          const std::int64_t j = j0 + c;
          const std::int32_t end = link[i * kStrip + c];
          mid[i * order + j] = i == j || dist[i * order + j] >= infinity || end >= 0 ? -1 : ~end;
        }
    }
  }
  if (broken != std::numeric_limits<std::int64_t>::max())
    throw Error("predecessor reconstruction: the midpoint chain of " + std::to_string(broken / n) + " -> " +
                std::to_string(broken % n) + " names no vertex or loops (the rounds went wrong)");
}

}  // namespace apsp::core
