// Dense text matrices. Graph input is the labs' format: the vertex count n,
// then n*n numbers (row-major, any line breaks), no_edge_value (-1 unless
// given), inf or nan for no edge; real entries make a real-valued graph.
// Result matrices are n lines of n space-separated values, "INF" for unreachable.
#include <charconv>
#include <cmath>
#include <limits>
#include <new>
#include <optional>
#include <string_view>
#include <type_traits>

#include "apsp/error.hpp"
#include "io/formats.hpp"
#include "io/text.hpp"

namespace apsp::io::detail {
namespace {

constexpr std::string_view kInfText = "INF";

// The tokens of a text file in order, across lines.
class TokenStream {
 public:
  explicit TokenStream(TextCursor& text) : text_(text), tokens_(std::string_view()) {}
  std::optional<std::string_view> next() {
    for (;;) {
      if (const auto token = tokens_.next()) return token;
      if (!text_.next_line()) return std::nullopt;
      tokens_ = Tokens(text_.line());
    }
  }

 private:
  TextCursor& text_;
  Tokens tokens_;
};

}  // namespace

void read_text_matrix_graph(const InputFile& file, std::optional<std::int64_t> no_edge_value, GraphBuilder& g) {
  TextCursor text(file);
  TokenStream tokens(text);
  const auto count = tokens.next();
  if (!count) throw InputError("empty file: expected the vertex count n", text.at_last_line());
  g.n = checked_vertex_count(parse_integer(*count, "vertex count", text.here()), text.here());
  const std::int64_t cells = g.n * g.n;
  const std::optional<std::int64_t> no_edge = no_edge_value.value_or(kDefaultIntegerNoEdge);
  for (std::int64_t cell = 0; cell < cells; ++cell) {
    const auto token = tokens.next();
    if (!token)
      throw InputError("found " + std::to_string(cell) + " entries, expected n*n = " + std::to_string(cells),
                       text.at_last_line());
    const std::int64_t row = cell / g.n, column = cell % g.n;
    if (const auto integer = to_int64(*token)) {
      add_dense_cell(g, row, column, *integer, no_edge, text.here());
    } else if (const auto real = to_double(*token)) {
      add_dense_cell(g, row, column, *real, *token, no_edge, text.here());
    } else {
      throw InputError("expected a number as matrix entry, found " + quoted(*token), text.here());
    }
  }
  if (const auto extra = tokens.next())
    throw InputError("unexpected token " + quoted(*extra) + " after the n*n = " + std::to_string(cells) + " entries",
                     text.here());
}

void append_text_rows(std::string& out, const std::int32_t* cells, std::int64_t rows, std::int64_t n,
                      std::int64_t stride, std::optional<std::int32_t> shown_as_inf) {
  char digits[16];
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int32_t* values = cells + row * stride;
    for (std::int64_t column = 0; column < n; ++column) {
      if (column > 0) out.push_back(' ');
      if (values[column] == shown_as_inf) {
        out.append(kInfText);
      } else {
        const auto end = std::to_chars(digits, digits + sizeof digits, values[column]).ptr;
        out.append(digits, end);
      }
    }
    out.push_back('\n');
  }
}

namespace {

template <class T>
void append_real_rows(std::string& out, const T* cells, std::int64_t rows, std::int64_t n, std::int64_t stride) {
  char digits[32];  // the shortest round-trip double takes at most 24 characters
  for (std::int64_t row = 0; row < rows; ++row) {
    const T* values = cells + row * stride;
    for (std::int64_t column = 0; column < n; ++column) {
      if (column > 0) out.push_back(' ');
      if (std::isinf(values[column])) {
        out.append(values[column] > 0 ? "inf" : "-inf");
      } else {
        const auto end = std::to_chars(digits, digits + sizeof digits, values[column]).ptr;
        out.append(digits, end);
      }
    }
    out.push_back('\n');
  }
}

}  // namespace

void append_text_rows(std::string& out, const float* cells, std::int64_t rows, std::int64_t n, std::int64_t stride) {
  append_real_rows(out, cells, rows, n, stride);
}
void append_text_rows(std::string& out, const double* cells, std::int64_t rows, std::int64_t n, std::int64_t stride) {
  append_real_rows(out, cells, rows, n, stride);
}

void refuse_large_text(const std::string& path, std::int64_t n) {
  if (n > kTextMaxVertices)
    throw UsageError("cannot write " + path + " as text: " + std::to_string(n) + " vertices exceed the text limit of " +
                     std::to_string(kTextMaxVertices) + "; use .bin or .npy");
}

void write_text_matrix_graph(const std::string& path, const Graph& g) {
  const std::vector<std::int32_t> cells =
      dense_cells_for_output(g, path, kTextMaxVertices, static_cast<std::int32_t>(kDefaultIntegerNoEdge));
  write_text_file(path, [&](TextWriter& text) {
    text.number(g.n).character('\n');
    std::string row;
    for (std::int64_t r = 0; r < g.n; ++r) {
      row.clear();
      append_text_rows(row, cells.data() + r * g.n, 1, g.n, g.n, std::nullopt);
      text.text(row);
    }
  });
}

void check_text_matrix_graph_output(const std::string& path, std::int64_t n, weight_t min_weight, weight_t max_weight) {
  check_dense_size(path, n, kTextMaxVertices);
  if (min_weight <= kDefaultIntegerNoEdge && kDefaultIntegerNoEdge <= max_weight)
    refuse_dense_no_edge_weight(path, "weights " + std::to_string(min_weight) + ":" + std::to_string(max_weight) +
                                          " include " + std::to_string(kDefaultIntegerNoEdge));
}

namespace {

// One entry of a result matrix in text as T (see read_text_matrix).
template <class T>
T parse_matrix_entry(std::string_view token, const LineLocation& where) {
  if constexpr (std::is_integral_v<T>) {
    if (token == kInfText) return kInf;
    if (!to_int64(token) && to_double(token))
      throw InputError("entry " + quoted(token) + " is a real value, not an int32 distance", where);
    const auto value = parse_integer(token, "matrix entry or INF", where);
    if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
      throw InputError("entry " + std::to_string(value) + " is outside int32", where);
    return static_cast<std::int32_t>(value);
  } else {
    if (token == kInfText || token == "inf" || token == "+inf") return std::numeric_limits<T>::infinity();
    std::string_view digits = token;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    T value{};
    const char* end = digits.data() + digits.size();
    const auto parsed = std::from_chars(digits.data(), end, value, std::chars_format::general);
    if (digits.empty() || parsed.ec != std::errc() || parsed.ptr != end)
      throw InputError("expected a number or inf as matrix entry, found " + quoted(token), where);
    if (std::isnan(value)) throw InputError("entry " + quoted(token) + " is NaN", where);
    return value;
  }
}

}  // namespace

template <class T>
std::vector<T> read_text_matrix(const InputFile& file, std::int64_t& n) {
  TextCursor text(file);
  std::vector<T> m;
  std::int64_t rows = 0;
  n = 0;
  while (text.next_line()) {
    Tokens tokens(text.line());
    std::int64_t columns = 0;
    while (const auto token = tokens.next()) {
      m.push_back(parse_matrix_entry<T>(*token, text.here()));
      ++columns;
    }
    if (columns == 0) continue;
    if (rows == 0) {
      n = columns;
      // Room for n x n cells, but never more than the file can fill: each
      // value takes at least two bytes ("0 "), so a first row that promises
      // more rows than the file holds costs no allocation beyond its size.
      const std::uint64_t most_values = file.size() / 2 + 1;
      const auto side = static_cast<std::uint64_t>(n);
      const std::uint64_t cells = side > most_values / side ? most_values : side * side;
      try {
        m.reserve(static_cast<std::size_t>(cells));
      } catch (const std::bad_alloc&) {
        throw ResourceError("cannot allocate a " + std::to_string(n) + " x " + std::to_string(n) + " matrix for " +
                            file.path());
      }
    } else if (rows == n) {
      throw InputError("more than the n = " + std::to_string(n) + " rows the first row's length implies", text.here());
    }
    if (columns != n)
      throw InputError("row " + std::to_string(rows + 1) + " has " + std::to_string(columns) + " values, expected " +
                           std::to_string(n),
                       text.here());
    ++rows;
  }
  if (rows != n)
    throw InputError("found " + std::to_string(rows) + " rows, expected n = " + std::to_string(n), text.at_last_line());
  return m;
}
template std::vector<std::int32_t> read_text_matrix<std::int32_t>(const InputFile&, std::int64_t&);
template std::vector<float> read_text_matrix<float>(const InputFile&, std::int64_t&);
template std::vector<double> read_text_matrix<double>(const InputFile&, std::int64_t&);

}  // namespace apsp::io::detail
