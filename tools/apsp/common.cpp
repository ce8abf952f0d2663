#include <unistd.h>

#include <chrono>
#include <cstdio>
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
  const Graph raw = io::read_graph(in.path, opts);
  LoadedGraph loaded;
  loaded.edges_as_read = static_cast<std::int64_t>(raw.edges.size());
  loaded.normalized = normalize(raw);
  return loaded;
}

std::vector<std::int32_t> load_square_matrix(const std::string& path, std::int64_t n, const char* what) {
  std::int64_t rows = 0;
  std::vector<std::int32_t> m = io::read_matrix(path, rows);
  if (rows != n)
    throw InputError(std::string("the ") + what + " matrix is " + std::to_string(rows) + " x " + std::to_string(rows) +
                         " but the graph has " + std::to_string(n) + " vertices",
                     path);
  return m;
}

void require_memory(double bytes, const std::string& what) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return;  // unknown: let the allocation decide
  const double physical = static_cast<double>(pages) * static_cast<double>(page_size);
  if (bytes <= physical) return;
  char text[160];
  std::snprintf(text, sizeof text, " needs %.3g GiB, more than this machine's %.3g GiB of memory",
                bytes / (1u << 30), physical / (1u << 30));
  throw ResourceError(what + text);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace apsp::cli
