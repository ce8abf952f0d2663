// apsp path GRAPH DIST --from U --to V: print one shortest path and its weight
// (real weights as the shortest text that reads back as the same value). With
// an id map beside DIST (solve --relabel), U, V and the path are original ids.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <variant>

#include "apsp/error.hpp"
#include "apsp/path.hpp"
#include "cli.hpp"

namespace apsp::cli {
namespace {

struct PathArgs {
  GraphInput input;
  DistancesInput distances;
  std::string weights = "auto";
  std::string predecessors;
  std::int64_t from = 0;
  std::int64_t to = 0;
};

// The shortest text that reads back as `value` (std::to_chars), as the .txt
// results print it.
template <class W>
std::string round_trip_text(W value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

template <class W>
void print_path(const PathArgs& a, const GraphWithDistances<W>& gd) {
  const std::int64_t n = gd.graph.n;
  std::unique_ptr<io::MatrixFile> pred;
  if (!a.predecessors.empty()) pred = open_square_matrix<vertex_t>(a.predecessors, n, "predecessor");
  const std::vector<vertex_t>& ids = gd.ids;  // with an id map, --from, --to and the path are original ids
  const auto vertex = [&](std::int64_t v, const char* option) {
    if (!ids.empty()) {
      const auto at = std::lower_bound(ids.begin(), ids.end(), v);
      if (at == ids.end() || *at != v)
        throw InputError(std::string(option) + " " + std::to_string(v) +
                         " is not in the id map of the relabelled result (no edge touches it)");
      return static_cast<vertex_t>(at - ids.begin());
    }
    if (v < 0 || v >= n)
      throw InputError(std::string(option) + " " + std::to_string(v) + " is outside 0.." + std::to_string(n - 1));
    return static_cast<vertex_t>(v);
  };
  const auto original = [&](vertex_t v) { return std::to_string(ids.empty() ? v : ids[static_cast<std::size_t>(v)]); };
  const Span<const W> d = gd.distances->cells();
  const vertex_t from = vertex(a.from, "--from");
  const vertex_t to = vertex(a.to, "--to");
  const auto path = shortest_path(gd.graph, d, pred ? pred->cells() : Span<const vertex_t>{}, from, to);
  if (path.empty()) {
    std::printf("unreachable\n");
    return;
  }
  std::string text = original(path.front());
  for (std::size_t k = 1; k < path.size(); ++k) text += " -> " + original(path[k]);
  std::printf("%s\nweight %s\n", text.c_str(), round_trip_text(d[static_cast<std::size_t>(from) * n + to]).c_str());
}

void run_path(const PathArgs& a) {
  const AnyGraphWithDistances loaded = load_graph_with_distances(a.input, a.weights, a.distances);
  std::visit([&](const auto& gd) { print_path(a, gd); }, loaded);
}

}  // namespace

Command add_path_command(CLI::App& app) {
  auto args = std::make_shared<PathArgs>();
  CLI::App* cmd = app.add_subcommand("path", "Print a shortest path from a distance (or predecessor) matrix");
  add_graph_input_options(*cmd, args->input, "GRAPH");
  add_distances_input_options(*cmd, args->distances);
  cmd->add_option("--from", args->from, "Source vertex (0-based; an original id when DIST.ids exists)")->required();
  cmd->add_option("--to", args->to, "Target vertex (0-based; an original id when DIST.ids exists)")->required();
  cmd->add_option("--predecessors", args->predecessors, "Predecessor matrix written by apsp solve --predecessors");
  add_weights_option(*cmd, args->weights);
  return Command{cmd, [args] { run_path(*args); }};
}

}  // namespace apsp::cli
