// apsp path GRAPH DIST --from U --to V: print one shortest path and its weight.
#include <cstdio>
#include <memory>
#include <string>

#include "apsp/error.hpp"
#include "apsp/path.hpp"
#include "cli.hpp"

namespace apsp::cli {
namespace {

struct PathArgs {
  GraphInput input;
  std::string distances;
  std::string predecessors;
  std::int64_t from = 0;
  std::int64_t to = 0;
};

void run_path(const PathArgs& a) {
  const LoadedGraph loaded = load_graph(a.input);
  const std::int64_t n = loaded.normalized.n;
  const auto d = open_square_matrix(a.distances, n, "distance");
  std::unique_ptr<io::MatrixFile> pred;
  if (!a.predecessors.empty()) pred = open_square_matrix(a.predecessors, n, "predecessor");
  const auto vertex = [n](std::int64_t v, const char* option) {
    if (v < 0 || v >= n)
      throw InputError(std::string(option) + " " + std::to_string(v) + " is outside 0.." + std::to_string(n - 1));
    return static_cast<vertex_t>(v);
  };
  const auto path = shortest_path(loaded.normalized, d->cells(), pred ? pred->cells() : Span<const vertex_t>{},
                                  vertex(a.from, "--from"), vertex(a.to, "--to"));
  if (path.empty()) {
    std::printf("unreachable\n");
    return;
  }
  std::string text = std::to_string(path.front());
  for (std::size_t k = 1; k < path.size(); ++k) text += " -> " + std::to_string(path[k]);
  std::printf("%s\nweight %d\n", text.c_str(), d->cells()[static_cast<std::size_t>(a.from * n + a.to)]);
}

}  // namespace

Command add_path_command(CLI::App& app) {
  auto args = std::make_shared<PathArgs>();
  CLI::App* cmd = app.add_subcommand("path", "Print a shortest path from a distance (or predecessor) matrix");
  add_graph_input_options(*cmd, args->input, "GRAPH");
  cmd->add_option("DIST", args->distances, "Distance matrix (.bin .npy .txt)")->required();
  cmd->add_option("--from", args->from, "Source vertex (0-based)")->required();
  cmd->add_option("--to", args->to, "Target vertex (0-based)")->required();
  cmd->add_option("--predecessors", args->predecessors, "Predecessor matrix written by apsp solve --predecessors");
  return Command{cmd, [args] { run_path(*args); }};
}

}  // namespace apsp::cli
