#include <charconv>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "cli.hpp"

namespace apsp::cli {

void print_row(const char* label, const std::string& value) { std::printf("  %-16s %s\n", label, value.c_str()); }

void print_stage(const std::string& name, double seconds, std::uint64_t bytes) {
  char text[64];
  int length = std::snprintf(text, sizeof text, "%12.3f ms", seconds * 1e3);
  if (bytes > 0 && seconds > 0)
    std::snprintf(text + length, sizeof text - length, "  %8.2f GB/s", static_cast<double>(bytes) / seconds / 1e9);
  print_row(name.c_str(), text);
}

void add_graph_input_options(CLI::App& cmd, GraphInput& in, const std::string& positional_name) {
  cmd.add_option(positional_name, in.path, "Graph file (.bin .gr .mtx .txt .el .edges .npy .mat .dense)")->required();
  cmd.add_option("--format", in.format,
                 "Input format instead of the one the extension names (coordinate: the network repository's "
                 "'n n m' + 'i j [w]' lists without banner)")
      ->capture_default_str();
  cmd.add_flag("--undirected", in.undirected, "Read every edge in both directions");
  cmd.add_option("--no-edge", in.no_edge,
                 "Dense inputs (.npy .mat .dense): the value that means no edge (default: -1 in integer "
                 "cells; float .npy cells use +inf)");
}

namespace {

io::ReadOptions read_options(const GraphInput& in) {
  io::ReadOptions opts;
  opts.format = io::parse_format(in.format);
  opts.no_edge_value = in.no_edge;
  opts.undirected = in.undirected;
  opts.note = [](const std::string& text) { std::fprintf(stderr, "apsp: note: %s\n", text.c_str()); };
  return opts;
}

// f(graph) on a graph of one weight type or of any.
template <class F>
auto visit_graph(const Graph& g, F f) {
  return f(g);
}
template <class F>
auto visit_graph(const AnyGraph& g, F f) {
  return std::visit(f, g);
}

// Reads with read(path, options) -> G, then normalizes any weight type into
// `loaded`, timing both.
template <class Loaded, class Read>
Loaded load_with(const GraphInput& in, Read read) {
  Loaded loaded;
  auto start = std::chrono::steady_clock::now();
  auto raw = read(in.path, read_options(in));
  std::error_code no_size;
  const auto bytes = std::filesystem::file_size(in.path, no_size);
  loaded.times.add("read", seconds_since(start), no_size ? 0 : static_cast<std::uint64_t>(bytes));
  start = std::chrono::steady_clock::now();
  loaded.normalized = visit_graph(raw, [&](const auto& g) -> decltype(loaded.normalized) {
    loaded.edges_as_read = static_cast<std::int64_t>(g.edges.size());
    if constexpr (std::is_same_v<Loaded, LoadedAnyGraph>) loaded.vertices_as_read = g.n;
    return normalize(g);
  });
  loaded.times.add("normalize", seconds_since(start));
  if constexpr (std::is_same_v<Loaded, LoadedAnyGraph>) {
    if (in.relabel) {
      start = std::chrono::steady_clock::now();
      loaded.ids = std::visit([](auto& g) { return compact_vertices(g); }, loaded.normalized);
      loaded.times.add("relabel", seconds_since(start));
    }
  }
  return loaded;
}

}  // namespace

LoadedGraph load_graph(const GraphInput& in) { return load_with<LoadedGraph>(in, io::read_graph); }

LoadedAnyGraph load_any_graph(const GraphInput& in, const std::string& weights) {
  if (weights == "int32") return load_with<LoadedAnyGraph>(in, io::read_graph);
  const std::optional<WeightType> wanted = weights == "auto" ? std::nullopt
                                                             : std::optional<WeightType>(parse_weight_type(weights));
  LoadedAnyGraph loaded =
      load_with<LoadedAnyGraph>(in, [&](const std::string& path, const io::ReadOptions& opts) -> AnyGraph {
        AnyGraph read = io::read_any_graph(path, opts);
        return wanted ? convert_weights(std::move(read), *wanted) : read;
      });
  // auto: integer weights whose distances int32 cannot hold ((n-1) * max|w|
  // reaches kInf) are solved in float64 (choose_weight_type's rule).
  if (const Graph* ints = std::get_if<Graph>(&loaded.normalized);
      !wanted && ints && choose_weight_type(*ints) == WeightType::float64)
    loaded.normalized = convert_weights(std::move(loaded.normalized), WeightType::float64);
  return loaded;
}

void add_weights_option(CLI::App& cmd, std::string& weights) {
  cmd.add_option("--weights", weights,
                 "Weight type: auto (int32 when every weight is an integer inside int32 and (n-1) * max|w| < 2^30 - 1, "
                 "else float64), int32, float32 or float64")
      ->capture_default_str();
}

template <class T>
std::unique_ptr<io::BasicMatrixFile<T>> open_square_matrix(const std::string& path, std::int64_t n, const char* what,
                                                           io::Format format) {
  auto m = std::make_unique<io::BasicMatrixFile<T>>(path, format);
  if (m->n() != n)
    throw InputError(std::string("the ") + what + " matrix is " + std::to_string(m->n()) + " x " +
                         std::to_string(m->n()) + " but the graph has " + std::to_string(n) + " vertices",
                     path);
  return m;
}
template std::unique_ptr<io::BasicMatrixFile<std::int32_t>> open_square_matrix(const std::string&, std::int64_t,
                                                                               const char*, io::Format);
template std::unique_ptr<io::BasicMatrixFile<float>> open_square_matrix(const std::string&, std::int64_t, const char*,
                                                                        io::Format);
template std::unique_ptr<io::BasicMatrixFile<double>> open_square_matrix(const std::string&, std::int64_t, const char*,
                                                                         io::Format);

void add_distances_input_options(CLI::App& cmd, DistancesInput& d) {
  cmd.add_option("DIST", d.path, "Distance matrix (.bin .npy .txt)")->required();
  cmd.add_option("--dist-format", d.format,
                 "Format of DIST instead of the one the extension names; bin-f32 / bin-f64 for the raw real matrices "
                 "of solve --out-format")
      ->capture_default_str();
}

AnyGraphWithDistances load_graph_with_distances(const GraphInput& in, const std::string& weights,
                                                const DistancesInput& d) {
  const io::Format format = io::parse_format(d.format);
  const bool named = weights != "auto";
  if (named) parse_weight_type(weights);  // an unknown name fails before any file is read
  const std::optional<WeightType> stored = io::stored_matrix_type(d.path, format);
  const std::string map_path = io::id_map_path(d.path);
  std::error_code no_map;
  std::vector<vertex_t> map;
  GraphInput input = in;
  if (std::filesystem::is_regular_file(map_path, no_map)) {
    map = io::read_id_map(map_path);
    input.relabel = true;
  }
  // Under auto a float matrix decides the type: the graph converts to it
  // before normalization, as solve converts it.
  const bool stored_real = stored && *stored != WeightType::int32;
  LoadedAnyGraph loaded = load_any_graph(input, named ? weights : stored_real ? to_string(*stored) : "auto");
  if (input.relabel && loaded.ids != map)
    throw InputError("the id map does not match the graph " + in.path + " (" + std::to_string(map.size()) +
                         " ids, the graph relabels to " + std::to_string(loaded.ids.size()) +
                         "): it was written for another graph",
                     map_path);
  const WeightType type = weight_type(loaded.normalized);
  // int32 reads the integer cells of a float .npy (io::MatrixFile).
  const bool converts = type == WeightType::int32 &&
                        (format == io::Format::automatic ? io::format_from_path(d.path) : format) == io::Format::npy;
  if (stored && *stored != type && !converts)
    throw InputError(std::string("the distance matrix holds ") + to_string(*stored) + " values but " +
                         (named ? std::string("--weights is ") + to_string(type)
                                : std::string("the graph has real weights (") + to_string(type) + ")") +
                         "; verify and path read the distances in the weight type they were solved in",
                     d.path);
  return std::visit(
      [&](auto& g) -> AnyGraphWithDistances {
        using W = typename std::decay_t<decltype(g)>::weight_type;
        auto distances = open_square_matrix<W>(d.path, g.n, "distance", format);
        return GraphWithDistances<W>{std::move(g), std::move(distances), std::move(map)};
      },
      loaded.normalized);
}

CLI::Validator count_up_to(std::int64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        std::int64_t value = 0;
        const char* end = text.data() + text.size();
        const auto parsed = std::from_chars(text.data(), end, value);
        if (parsed.ec != std::errc() || parsed.ptr != end || value < 0 || value > max)
          return text + " is not a count from 0 to " + std::to_string(max);
        return {};
      },
      "0.." + std::to_string(max));
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
    // The flags are the field names with '-' for '_', except --algo.
    std::string option = e.option() == "algorithm" ? "algo" : e.option();
    for (char& c : option)
      if (c == '_') c = '-';
    return report_error(prefix + (option.empty() ? e.what() : "--" + option + ": " + e.what()), e.exit_code(), print);
  } catch (const Error& e) {
    return report_error(prefix + e.what(), e.exit_code(), print);
  } catch (const std::bad_alloc& e) {
    return report_error(prefix + "out of memory", exit_code_of(e), print);
  } catch (const std::length_error& e) {
    return report_error(prefix + "out of memory: " + e.what(), exit_code_of(e), print);
  } catch (const std::exception& e) {
    return report_error(prefix + "internal error: " + e.what(), exit_code_of(e), print);
  } catch (...) {
    return report_error(prefix + "internal error: unknown exception", ExitCode::internal, print);
  }
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace apsp::cli
