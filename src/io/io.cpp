#include "apsp/io.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

#include "apsp/error.hpp"
#include "io/files.hpp"
#include "io/formats.hpp"
#include "io/matrix_file.hpp"
#include "core/row_blocks.hpp"

namespace apsp::io {
namespace {

constexpr std::pair<std::string_view, Format> kFormatNames[] = {
    {"auto", Format::automatic},
    {"bin", Format::nthu_bin},
    {"nthu", Format::nthu_bin},
    {"dimacs", Format::dimacs},
    {"gr", Format::dimacs},
    {"mtx", Format::matrix_market},
    {"matrix-market", Format::matrix_market},
    {"edges", Format::edge_list},
    {"edgelist", Format::edge_list},
    {"el", Format::edge_list},
    {"txt", Format::edge_list},
    {"npy", Format::npy},
    {"text-matrix", Format::text_matrix},
    {"mat", Format::text_matrix},
    {"dense", Format::text_matrix},
    {"bin-f32", Format::bin_f32},
    {"bin-f64", Format::bin_f64},
    {"coordinate", Format::coordinate},
};

constexpr std::pair<std::string_view, Format> kExtensions[] = {
    {"bin", Format::nthu_bin},  {"gr", Format::dimacs},       {"mtx", Format::matrix_market},
    {"txt", Format::edge_list}, {"el", Format::edge_list},    {"edges", Format::edge_list},
    {"npy", Format::npy},       {"mat", Format::text_matrix}, {"dense", Format::text_matrix},
};

Format resolve(Format format, const std::string& path) {
  return format == Format::automatic ? format_from_path(path) : format;
}

void check_square(Span<const std::int32_t> m, std::int64_t n, const std::string& path) {
  if (n < 0 || static_cast<std::uint64_t>(m.size()) != static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n))
    throw UsageError("cannot write " + path + ": " + std::to_string(m.size()) +
                     " values do not form an n x n matrix for n = " + std::to_string(n));
}

void refuse_graph_format(Format format, const std::string& path) {
  if (format == Format::dimacs || format == Format::matrix_market || format == Format::coordinate)
    detail::not_a_matrix_format(format, path);
  if (format == Format::bin_f32 || format == Format::bin_f64)
    throw UsageError(std::string("reading ") + to_string(format) + " matrices is not supported (" + path +
                     "); write real-valued results as .npy to read them back");
}

[[noreturn]] void coordinate_is_input_only(const std::string& path) {
  throw UsageError("cannot write " + path + " as a coordinate list: apsp reads that format but writes .mtx instead");
}

[[noreturn]] void not_a_graph_format(Format format, const std::string& path) {
  throw UsageError(std::string(to_string(format)) + " holds result matrices, not graphs (" + path + ")");
}

}  // namespace

Format parse_format(const std::string& name) {
  for (const auto& [known, format] : kFormatNames)
    if (name == known) return format;
  throw UsageError("unknown format '" + name +
                   "' (expected auto, bin, dimacs, mtx, edges, npy, text-matrix, bin-f32, bin-f64 or coordinate)");
}

Format format_from_path(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
    std::string extension = path.substr(dot + 1);
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& [known, format] : kExtensions)
      if (extension == known) return format;
  }
  throw UsageError("cannot tell the format of '" + path +
                   "' from its extension (known: .bin .gr .mtx .txt .el .edges .npy .mat .dense); name the format");
}

const char* to_string(Format f) {
  switch (f) {
    case Format::automatic: return "auto";
    case Format::nthu_bin: return "bin";
    case Format::dimacs: return "dimacs";
    case Format::matrix_market: return "mtx";
    case Format::edge_list: return "edges";
    case Format::npy: return "npy";
    case Format::text_matrix: return "text-matrix";
    case Format::bin_f32: return "bin-f32";
    case Format::bin_f64: return "bin-f64";
    case Format::coordinate: return "coordinate";
  }
  return "?";
}

AnyGraph read_any_graph(const std::string& path, const ReadOptions& opts) {
  resolve(opts.format, path);  // an unknown extension fails before the file is opened
  return std::move(detail::read_graph_from(detail::InputFile(path), opts).graph);
}

Graph read_graph(const std::string& path, const ReadOptions& opts) {
  resolve(opts.format, path);
  detail::ReadGraph read = detail::read_graph_from(detail::InputFile(path), opts);
  if (read.not_int32) throw *read.not_int32;
  return std::get<Graph>(std::move(read.graph));
}

void write_graph(const std::string& path, const Graph& g, Format format) {
  switch (resolve(format, path)) {
    case Format::automatic:
    case Format::nthu_bin: return detail::write_nthu_bin(path, g);
    case Format::dimacs: return detail::write_dimacs(path, g);
    case Format::matrix_market: return detail::write_matrix_market(path, g);
    case Format::edge_list: return detail::write_edge_list(path, g);
    case Format::npy: return detail::write_npy_graph(path, g);
    case Format::text_matrix: return detail::write_text_matrix_graph(path, g);
    case Format::coordinate: coordinate_is_input_only(path);
    case Format::bin_f32:
    case Format::bin_f64: not_a_graph_format(format, path);
  }
}

void write_graph(const std::string& path, const GraphF64& g, Format format) {
  const Format resolved = resolve(format, path);
  switch (resolved) {
    case Format::dimacs: return detail::write_dimacs(path, g);
    case Format::matrix_market: return detail::write_matrix_market(path, g);
    case Format::edge_list: return detail::write_edge_list(path, g);
    case Format::npy: return detail::write_npy_graph(path, g);
    case Format::automatic:
    case Format::nthu_bin:
    case Format::text_matrix:
      throw UsageError(std::string("cannot write a real-valued graph to ") + path + ": the " + to_string(resolved) +
                       " format holds integer weights; use .gr, .mtx, .txt or .npy");
    case Format::coordinate: coordinate_is_input_only(path);
    case Format::bin_f32:
    case Format::bin_f64: not_a_graph_format(resolved, path);
  }
}

void check_graph_output(const std::string& path, std::int64_t n, weight_t min_weight, weight_t max_weight,
                        Format format) {
  switch (resolve(format, path)) {
    case Format::npy: return detail::check_npy_graph_output(path, n);
    case Format::text_matrix: return detail::check_text_matrix_graph_output(path, n, min_weight, max_weight);
    default: return;  // the sparse formats hold any n that fits vertex_t
  }
}

void write_matrix(const std::string& path, Span<const std::int32_t> m, std::int64_t n, Format format,
                  std::int32_t unreachable) {
  detail::MatrixFileWriter writer(path, format, unreachable, "matrix");
  check_square(m, n, path);
  writer.begin(n, Element::int32);
  try {
    put_in_blocks(n, static_cast<std::size_t>(n) * sizeof(std::int32_t),
                  [&](std::int64_t first, std::int64_t rows) { writer.put(first, rows, n, m.data() + first * n); });
    writer.commit();
  } catch (...) {
    writer.discard();
    throw;
  }
}

std::vector<std::int32_t> read_matrix(const std::string& path, std::int64_t& n, Format format) {
  const Format resolved = resolve(format, path);
  refuse_graph_format(resolved, path);
  return detail::read_matrix_from(detail::InputFile(path), n, resolved);
}

namespace detail {

ReadGraph read_graph_from(const InputFile& file, const ReadOptions& opts) {
  const Format format = resolve(opts.format, file.path());
  try {
    GraphBuilder g;
    switch (format) {
      case Format::automatic:
      case Format::nthu_bin: {
        const Graph bin = read_nthu_bin(file);  // int32 weights by definition
        return ReadGraph{opts.undirected ? symmetrize(bin) : bin, std::nullopt};
      }
      case Format::dimacs: read_dimacs(file, g); break;
      case Format::matrix_market: read_matrix_market(file, g, opts.note); break;
      case Format::coordinate: read_coordinate(file, g); break;
      case Format::edge_list: read_edge_list(file, g); break;
      case Format::npy: read_npy_graph(file, opts.no_edge_value, g); break;
      case Format::text_matrix: read_text_matrix_graph(file, opts.no_edge_value, g); break;
      case Format::bin_f32:
      case Format::bin_f64: not_a_graph_format(format, file.path());
    }
    return g.finish(opts.undirected);
  } catch (const std::bad_alloc&) {
    throw ResourceError("out of memory while reading the graph in " + file.path());
  }
}

std::vector<std::int32_t> read_matrix_from(const InputFile& file, std::int64_t& n, Format format) {
  const Format resolved = resolve(format, file.path());
  try {
    switch (resolved) {
      case Format::dimacs:
      case Format::matrix_market:
      case Format::coordinate: not_a_matrix_format(resolved, file.path());
      case Format::npy: return read_npy_matrix(file, n);
      case Format::edge_list:
      case Format::text_matrix: return read_text_matrix<std::int32_t>(file, n);
      case Format::automatic:
      case Format::nthu_bin: return read_bin_matrix(file, n);
      case Format::bin_f32:
      case Format::bin_f64: refuse_graph_format(resolved, file.path());
    }
  } catch (const std::bad_alloc&) {
    throw ResourceError("out of memory while reading the matrix in " + file.path());
  }
  return {};
}

}  // namespace detail

template <class T>
struct BasicMatrixFile<T>::Storage {
  explicit Storage(const std::string& path) : file(path) {}
  detail::InputFile file;
  std::vector<T> converted;  // when the file cannot be viewed in place
};

namespace {

// The type of the values a raw binary matrix format holds.
WeightType raw_binary_type(Format format) {
  return format == Format::bin_f32   ? WeightType::float32
         : format == Format::bin_f64 ? WeightType::float64
                                     : WeightType::int32;
}

}  // namespace

template <class T>
BasicMatrixFile<T>::BasicMatrixFile(const std::string& path, Format format) {
  constexpr WeightType wanted = weight_type_of<T>;
  const Format resolved = resolve(format, path);
  if (resolved == Format::dimacs || resolved == Format::matrix_market) detail::not_a_matrix_format(resolved, path);
  storage_ = std::make_unique<Storage>(path);
  const detail::InputFile& file = storage_->file;
  try {
    switch (resolved) {
      case Format::npy:
        data_ = detail::npy_cells_in_place<T>(file, n_);
        if (data_) break;
        if constexpr (std::is_integral_v<T>)
          storage_->converted = detail::read_npy_matrix(file, n_);
        else
          storage_->converted = detail::read_npy_real_matrix<T>(file, n_);
        break;
      case Format::edge_list:
      case Format::text_matrix: storage_->converted = detail::read_text_matrix<T>(file, n_); break;
      default: {
        const WeightType stored = raw_binary_type(resolved);
        if (stored != wanted)
          throw InputError(std::string("the matrix holds ") + to_string(stored) + " values (" + to_string(resolved) +
                               "), not " + to_string(wanted),
                           path);
        n_ = detail::bin_matrix_side(file, sizeof(T), to_string(wanted));
        const char* bytes = file.bytes().data();
        if (reinterpret_cast<std::uintptr_t>(bytes) % alignof(T) == 0) {
          data_ = reinterpret_cast<const T*>(bytes);
        } else {
          storage_->converted.resize(static_cast<std::size_t>(n_ * n_));
          if (n_ > 0) std::memcpy(storage_->converted.data(), bytes, file.size());
        }
        if constexpr (std::is_floating_point_v<T>) {
          const T* cells = data_ ? data_ : storage_->converted.data();
          for (std::int64_t k = 0; k < n_ * n_; ++k)
            if (std::isnan(cells[k]))
              throw InputError("cell (" + std::to_string(k / n_) + ", " + std::to_string(k % n_) + ") is NaN",
                               file.at_byte(static_cast<std::uint64_t>(k) * sizeof(T)));
        }
        break;
      }
    }
  } catch (const std::bad_alloc&) {
    throw ResourceError("out of memory while reading the matrix in " + path);
  }
  in_place_ = data_ != nullptr;
  if (!in_place_) data_ = storage_->converted.data();
}

template <class T>
BasicMatrixFile<T>::~BasicMatrixFile() = default;

template class BasicMatrixFile<std::int32_t>;
template class BasicMatrixFile<float>;
template class BasicMatrixFile<double>;

std::optional<WeightType> stored_matrix_type(const std::string& path, Format format) {
  const Format resolved = resolve(format, path);
  switch (resolved) {
    case Format::dimacs:
    case Format::matrix_market: detail::not_a_matrix_format(resolved, path);
    case Format::npy: return detail::npy_stored_type(detail::InputFile(path));
    case Format::edge_list:
    case Format::text_matrix: return std::nullopt;
    default: return raw_binary_type(resolved);
  }
}

namespace detail {

void not_a_matrix_format(Format format, const std::string& path) {
  throw UsageError(std::string("matrices are stored as .bin, .npy or .txt, not as ") + to_string(format) + " (" + path +
                   ")");
}

}  // namespace detail

}  // namespace apsp::io
