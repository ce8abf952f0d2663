#include <algorithm>
#include <limits>
#include <new>
#include <type_traits>

#include "apsp/error.hpp"
#include "core/weights.hpp"
#include "io/formats.hpp"

namespace apsp::io::detail {

template <class W>
void check_graph_for_output(const BasicGraph<W>& g, const std::string& path) {
  if (g.n < 0 || g.n > std::numeric_limits<vertex_t>::max())
    throw InputError("cannot write " + path + ": vertex count " + std::to_string(g.n) + " is outside 0..int32 max");
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const BasicEdge<W>& x = g.edges[e];
    if (x.src < 0 || x.src >= g.n || x.dst < 0 || x.dst >= g.n)
      throw InputError("cannot write " + path + ": edge " + std::to_string(e) + " (" + std::to_string(x.src) + " -> " +
                       std::to_string(x.dst) + ") has a vertex outside 0.." + std::to_string(g.n - 1));
  }
}
template void check_graph_for_output(const Graph&, const std::string&);
template void check_graph_for_output(const GraphF64&, const std::string&);

void reserve_declared_edges(GraphBuilder& g, std::int64_t declared, std::uint64_t file_bytes,
                            std::uint64_t min_bytes_per_edge, const std::string& path) {
  const std::uint64_t count =
      std::min<std::uint64_t>(static_cast<std::uint64_t>(declared), file_bytes / min_bytes_per_edge);
  try {
    g.reserve(static_cast<std::size_t>(count));
  } catch (const std::bad_alloc&) {
    throw ResourceError("cannot allocate " + std::to_string(count * sizeof(Edge)) + " bytes for the " +
                        std::to_string(count) + " edges of " + path);
  }
}

template <class W>
void write_edge_file(const std::string& path, const BasicGraph<W>& g, const std::string& header,
                     std::string_view prefix, int base) {
  check_graph_for_output(g, path);
  write_text_file(path, [&](TextWriter& text) {
    text.text(header);
    for (const BasicEdge<W>& e : g.edges) {
      text.text(prefix).number(std::int64_t{e.src} + base).character(' ').number(std::int64_t{e.dst} + base);
      text.character(' ');
      if constexpr (std::is_integral<W>::value)
        text.number(e.w);
      else
        text.text(core::format_weight(e.w));
      text.character('\n');
    }
  });
}
template void write_edge_file(const std::string&, const Graph&, const std::string&, std::string_view, int);
template void write_edge_file(const std::string&, const GraphF64&, const std::string&, std::string_view, int);

void check_dense_size(const std::string& path, std::int64_t n, std::int64_t max_vertices) {
  if (n > max_vertices)
    throw UsageError("cannot write " + path + " as a dense matrix: " + std::to_string(n) +
                     " vertices exceed the limit of " + std::to_string(max_vertices) +
                     "; use .bin, .gr, .mtx or an edge list");
}

template <class Cell, class W>
std::vector<Cell> dense_cells_for_output(const BasicGraph<W>& g, const std::string& path, std::int64_t max_vertices,
                                         Cell no_edge) {
  check_graph_for_output(g, path);
  check_dense_size(path, g.n, max_vertices);
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<Cell> cells;
  try {
    cells.assign(n * n, no_edge);
  } catch (const std::bad_alloc&) {
    throw ResourceError("cannot allocate " + std::to_string(n * n * sizeof(Cell)) + " bytes for the dense matrix of " +
                        path);
  }
  for (std::size_t v = 0; v < n; ++v) cells[v * n + v] = 0;
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const BasicEdge<W>& x = g.edges[e];
    if (Cell(x.w) == no_edge)
      refuse_dense_no_edge_weight(path, "edge " + std::to_string(e) + " (" + std::to_string(x.src) + " -> " +
                                            std::to_string(x.dst) + ") weighs " + core::format_weight(x.w));
    Cell& cell = cells[static_cast<std::size_t>(x.src) * n + static_cast<std::size_t>(x.dst)];
    // The diagonal starts at 0, so only a negative self-loop changes it.
    cell = cell == no_edge ? Cell(x.w) : std::min(cell, Cell(x.w));
  }
  return cells;
}

template std::vector<double> dense_cells_for_output(const Graph&, const std::string&, std::int64_t, double);
template std::vector<double> dense_cells_for_output(const GraphF64&, const std::string&, std::int64_t, double);
template std::vector<std::int32_t> dense_cells_for_output(const Graph&, const std::string&, std::int64_t, std::int32_t);

void refuse_dense_no_edge_weight(const std::string& path, const std::string& which) {
  throw UsageError("cannot write " + path + " as a text matrix: " + which +
                   ", which it reads as 'no edge'; use .npy (+inf for no edge), .bin, .gr, .mtx or an edge list");
}

}  // namespace apsp::io::detail
