// The parts of the matrix `apsp solve` can write instead of the whole:
// --sources / --targets lists, and the sparse output of --cutoff / --nearest.
#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "apsp/sinks.hpp"
#include "cli.hpp"

namespace apsp::cli {
namespace {

// The ids of a list "3,5,10-12" (ranges inclusive), or nullopt when `spec` is not one.
std::optional<std::vector<std::int64_t>> parse_list(const std::string& spec) {
  static const std::regex list("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*");
  if (!std::regex_match(spec, list)) return std::nullopt;
  std::vector<std::int64_t> ids;
  std::stringstream items(spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto dash = item.find('-');
    const std::int64_t first = std::stoll(item.substr(0, dash));
    const std::int64_t last = dash == std::string::npos ? first : std::stoll(item.substr(dash + 1));
    if (last < first) throw UsageError("the range " + item + " runs backwards");
    if (last - first >= (std::int64_t{1} << 31)) throw UsageError("the range " + item + " is longer than any graph");
    for (std::int64_t id = first; id <= last; ++id) ids.push_back(id);
  }
  return ids;
}

// The ids of a file: whitespace- or comma-separated integers, '#' to the
// end of a line a comment. InputError naming the line of anything else.
std::vector<std::int64_t> read_id_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot open " + path + " (neither a list such as 0,5,10-20 nor a readable file)");
  std::vector<std::int64_t> ids;
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::stringstream tokens(line);
    std::string token;
    while (tokens >> token) {
      std::size_t used = 0;
      std::int64_t id = -1;
      try {
        id = std::stoll(token, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != token.size() || id < 0)
        throw InputError(path + ":" + std::to_string(number) + ": '" + token + "' is not a vertex id");
      ids.push_back(id);
    }
  }
  return ids;
}

}  // namespace

void write_sparse(const std::string& path, const std::string& format, const SparseDistances& kept,
                  const std::vector<vertex_t>& sources, const std::vector<vertex_t>& targets,
                  const std::vector<vertex_t>& ids, std::int64_t n, bool integers) {
  const auto vertex_of = [&](const std::vector<vertex_t>& chosen, std::int64_t index) {
    const vertex_t v = chosen.empty() ? static_cast<vertex_t>(index) : chosen[static_cast<std::size_t>(index)];
    return ids.empty() ? v : ids[static_cast<std::size_t>(v)];
  };
  const std::int64_t order = ids.empty() ? n : static_cast<std::int64_t>(*std::max_element(ids.begin(), ids.end())) + 1;
  const auto fill = [&](auto& g) {
    using W = std::decay_t<decltype(g.edges[0].w)>;
    g.n = order;
    g.edges.reserve(kept.size());
    for (std::int64_t r = 0; r < kept.rows; ++r)
      for (std::int64_t k = kept.row_start[static_cast<std::size_t>(r)];
           k < kept.row_start[static_cast<std::size_t>(r) + 1]; ++k)
        g.edges.push_back({vertex_of(sources, r), vertex_of(targets, kept.column[static_cast<std::size_t>(k)]),
                           static_cast<W>(kept.distance(static_cast<std::size_t>(k)))});
  };
  const io::Format f = io::parse_format(format);
  if (integers) {
    Graph g;
    fill(g);
    io::write_graph(path, g, f);
  } else {
    GraphF64 g;
    fill(g);
    io::write_graph(path, g, f);
  }
}

std::vector<vertex_t> parse_vertex_list(const std::string& spec, std::int64_t n, const std::vector<vertex_t>& ids,
                                        const char* option) {
  const std::optional<std::vector<std::int64_t>> listed = parse_list(spec);
  const std::vector<std::int64_t> wanted = listed ? *listed : read_id_file(spec);
  const std::string where = listed ? "" : " (in " + spec + ")";
  std::unordered_map<std::int64_t, vertex_t> relabelled;
  for (std::size_t v = 0; v < ids.size(); ++v) relabelled.emplace(ids[v], static_cast<vertex_t>(v));
  std::vector<vertex_t> vertices;
  vertices.reserve(wanted.size());
  for (const std::int64_t id : wanted) {
    if (!ids.empty()) {
      const auto found = relabelled.find(id);
      if (found == relabelled.end())
        throw UsageError("vertex " + std::to_string(id) + where + " has no edge, so --relabel left it out", option);
      vertices.push_back(found->second);
    } else if (id >= n) {
      throw UsageError("vertex " + std::to_string(id) + where + " is outside the graph's vertices 0.." +
                           std::to_string(n - 1),
                       option);
    } else {
      vertices.push_back(static_cast<vertex_t>(id));
    }
  }
  return vertices;
}

}  // namespace apsp::cli
