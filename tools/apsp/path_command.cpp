// apsp path GRAPH DIST --from U --to V: print one shortest path and its weight
// (real weights as the shortest text that reads back as the same value); with
// --pairs FILE, a line per pair of the file. With an id map beside DIST (solve
// --relabel), U, V and the path are original ids.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

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
  std::optional<std::int64_t> from;
  std::optional<std::int64_t> to;
  std::string pairs;  // a file of "FROM TO" lines, instead of --from and --to
};

// The pairs of a --pairs file: two ids a line ('#' comments, blank lines
// skipped); InputError naming the line of anything else.
std::vector<std::pair<std::int64_t, std::int64_t>> read_pairs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot open the pairs file " + path);
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line.substr(0, line.find('#')));
    std::int64_t from = 0, to = 0;
    std::string rest;
    if (!(fields >> from)) {
      if (fields.eof()) continue;  // blank or comment
    } else if (fields >> to && !(fields >> rest)) {
      pairs.emplace_back(from, to);
      continue;
    }
    throw InputError(path + ":" + std::to_string(number) + ": expected two vertex ids 'FROM TO'");
  }
  return pairs;
}

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
  // One pair's path as text, "unreachable" when there is none.
  const auto path_text = [&](vertex_t from, vertex_t to, const char* separator) {
    const auto path = shortest_path(gd.graph, d, pred ? pred->cells() : Span<const vertex_t>{}, from, to);
    if (path.empty()) return std::string("unreachable");
    std::string text = original(path.front());
    for (std::size_t k = 1; k < path.size(); ++k) text += " -> " + original(path[k]);
    return text + separator + "weight " + round_trip_text(d[static_cast<std::size_t>(from) * n + to]);
  };
  if (a.pairs.empty()) {
    std::printf("%s\n", path_text(vertex(*a.from, "--from"), vertex(*a.to, "--to"), "\n").c_str());
    return;
  }
  // Every pair checked before the first line is printed.
  std::vector<std::pair<vertex_t, vertex_t>> pairs;
  for (const auto& [from, to] : read_pairs(a.pairs)) pairs.emplace_back(vertex(from, "from"), vertex(to, "to"));
  for (const auto& [from, to] : pairs)
    std::printf("%s %s: %s\n", original(from).c_str(), original(to).c_str(), path_text(from, to, "; ").c_str());
}

void run_path(const PathArgs& a) {
  if (a.pairs.empty() && (!a.from || !a.to))
    throw UsageError("give --from and --to, or --pairs FILE", a.from ? "to" : "from");
  if (!a.pairs.empty() && (a.from || a.to))
    throw UsageError("give --from and --to, or --pairs FILE, not both", "pairs");
  const AnyGraphWithDistances loaded = load_graph_with_distances(a.input, a.weights, a.distances);
  std::visit([&](const auto& gd) { print_path(a, gd); }, loaded);
}

}  // namespace

Command add_path_command(CLI::App& app) {
  auto args = std::make_shared<PathArgs>();
  CLI::App* cmd = app.add_subcommand(
      "path", "Print shortest paths (one pair, or a file of pairs) from a distance (or predecessor) matrix");
  add_graph_input_options(*cmd, args->input, "GRAPH");
  add_distances_input_options(*cmd, args->distances);
  cmd->add_option("--from", args->from, "Source vertex (0-based; an original id when DIST.ids exists)");
  cmd->add_option("--to", args->to, "Target vertex (0-based; an original id when DIST.ids exists)");
  cmd->add_option("--pairs", args->pairs,
                  "A file of 'FROM TO' lines instead of --from and --to: prints 'FROM TO: path; weight W' for each");
  cmd->add_option("--predecessors", args->predecessors, "Predecessor matrix written by apsp solve --predecessors");
  add_weights_option(*cmd, args->weights);
  return Command{cmd, [args] { run_path(*args); }};
}

}  // namespace apsp::cli
