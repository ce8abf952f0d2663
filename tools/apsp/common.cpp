#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "cli.hpp"

namespace apsp::cli {

void add_graph_input_options(CLI::App& cmd, GraphInput& in, const std::string& positional_name) {
  cmd.add_option(positional_name, in.path, "Graph file (.bin .gr .mtx .txt .el .edges .npy .mat .dense)")->required();
  cmd.add_option("--format", in.format, "Input format instead of the one the extension names")->capture_default_str();
  cmd.add_flag("--undirected", in.undirected, "Read every edge in both directions");
  cmd.add_option("--no-edge", in.no_edge, "Dense inputs (.npy .mat .dense): the value that means no edge")
      ->capture_default_str();
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

int report_error(const std::string& message, ExitCode code, bool print) {
  if (print) {
    std::string line = message;
    for (char& c : line)
      if (c == '\n' || c == '\r') c = ' ';
    std::fprintf(stderr, "apsp: %s\n", line.c_str());
  }
  return static_cast<int>(code);
}

int report_current_exception(const std::string& prefix, bool print) {
  try {
    throw;
  } catch (const UsageError& e) {
    // The library names the parameter; the CLI spells it as its flag.
    std::string option = e.option();
    for (char& c : option)
      if (c == '_') c = '-';
    return report_error(prefix + (option.empty() ? e.what() : "--" + option + ": " + e.what()), e.exit_code(), print);
  } catch (const Error& e) {
    return report_error(prefix + e.what(), e.exit_code(), print);
  } catch (const std::bad_alloc&) {
    return report_error(prefix + "out of memory", ExitCode::resource, print);
  } catch (const std::length_error& e) {
    return report_error(prefix + "out of memory: " + e.what(), ExitCode::resource, print);
  } catch (const std::exception& e) {
    return report_error(prefix + "internal error: " + e.what(), ExitCode::bad_input, print);
  } catch (...) {
    return report_error(prefix + "internal error: unknown exception", ExitCode::bad_input, print);
  }
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace apsp::cli
