// apsp path GRAPH DIST --from U --to V: print one shortest path and its weight
// (real weights as the shortest text that reads back as the same value).
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
  const auto vertex = [n](std::int64_t v, const char* option) {
    if (v < 0 || v >= n)
      throw InputError(std::string(option) + " " + std::to_string(v) + " is outside 0.." + std::to_string(n - 1));
    return static_cast<vertex_t>(v);
  };
  const Span<const W> d = gd.distances->cells();
  const auto path = shortest_path(gd.graph, d, pred ? pred->cells() : Span<const vertex_t>{}, vertex(a.from, "--from"),
                                  vertex(a.to, "--to"));
  if (path.empty()) {
    std::printf("unreachable\n");
    return;
  }
  std::string text = std::to_string(path.front());
  for (std::size_t k = 1; k < path.size(); ++k) text += " -> " + std::to_string(path[k]);
  std::printf("%s\nweight %s\n", text.c_str(), round_trip_text(d[static_cast<std::size_t>(a.from * n + a.to)]).c_str());
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
  cmd->add_option("--from", args->from, "Source vertex (0-based)")->required();
  cmd->add_option("--to", args->to, "Target vertex (0-based)")->required();
  cmd->add_option("--predecessors", args->predecessors, "Predecessor matrix written by apsp solve --predecessors");
  add_weights_option(*cmd, args->weights);
  return Command{cmd, [args] { run_path(*args); }};
}

}  // namespace apsp::cli
