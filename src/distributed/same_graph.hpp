// Private to src/distributed: every rank of a distributed solve must hold the
// same graph.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "apsp/graph.hpp"

namespace apsp::dist {

// A weight's bits (a real weight's IEEE pattern), for the graph hash.
template <class W>
std::uint64_t weight_bits(W w) {
  if constexpr (std::is_floating_point<W>::value) {
    std::conditional_t<sizeof(W) == 4, std::uint32_t, std::uint64_t> bits;
    std::memcpy(&bits, &w, sizeof bits);
    return bits;
  } else {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(w));
  }
}

// n, m and an order-dependent hash of the normalized edges (the weights'
// bit patterns) agree on every rank of `comm`, or every rank throws
// Agreed<InputError>. Collective.
template <class W>
void require_same_graph(Communicator& comm, const BasicGraph<W>& normalized) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const BasicEdge<W>& e : normalized.edges)
    for (std::uint64_t v : {static_cast<std::uint64_t>(e.src), static_cast<std::uint64_t>(e.dst), weight_bits(e.w)})
      hash = (hash ^ v) * 1099511628211ull;
  const std::int64_t mine[3] = {normalized.n, static_cast<std::int64_t>(normalized.edges.size()),
                                static_cast<std::int64_t>(hash >> 1)};
  std::int64_t low[3], high[3];
  comm.all_reduce(mine, low, 3, ReduceOp::min);
  comm.all_reduce(mine, high, 3, ReduceOp::max);
  if (std::equal(low, low + 3, high)) return;
  std::string what = "the ranks hold different graphs";
  if (low[0] != high[0])
    what += ": n from " + std::to_string(low[0]) + " to " + std::to_string(high[0]);
  else if (low[1] != high[1])
    what += ": m from " + std::to_string(low[1]) + " to " + std::to_string(high[1]);
  else
    what += " (same n and m, different edges)";
  throw Agreed<InputError>(-1, what);
}

}  // namespace apsp::dist
