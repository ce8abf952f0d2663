// Private to src/distributed: handing a rank's rows to its sink, shared by the
// engines. Tile row I (local row a of process row I mod pr) is spread over
// the pc ranks of its process row; rank a mod pc of that row gathers it,
// converts it to rows of the output type (int32, float or double: the
// solve's weight type) and puts them. A rank's part of a tile row is
// b rows of its columns' tiles side by side: b x (C_c * b) values, row-major,
// where C_c is the number of tile columns of process column c.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/sink.hpp"
#include "distributed/engine.hpp"
#include "distributed/grid.hpp"

namespace apsp::dist {

// One gathered tile row: part c (distances, and predecessors when asked) of
// each process column c. Global column j = J * b + y lies in part J mod pc,
// row x, at x * (part width) + (J / pc) * b + y.
// A gatherer may instead point view[c] at memory that already holds part c
// in that layout (the GPU engine's pinned downloads, when they need no
// widening): values(c) is then read from there, d[c] keeps only its size.
template <class D>
struct TileRowParts {
  std::vector<std::vector<D>> d;
  std::vector<std::vector<vertex_t>> p;
  std::vector<const D*> view;  // per part: null (use d[c]) or where part c is

  const D* values(std::size_t c) const { return c < view.size() && view[c] != nullptr ? view[c] : d[c].data(); }
};

// The sink element of output values of type Out (int32, float, double).
template <class Out>
constexpr Element output_element() {
  static_assert(std::is_same<Out, dist_t>::value || std::is_same<Out, float>::value || std::is_same<Out, double>::value,
                "the output is int32, float or double");
  return std::is_same<Out, float>::value    ? Element::float32
         : std::is_same<Out, double>::value ? Element::float64
                                            : Element::int32;
}

// The row loop of delivery, whatever moves the parts: gather(a, parts) is
// called on every rank of the process row for each local tile row a, in
// order; on a's gatherer (rank a mod pc of the row) `parts` is the tile
// row's parts to fill (their sizes set, predecessor parts empty unless
// tile_predecessors), elsewhere it is null and the rank sends its part to
// the gatherer. to_rows(first, rows, parts, dist, pred) converts rows
// [first, first + rows) of a gathered tile row into n-wide rows of Out
// (pred null without predecessors; with them but without tile_predecessors
// it computes them).
template <class D, class Out, class Gather, class ToRows>
void deliver_gathered_rows(const ProcessGrid& grid, std::int64_t n, std::int64_t b, bool predecessors,
                           bool tile_predecessors, Gather&& gather, ToRows&& to_rows, Sink& sink,
                           const RowCheck& check) {
  TileRowParts<D> parts;
  for (int c = 0; c < grid.cols; ++c) {
    const std::size_t size = static_cast<std::size_t>(b * ProcessGrid::count(grid.tiles, grid.cols, c) * b);
    parts.d.emplace_back(size);
    parts.p.emplace_back(tile_predecessors ? size : 0);
  }
  parts.view.assign(static_cast<std::size_t>(grid.cols), nullptr);
  std::vector<Out> dist_rows(static_cast<std::size_t>(b * n));
  std::vector<vertex_t> pred_rows(predecessors ? dist_rows.size() : 0);
  for (std::int64_t a = 0; a < grid.local_rows(); ++a) {
    if (a % grid.cols != grid.col) {
      gather(a, static_cast<TileRowParts<D>*>(nullptr));
      continue;
    }
    gather(a, &parts);
    const std::int64_t first = grid.global_row(a) * b, rows = std::min(b, n - first);
    if (rows <= 0) continue;  // a tile row of padding only
    to_rows(first, rows, parts, dist_rows.data(), predecessors ? pred_rows.data() : nullptr);
    if (check) check(first, rows, dist_rows.data(), predecessors ? pred_rows.data() : nullptr);
    sink.put(RowBlock{Plane::distances, output_element<Out>(), first, rows, n, dist_rows.data()});
    if (predecessors) sink.put(RowBlock{Plane::predecessors, Element::int32, first, rows, n, pred_rows.data()});
  }
}

// Delivery through host memory: fill(a, d, p) writes this rank's part of its
// local tile row a (p null unless tile_predecessors: the tiles hold a
// predecessor plane that is gathered too), which goes to the gatherer over
// `process_row` (null when pc == 1) from host memory. Collective over it.
template <class D, class Out, class Fill, class ToRows>
void deliver_rows(const ProcessGrid& grid, std::int64_t n, std::int64_t b, bool predecessors, bool tile_predecessors,
                  Communicator* process_row, Fill&& fill, ToRows&& to_rows, Sink& sink, const RowCheck& check) {
  const std::size_t mine = static_cast<std::size_t>(b * grid.local_cols() * b);
  std::vector<D> own_d(mine);
  std::vector<vertex_t> own_p(tile_predecessors ? mine : 0);
  auto gather = [&](std::int64_t a, TileRowParts<D>* parts) {
    if (parts == nullptr) {
      const int gatherer = static_cast<int>(a % grid.cols);
      fill(a, own_d.data(), tile_predecessors ? own_p.data() : nullptr);
      process_row->send(own_d.data(), own_d.size(), gatherer);
      if (tile_predecessors) process_row->send(own_p.data(), own_p.size(), gatherer);
      return;
    }
    for (int c = 0; c < grid.cols; ++c) {
      std::vector<D>& d = parts->d[static_cast<std::size_t>(c)];
      std::vector<vertex_t>& p = parts->p[static_cast<std::size_t>(c)];
      if (c == grid.col) {
        fill(a, d.data(), tile_predecessors ? p.data() : nullptr);
        continue;
      }
      process_row->receive(d.data(), d.size(), c);
      if (tile_predecessors) process_row->receive(p.data(), p.size(), c);
    }
  };
  deliver_gathered_rows<D, Out>(grid, n, b, predecessors, tile_predecessors, gather, to_rows, sink, check);
}

}  // namespace apsp::dist
