// NumPy .npy files (format versions 1, 2 and 3) holding a 2-D square array.
// Input: signed or unsigned integers of 1 to 8 bytes or float32/float64, C or
// Fortran order, little-endian. Graphs: a float cell +inf or NaN means no
// edge, any other real value is a weight (a real-valued graph unless every
// weight is an int32). Matrices: integral values, +inf for unreachable. Output, C order, little-endian:
// matrices as int32; graphs as float64 with +inf for no edge, a marker no
// int32 weight can clash with (scipy: csgraph_from_dense(a, null_value=np.inf)).
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "io/formats.hpp"
#include "core/weights.hpp"
#include "io/text.hpp"

namespace apsp::io::detail {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kPreludeBytes = 8;  // magic and the two version bytes
constexpr std::size_t kHeaderAlignment = 64;
constexpr std::int64_t kGraphMaxVertices = 16384;  // a 2 GiB float64 dense adjacency

struct NpyArray {
  char kind = 'i';  // 'i' signed integer, 'u' unsigned integer, 'f' floating point
  std::size_t item_size = 4;
  bool fortran_order = false;
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::uint64_t data_offset = 0;
};

// The header dictionary, a Python literal such as
// {'descr': '<i4', 'fortran_order': False, 'shape': (3, 3), }
class HeaderParser {
 public:
  HeaderParser(const InputFile& file, std::uint64_t start, std::string_view text)
      : file_(file), start_(start), text_(text) {}

  NpyArray parse() {
    NpyArray array;
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    while (!accept('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        descr(array);
        has_descr = true;
      } else if (key == "fortran_order") {
        array.fortran_order = boolean();
        has_order = true;
      } else if (key == "shape") {
        shape(array);
        has_shape = true;
      } else {
        fail("unexpected key " + quoted(key));
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    if (!has_descr || !has_order || !has_shape) fail("the header lacks 'descr', 'fortran_order' or 'shape'");
    return array;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError("malformed NPY header: " + problem, file_.at_byte(start_ + at_));
  }
  void skip_spaces() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\t')) ++at_;
  }
  bool accept(char c) {
    skip_spaces();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  std::string string_literal() {
    skip_spaces();
    if (at_ >= text_.size() || (text_[at_] != '\'' && text_[at_] != '"')) fail("expected a quoted string");
    const char quote = text_[at_++];
    const std::size_t end = text_.find(quote, at_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(at_, end - at_));
    at_ = end + 1;
    return value;
  }
  bool boolean() {
    skip_spaces();
    for (const auto& [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}})
      if (text_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return value;
      }
    fail("expected True or False");
  }
  void descr(NpyArray& array) {
    skip_spaces();
    const std::size_t where = at_;
    const std::string type = string_literal();
    const auto size = type.size() >= 3 ? to_int64(std::string_view(type).substr(2)) : std::nullopt;
    const bool known_kind = type.size() >= 3 && (type[1] == 'i' || type[1] == 'u' || type[1] == 'f');
    const bool known_size =
        size && (type[1] == 'f' ? (*size == 4 || *size == 8) : (*size == 1 || *size == 2 || *size == 4 || *size == 8));
    if (!known_kind || !known_size) {
      at_ = where;
      fail("unsupported dtype " + quoted(type) + " (expected integers or float32/float64)");
    }
    const bool little_endian = type[0] == '<' || type[0] == '|' || type[0] == '=';
    if (!little_endian && *size > 1) {
      at_ = where;
      fail("big-endian dtype " + quoted(type) + " is not supported");
    }
    array.kind = type[1];
    array.item_size = static_cast<std::size_t>(*size);
  }
  void shape(NpyArray& array) {
    expect('(');
    std::vector<std::int64_t> sides;
    while (!accept(')')) {
      skip_spaces();
      std::size_t end = at_;
      while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9') ++end;
      const auto side = to_int64(text_.substr(at_, end - at_));
      if (!side) fail("expected a dimension");
      at_ = end;
      sides.push_back(*side);
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    if (sides.size() != 2 || sides[0] != sides[1]) {
      std::string shown;
      for (std::size_t k = 0; k < sides.size(); ++k) shown += (k ? ", " : "") + std::to_string(sides[k]);
      fail("shape (" + shown + ") is not a 2-D square array");
    }
    array.rows = sides[0];
    array.columns = sides[1];
  }

  const InputFile& file_;
  std::uint64_t start_;
  std::string_view text_;
  std::size_t at_ = 0;
};

NpyArray parse_npy(const InputFile& file) {
  const std::string_view bytes = file.bytes();
  if (bytes.substr(0, kMagic.size()) != kMagic)
    throw InputError("not an NPY file (no \\x93NUMPY magic)", file.at_byte(0));
  if (bytes.size() < kPreludeBytes + 2) throw InputError("truncated NPY prelude", file.at_byte(bytes.size()));
  const auto major = static_cast<unsigned char>(bytes[6]);
  std::uint64_t header_length = 0;
  std::uint64_t header_start = 0;
  if (major == 1) {
    header_length = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned>(static_cast<unsigned char>(bytes[9]))
                                                               << 8;
    header_start = kPreludeBytes + 2;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < kPreludeBytes + 4) throw InputError("truncated NPY prelude", file.at_byte(bytes.size()));
    for (int k = 3; k >= 0; --k) header_length = header_length << 8 | static_cast<unsigned char>(bytes[8 + k]);
    header_start = kPreludeBytes + 4;
  } else {
    throw InputError("unsupported NPY format version " + std::to_string(major), file.at_byte(6));
  }
  if (header_start + header_length > bytes.size())
    throw InputError("truncated NPY header: " + std::to_string(header_length) + " bytes declared, " +
                         std::to_string(bytes.size() - header_start) + " present",
                     file.at_byte(bytes.size()));
  NpyArray array = HeaderParser(file, header_start, bytes.substr(header_start, header_length)).parse();
  array.data_offset = header_start + header_length;
  const std::uint64_t cells_present = (bytes.size() - array.data_offset) / array.item_size;
  const auto rows = static_cast<std::uint64_t>(array.rows);
  if (array.rows > 0 && cells_present / rows < rows)
    throw InputError("truncated NPY data: a " + std::to_string(array.rows) + " x " + std::to_string(array.rows) +
                         " array of " + std::to_string(array.item_size) + "-byte cells does not fit the " +
                         std::to_string(bytes.size() - array.data_offset) + " data bytes present",
                     file.at_byte(bytes.size()));
  const std::uint64_t end = array.data_offset + rows * rows * array.item_size;
  if (end != bytes.size())
    throw InputError(std::to_string(bytes.size() - end) + " trailing bytes after the array data", file.at_byte(end));
  return array;
}

// Visits every cell as it is stored, as visit(row, column, cell, byte
// offset) with cell of the array's own type (T), in file order. Throws
// InputError for an unsigned value above int64.
template <class T, class Visit>
void visit_stored_cells_as(const InputFile& file, const NpyArray& array, Visit& visit) {
  const char* data = file.bytes().data() + array.data_offset;
  const std::int64_t n = array.rows;
  for (std::int64_t outer = 0; outer < n; ++outer)
    for (std::int64_t inner = 0; inner < n; ++inner) {
      const std::uint64_t index = static_cast<std::uint64_t>(outer * n + inner);
      T cell;
      std::memcpy(&cell, data + index * sizeof(T), sizeof(T));
      const std::int64_t row = array.fortran_order ? inner : outer;
      const std::int64_t column = array.fortran_order ? outer : inner;
      const std::uint64_t offset = array.data_offset + index * sizeof(T);
      if constexpr (std::is_unsigned_v<T>)
        if (cell > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          throw InputError("cell (" + std::to_string(row) + ", " + std::to_string(column) +
                               ") = " + std::to_string(cell) + " exceeds int64",
                           file.at_byte(offset));
      visit(row, column, cell, offset);
    }
}

// visit_stored_cells_as for the array's dtype.
template <class Visit>
void visit_stored_cells(const InputFile& file, const NpyArray& array, Visit visit) {
  const std::size_t size = array.item_size;
  switch (array.kind) {
    case 'f':
      if (size == 4) return visit_stored_cells_as<float>(file, array, visit);
      return visit_stored_cells_as<double>(file, array, visit);
    case 'u':
      if (size == 1) return visit_stored_cells_as<std::uint8_t>(file, array, visit);
      if (size == 2) return visit_stored_cells_as<std::uint16_t>(file, array, visit);
      if (size == 4) return visit_stored_cells_as<std::uint32_t>(file, array, visit);
      return visit_stored_cells_as<std::uint64_t>(file, array, visit);
    default:
      if (size == 1) return visit_stored_cells_as<std::int8_t>(file, array, visit);
      if (size == 2) return visit_stored_cells_as<std::int16_t>(file, array, visit);
      if (size == 4) return visit_stored_cells_as<std::int32_t>(file, array, visit);
      return visit_stored_cells_as<std::int64_t>(file, array, visit);
  }
}

// Visits every cell as visit(row, column, value, byte offset), value nullopt
// for +inf, in file order. Throws InputError for a float cell that is not an
// integer or +inf, and for an unsigned value above int64.
template <class Visit>
void visit_cells(const InputFile& file, const NpyArray& array, Visit visit) {
  visit_stored_cells(file, array, [&](std::int64_t row, std::int64_t column, auto cell, std::uint64_t offset) {
    std::optional<std::int64_t> value;
    if constexpr (std::is_floating_point_v<decltype(cell)>) {
      if (!(std::isinf(cell) && cell > 0)) {
        value = integral_value(static_cast<double>(cell));
        if (!value)
          throw InputError("cell (" + std::to_string(row) + ", " + std::to_string(column) +
                               ") = " + std::to_string(static_cast<double>(cell)) + " is not an integer",
                           file.at_byte(offset));
      }
    } else {
      value = static_cast<std::int64_t>(cell);
    }
    visit(row, column, value, offset);
  });
}

[[noreturn]] void cell_outside_int32(const InputFile& file, std::int64_t row, std::int64_t column, std::int64_t value,
                                     std::uint64_t offset) {
  throw InputError("cell (" + std::to_string(row) + ", " + std::to_string(column) + ") = " + std::to_string(value) +
                       " is outside int32",
                   file.at_byte(offset));
}

}  // namespace

namespace {

// The .npy element of T: kind ('i' or 'f') and size.
template <class T>
bool stored_as(const NpyArray& array) {
  return array.kind == (std::is_floating_point_v<T> ? 'f' : 'i') && array.item_size == sizeof(T);
}

const char* type_name(const NpyArray& array) {
  if (array.kind != 'f') return "integer";
  return array.item_size == sizeof(float) ? "float32" : "float64";
}

}  // namespace

template <class T>
const T* npy_cells_in_place(const InputFile& file, std::int64_t& n) {
  const NpyArray array = parse_npy(file);
  n = array.rows;
  const char* cells = file.bytes().data() + array.data_offset;
  const bool aligned = reinterpret_cast<std::uintptr_t>(cells) % alignof(T) == 0;
  return stored_as<T>(array) && !array.fortran_order && aligned ? reinterpret_cast<const T*>(cells) : nullptr;
}
template const std::int32_t* npy_cells_in_place<std::int32_t>(const InputFile&, std::int64_t&);
template const float* npy_cells_in_place<float>(const InputFile&, std::int64_t&);
template const double* npy_cells_in_place<double>(const InputFile&, std::int64_t&);

WeightType npy_stored_type(const InputFile& file) {
  const NpyArray array = parse_npy(file);
  if (array.kind != 'f') return WeightType::int32;
  return array.item_size == sizeof(float) ? WeightType::float32 : WeightType::float64;
}

template <class T>
std::vector<T> read_npy_real_matrix(const InputFile& file, std::int64_t& n) {
  const NpyArray array = parse_npy(file);
  if (!stored_as<T>(array))
    throw InputError(std::string("the matrix holds ") + type_name(array) + " values, not " +
                         to_string(weight_type_of<T>),
                     file.path());
  const auto cells = static_cast<std::size_t>(array.rows * array.rows);
  std::vector<T> m;
  try {
    m.resize(cells);
  } catch (const std::bad_alloc&) {
    throw ResourceError("cannot allocate " + std::to_string(cells * sizeof(T)) + " bytes for the matrix in " +
                        file.path());
  }
  visit_stored_cells(file, array, [&](std::int64_t row, std::int64_t column, auto cell, std::uint64_t offset) {
    if constexpr (std::is_same_v<decltype(cell), T>) {
      if (std::isnan(cell))
        throw InputError("cell (" + std::to_string(row) + ", " + std::to_string(column) + ") is NaN",
                         file.at_byte(offset));
      m[static_cast<std::size_t>(row * array.rows + column)] = cell;
    }
  });
  n = array.rows;
  return m;
}
template std::vector<float> read_npy_real_matrix<float>(const InputFile&, std::int64_t&);
template std::vector<double> read_npy_real_matrix<double>(const InputFile&, std::int64_t&);

namespace {

// The position of a cell, rendered only when an error is thrown.
struct CellLocation {
  const InputFile& file;
  std::uint64_t offset;
  operator std::string() const { return file.at_byte(offset); }
};

}  // namespace

void read_npy_graph(const InputFile& file, std::optional<std::int64_t> no_edge_value, GraphBuilder& g) {
  const NpyArray array = parse_npy(file);
  // Integer cells have no +inf: unset, their no-edge value is the labs' -1.
  if (array.kind != 'f' && !no_edge_value) no_edge_value = kDefaultIntegerNoEdge;
  // rows*rows cells fit the file, far below 2^62 bytes, so the side fits int32.
  g.n = array.rows;
  auto visit = [&](std::int64_t row, std::int64_t column, auto cell, std::uint64_t offset) {
    const CellLocation where{file, offset};
    if constexpr (std::is_floating_point_v<decltype(cell)>) {
      add_dense_cell(g, row, column, static_cast<double>(cell), core::format_weight(static_cast<double>(cell)),
                     no_edge_value, where);
    } else {
      add_dense_cell(g, row, column, static_cast<std::int64_t>(cell), no_edge_value, where);
    }
  };
  visit_stored_cells(file, array, visit);
}

std::vector<std::int32_t> read_npy_matrix(const InputFile& file, std::int64_t& n) {
  const NpyArray array = parse_npy(file);
  const auto cells = static_cast<std::size_t>(array.rows * array.rows);
  std::vector<std::int32_t> m;
  try {
    m.resize(cells);
  } catch (const std::bad_alloc&) {
    throw ResourceError("cannot allocate " + std::to_string(cells * sizeof(std::int32_t)) +
                        " bytes for the matrix in " + file.path());
  }
  if (stored_as<std::int32_t>(array) && !array.fortran_order) {
    if (cells > 0) std::memcpy(m.data(), file.bytes().data() + array.data_offset, cells * sizeof(std::int32_t));
  } else {
    visit_cells(file, array,
                [&](std::int64_t row, std::int64_t column, std::optional<std::int64_t> value, std::uint64_t offset) {
                  const std::int64_t cell = value ? *value : kInf;
                  if (cell < std::numeric_limits<std::int32_t>::min() ||
                      cell > std::numeric_limits<std::int32_t>::max())
                    cell_outside_int32(file, row, column, cell, offset);
                  m[static_cast<std::size_t>(row * array.rows + column)] = static_cast<std::int32_t>(cell);
                });
  }
  n = array.rows;
  return m;
}

std::string npy_header(std::int64_t n, const char* descr) { return npy_header(n, n, descr); }

std::string npy_header(std::int64_t rows, std::int64_t columns, const char* descr) {
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(columns) + "), }";
  // NumPy pads the header with spaces and ends it with '\n' so that the data is aligned.
  const std::size_t unpadded = kPreludeBytes + 2 + header.size() + 1;
  header.append((kHeaderAlignment - unpadded % kHeaderAlignment) % kHeaderAlignment, ' ');
  header.push_back('\n');
  std::string prelude(kMagic);
  prelude.push_back('\x01');
  prelude.push_back('\x00');
  prelude.push_back(static_cast<char>(header.size() & 0xff));
  prelude.push_back(static_cast<char>(header.size() >> 8));
  return prelude + header;
}

namespace {

// Writes the header of an n x n array of dtype `descr`, then the n*n cells of
// `cell_bytes` bytes each at `cells`.
void write_npy(const std::string& path, const char* descr, const void* cells, std::size_t cell_bytes, std::int64_t n) {
  const std::string header = npy_header(n, descr);
  OutputFile out(path);
  out.write(header.data(), header.size());
  out.write(cells, static_cast<std::size_t>(n * n) * cell_bytes);
  out.close();
}

}  // namespace

void write_npy_graph(const std::string& path, const Graph& g) {
  const std::vector<double> cells =
      dense_cells_for_output(g, path, kGraphMaxVertices, std::numeric_limits<double>::infinity());
  write_npy(path, "<f8", cells.data(), sizeof(double), g.n);
}

void write_npy_graph(const std::string& path, const GraphF64& g) {
  const std::vector<double> cells =
      dense_cells_for_output(g, path, kGraphMaxVertices, std::numeric_limits<double>::infinity());
  write_npy(path, "<f8", cells.data(), sizeof(double), g.n);
}

void check_npy_graph_output(const std::string& path, std::int64_t n) { check_dense_size(path, n, kGraphMaxVertices); }

}  // namespace apsp::io::detail
