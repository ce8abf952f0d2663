// A graph from one rank on every rank (apsp::broadcast_graph, apsp/comm.hpp).
#include <cstdint>
#include <type_traits>
#include <variant>
#include <vector>

#include "apsp/comm.hpp"

namespace apsp {
namespace {

// The edges of `g` as bytes from `root`; `g` has its size already.
template <class W>
void broadcast_edges(Communicator& comm, BasicGraph<W>& g, int root) {
  static_assert(std::is_trivially_copyable<BasicEdge<W>>::value, "edges travel as their bytes");
  if (g.edges.empty()) return;
  comm.broadcast(reinterpret_cast<std::uint8_t*>(g.edges.data()), g.edges.size() * sizeof(BasicEdge<W>), root);
}

// g = an empty graph of alternative `index` (the root's weight type).
template <std::size_t I = 0>
void emplace_alternative(AnyGraph& g, std::size_t index) {
  if constexpr (I < std::variant_size<AnyGraph>::value) {
    if (index == I)
      g.emplace<I>();
    else
      emplace_alternative<I + 1>(g, index);
  }
}

}  // namespace

void broadcast_graph(Communicator& comm, AnyGraph& g, int root) {
  // Header: the variant's index (the weight type), n and m.
  std::int64_t header[3] = {static_cast<std::int64_t>(g.index()), 0, 0};
  std::visit(
      [&](const auto& typed) {
        header[1] = typed.n;
        header[2] = static_cast<std::int64_t>(typed.edges.size());
      },
      g);
  comm.broadcast(header, 3, root);
  if (comm.rank() != root) {
    emplace_alternative(g, static_cast<std::size_t>(header[0]));
  }
  std::visit(
      [&](auto& typed) {
        if (comm.rank() != root) {
          typed.n = header[1];
          typed.edges.resize(static_cast<std::size_t>(header[2]));
        }
        broadcast_edges(comm, typed, root);
      },
      g);
}

}  // namespace apsp
