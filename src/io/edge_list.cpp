// Edge lists as SNAP and most tools write them: one "u v [w]" line per edge,
// 0-based ids, weight 1 when absent, '#' or '%' comment lines. The vertex
// count is the largest id + 1, raised to N by a "# vertices: N" comment (which
// write_edge_list emits so that isolated high vertices survive a round trip).
#include <algorithm>
#include <limits>
#include <optional>

#include "apsp/error.hpp"
#include "io/formats.hpp"
#include "io/text.hpp"

namespace apsp::io::detail {
namespace {

constexpr std::int64_t kLargestId = std::numeric_limits<vertex_t>::max() - 1;  // so that n = id + 1 fits
constexpr std::string_view kVerticesKey = "vertices:";

// N from a comment "# vertices: N", else nullopt. `comment` starts at the marker.
std::optional<std::int64_t> vertices_comment(std::string_view comment, const LineLocation& location) {
  Tokens tokens(comment.substr(1));
  if (tokens.next() != kVerticesKey) return std::nullopt;
  const auto count = tokens.next();
  if (!count || tokens.next()) return std::nullopt;
  const auto value = to_int64(*count);
  if (!value) return std::nullopt;
  return checked_vertex_count(*value, location);
}

vertex_t checked_id(std::int64_t id, const LineLocation& location) {
  if (id < 0) throw InputError("negative vertex id " + std::to_string(id), location);
  if (id > kLargestId)
    throw InputError(
        "vertex id " + std::to_string(id) + " exceeds the largest allowed id " + std::to_string(kLargestId), location);
  return static_cast<vertex_t>(id);
}

}  // namespace

void read_edge_list(const InputFile& file, GraphBuilder& g) {
  TextCursor text(file);
  // No header gives the edge count: at most one edge a line.
  const auto lines = std::count(file.bytes().begin(), file.bytes().end(), '\n') + 1;
  reserve_declared_edges(g, lines, file.size(), 1, file.path());
  std::int64_t vertices = 0;
  while (text.next_line()) {
    const std::string_view content = Tokens::trim_front(text.line());
    if (content.empty()) continue;
    if (content.front() == '#' || content.front() == '%') {
      if (const auto declared = vertices_comment(content, text.here())) vertices = std::max(vertices, *declared);
      continue;
    }
    Tokens tokens(content);
    const vertex_t src =
        checked_id(parse_integer(text.require(tokens, "source vertex"), "source vertex", text.here()), text.here());
    const vertex_t dst =
        checked_id(parse_integer(text.require(tokens, "target vertex"), "target vertex", text.here()), text.here());
    const auto weight_token = tokens.next();
    text.require_end(tokens);
    if (weight_token)
      add_weight_token(g, src, dst, *weight_token, text.here());
    else
      g.add_integer(src, dst, 1, text.here());
    vertices = std::max<std::int64_t>(vertices, std::max(src, dst) + std::int64_t{1});
  }
  g.n = vertices;
}

namespace {

template <class W>
void write_edge_list_typed(const std::string& path, const BasicGraph<W>& g) {
  write_edge_file(path, g,
                  "# written by apsp: source target weight, 0-based\n# " + std::string(kVerticesKey) + " " +
                      std::to_string(g.n) + "\n# edges: " + std::to_string(g.edges.size()) + "\n",
                  "", 0);
}

}  // namespace

void write_edge_list(const std::string& path, const Graph& g) { write_edge_list_typed(path, g); }
void write_edge_list(const std::string& path, const GraphF64& g) { write_edge_list_typed(path, g); }

}  // namespace apsp::io::detail
