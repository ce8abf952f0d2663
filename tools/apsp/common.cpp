#include <chrono>
#include <filesystem>
#include <string>

#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "cli.hpp"

namespace apsp::cli {

void add_graph_input_options(CLI::App& cmd, GraphInput& in, const std::string& positional_name) {
  cmd.add_option(positional_name, in.path, "Graph file (.bin .gr .mtx .txt .el .edges .npy .mat .dense)")->required();
  cmd.add_option("--format", in.format, "Input format instead of the one the extension names")->capture_default_str();
  cmd.add_flag("--undirected", in.undirected, "Read every edge in both directions");
  cmd.add_option("--no-edge", in.no_edge,
                 "Dense inputs (.npy .mat .dense): the value that means no edge (default: -1 in integer "
                 "cells; float .npy cells use +inf)");
}

LoadedGraph load_graph(const GraphInput& in) {
  io::ReadOptions opts;
  opts.format = io::parse_format(in.format);
  opts.no_edge_value = in.no_edge;
  opts.undirected = in.undirected;
  LoadedGraph loaded;
  auto start = std::chrono::steady_clock::now();
  const Graph raw = io::read_graph(in.path, opts);
  std::error_code no_size;
  const auto bytes = std::filesystem::file_size(in.path, no_size);
  loaded.times.add("read", seconds_since(start), no_size ? 0 : static_cast<std::uint64_t>(bytes));
  start = std::chrono::steady_clock::now();
  loaded.edges_as_read = static_cast<std::int64_t>(raw.edges.size());
  loaded.normalized = normalize(raw);
  loaded.times.add("normalize", seconds_since(start));
  return loaded;
}

std::unique_ptr<io::MatrixFile> open_square_matrix(const std::string& path, std::int64_t n, const char* what) {
  auto m = std::make_unique<io::MatrixFile>(path);
  if (m->n() != n)
    throw InputError(std::string("the ") + what + " matrix is " + std::to_string(m->n()) + " x " +
                         std::to_string(m->n()) + " but the graph has " + std::to_string(n) + " vertices",
                     path);
  return m;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace apsp::cli
