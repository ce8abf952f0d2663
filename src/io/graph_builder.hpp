// Private to the readers: a graph built edge by edge in the weight type as
// read (io::read_any_graph). Host-only.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "io/text.hpp"

namespace apsp::io::detail {

// What a reader found: the graph in the weight type as read, and, when that
// is not int32, the InputError read_graph (int32 only) throws instead: the
// first weight that is no int32, named at its position.
struct ReadGraph {
  AnyGraph graph;
  std::optional<InputError> not_int32;
};

// Edges in int32 while every weight is an integer inside int32, in float64
// from the first other weight on (the edges before it widened, exactly).
class GraphBuilder {
 public:
  std::int64_t n = 0;

  // Room for `edges` edges (std::bad_alloc when that fails).
  void reserve(std::size_t edges) {
    if (real_)
      reals_.edges.reserve(edges);
    else
      ints_.edges.reserve(edges);
  }

  // An edge with an integer weight. `where` (converted to the location text
  // only when needed) is its position in the file.
  template <class Location>
  void add_integer(vertex_t src, vertex_t dst, std::int64_t w, const Location& where) {
    if (!real_ && w >= std::numeric_limits<weight_t>::min() && w <= std::numeric_limits<weight_t>::max()) {
      ints_.edges.push_back(Edge{src, dst, static_cast<weight_t>(w)});
      return;
    }
    if (!real_) become_real(InputError("weight " + std::to_string(w) + " is outside int32", where));
    reals_.edges.push_back(EdgeF64{src, dst, static_cast<double>(w)});
  }

  // An edge with a real weight `w` written as `text`. +inf: no edge, nothing
  // is added. NaN and -inf: InputError at `where` (no length). An integral
  // value inside int32 counts as an integer.
  template <class Location>
  void add_real(vertex_t src, vertex_t dst, double w, std::string_view text, const Location& where) {
    if (std::isnan(w)) throw InputError("weight " + quoted(text) + " is NaN, not a length", where);
    if (w == -std::numeric_limits<double>::infinity())
      throw InputError("weight " + quoted(text) + " is -inf, not a length", where);
    if (w == std::numeric_limits<double>::infinity()) return;
    if (!real_ && w == std::trunc(w) && std::fabs(w) <= std::numeric_limits<weight_t>::max()) {
      ints_.edges.push_back(Edge{src, dst, static_cast<weight_t>(w)});
      return;
    }
    if (!real_)
      become_real(
          InputError("weight " + quoted(text) +
                         " is not an integer inside int32; real weights need the float32 or float64 weight type",
                     where));
    reals_.edges.push_back(EdgeF64{src, dst, w});
  }

  // The graph read, symmetrized when `undirected`.
  ReadGraph finish(bool undirected) {
    ReadGraph out;
    if (real_) {
      reals_.n = n;
      out.graph = undirected ? symmetrize(reals_) : std::move(reals_);
    } else {
      ints_.n = n;
      out.graph = undirected ? symmetrize(ints_) : std::move(ints_);
    }
    out.not_int32 = std::move(not_int32_);
    return out;
  }

 private:
  void become_real(InputError why) {
    not_int32_ = std::move(why);
    real_ = true;
    reals_.edges.reserve(ints_.edges.capacity());
    for (const Edge& e : ints_.edges) reals_.edges.push_back(EdgeF64{e.src, e.dst, static_cast<double>(e.w)});
    ints_ = Graph{};
  }

  bool real_ = false;
  Graph ints_;
  GraphF64 reals_;
  std::optional<InputError> not_int32_;
};

// Adds the edge src -> dst whose weight is the token `token` of a sparse
// format: an integer, or a real number in decimal or scientific notation
// ("2.5", "-1e-3", "inf" for no edge). InputError at `where` for anything
// else, a truncated exponent ("1e") included, and for NaN.
template <class Location>
void add_weight_token(GraphBuilder& g, vertex_t src, vertex_t dst, std::string_view token, const Location& where) {
  if (const auto integer = to_int64(token)) return g.add_integer(src, dst, *integer, where);
  if (const auto real = to_double(token)) return g.add_real(src, dst, *real, token, where);
  throw InputError("expected a number for the weight, found " + quoted(token), where);
}

}  // namespace apsp::io::detail
