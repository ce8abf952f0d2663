// Matrix Market coordinate files as graphs: entry (i, j, v) is the edge
// i-1 -> j-1 of weight v. Banner "%%MatrixMarket matrix coordinate FIELD
// SYMMETRY" with FIELD integer (a real value there is an error), real (any
// number: a real-valued graph unless every value is an int32) or pattern
// (weight 1) and SYMMETRY general or symmetric (each off-diagonal entry both ways).
//
// The network repository's coordinate files (Format::coordinate) have no
// banner: a size line "n n m" first, then m lines "i j [w]" (1-based, weight
// 1 when absent), each an edge i-1 -> j-1. A .mtx file whose first line is
// such a size line is read as one, and the caller is told so (ReadOptions::note).
#include <algorithm>
#include <cctype>
#include <functional>
#include <string>
#include <type_traits>

#include "apsp/error.hpp"
#include "io/formats.hpp"
#include "io/text.hpp"

namespace apsp::io::detail {
namespace {

// optional: the coordinate dialect's "i j [w]", an integer or real weight, 1 when absent.
enum class Field { integer, real, pattern, optional };

// The shortest entry line, "1 1\n".
constexpr std::uint64_t kShortestEntryLine = 4;

std::string lower(std::string_view word) {
  std::string out(word);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

struct Banner {
  Field field = Field::integer;
  bool symmetric = false;
};

Banner parse_banner(const TextCursor& text) {
  Tokens tokens(text.line());
  const auto magic = tokens.next();
  if (!magic || lower(*magic) != "%%matrixmarket")
    throw InputError("missing '%%MatrixMarket' banner on the first line", text.here());
  const std::string object = lower(text.require(tokens, "object (matrix) in the banner"));
  const std::string layout = lower(text.require(tokens, "format (coordinate) in the banner"));
  const std::string field = lower(text.require(tokens, "field (integer, real or pattern) in the banner"));
  const std::string symmetry = lower(text.require(tokens, "symmetry (general or symmetric) in the banner"));
  text.require_end(tokens);
  if (object != "matrix") throw InputError("object " + quoted(object) + " is not 'matrix'", text.here());
  if (layout == "array")
    throw InputError("dense 'array' Matrix Market files are not supported; use the 'coordinate' format", text.here());
  if (layout != "coordinate") throw InputError("format " + quoted(layout) + " is not 'coordinate'", text.here());
  Banner banner;
  if (field == "integer") {
    banner.field = Field::integer;
  } else if (field == "real" || field == "double") {
    banner.field = Field::real;
  } else if (field == "pattern") {
    banner.field = Field::pattern;
  } else if (field == "complex") {
    throw InputError("complex matrices cannot be graphs: weights must be real numbers", text.here());
  } else {
    throw InputError("field " + quoted(field) + " is not integer, real or pattern", text.here());
  }
  if (symmetry == "symmetric") {
    banner.symmetric = true;
  } else if (symmetry != "general") {
    throw InputError("symmetry " + quoted(symmetry) + " is not supported (only general or symmetric)", text.here());
  }
  return banner;
}

// Moves to the next line that is neither blank nor a '%' comment.
bool next_content_line(TextCursor& text) {
  while (text.next_line()) {
    const std::string_view content = Tokens::trim_front(text.line());
    if (!content.empty() && content.front() != '%') return true;
  }
  return false;
}

// Adds the edge of one entry: an integer value in an integer file (a real
// one there is refused), any number in a real file, weight 1 in a pattern.
void add_entry(GraphBuilder& g, vertex_t src, vertex_t dst, std::string_view token, Field field,
               const LineLocation& location) {
  switch (field) {
    case Field::pattern: return g.add_integer(src, dst, 1, location);
    case Field::integer:
      if (const auto value = to_int64(token)) return g.add_integer(src, dst, *value, location);
      if (to_double(token))
        throw InputError("real value " + quoted(token) + " in a Matrix Market file whose field is integer", location);
      throw InputError("expected an integer value, found " + quoted(token), location);
    case Field::real:
      if (const auto value = to_double(token)) return g.add_real(src, dst, *value, token, location);
      throw InputError("expected a number for the value, found " + quoted(token), location);
    case Field::optional: return add_weight_token(g, src, dst, token, location);
  }
}

bool is_banner(std::string_view line) {
  Tokens tokens(line);
  const auto magic = tokens.next();
  return magic && lower(*magic) == "%%matrixmarket";
}

// True when `line` is a size line "rows columns entries" of three integers.
bool is_size_line(std::string_view line) {
  Tokens tokens(line);
  for (int k = 0; k < 3; ++k) {
    const auto token = tokens.next();
    if (!token || !to_int64(*token)) return false;
  }
  return !tokens.next();
}

// The size line at the cursor, checked: sets g.n, reserves the edges and
// returns the declared entry count.
std::int64_t read_size_line(const InputFile& file, const TextCursor& text, GraphBuilder& g, bool symmetric) {
  Tokens size_tokens(text.line());
  const auto rows = parse_integer(text.require(size_tokens, "row count"), "row count", text.here());
  const auto columns = parse_integer(text.require(size_tokens, "column count"), "column count", text.here());
  const auto entries = parse_integer(text.require(size_tokens, "entry count"), "entry count", text.here());
  text.require_end(size_tokens);
  if (rows != columns)
    throw InputError("the matrix is " + std::to_string(rows) + " x " + std::to_string(columns) +
                         "; a graph needs a square one",
                     text.here());
  if (entries < 0) throw InputError("negative entry count " + std::to_string(entries), text.here());
  // Checked before the count is used (doubled for symmetric files), so that
  // no declared count can overflow or ask for memory the file cannot fill.
  // The last line may lack its newline, hence the + 1.
  if (static_cast<std::uint64_t>(entries) > (file.size() + 1) / kShortestEntryLine)
    throw InputError("the size line declares " + std::to_string(entries) + " entries, more than the " +
                         std::to_string(file.size()) + " bytes of the file can hold",
                     text.here());
  g.n = checked_vertex_count(rows, text.here());
  reserve_declared_edges(g, symmetric ? 2 * entries : entries, file.size(),
                         symmetric ? kShortestEntryLine / 2 : kShortestEntryLine, file.path());
  return entries;
}

// The entry lines after the size line (the cursor is on it), exactly `entries` of them.
void read_entries(TextCursor& text, GraphBuilder& g, std::int64_t entries, const Banner& banner) {
  const std::int64_t size_line = text.line_number();
  std::int64_t found = 0;
  while (next_content_line(text)) {
    if (found == entries)
      throw InputError("more entries than the " + std::to_string(entries) + " declared on line " +
                           std::to_string(size_line),
                       text.here());
    Tokens tokens(text.line());
    const auto row = parse_integer(text.require(tokens, "row index"), "row index", text.here());
    const auto column = parse_integer(text.require(tokens, "column index"), "column index", text.here());
    std::string_view value = "1";
    if (banner.field == Field::optional) {
      if (const auto token = tokens.next()) value = *token;
    } else if (banner.field != Field::pattern) {
      value = text.require(tokens, "value");
    }
    text.require_end(tokens);
    const vertex_t src = checked_vertex(row, 1, g.n, text.here());
    const vertex_t dst = checked_vertex(column, 1, g.n, text.here());
    add_entry(g, src, dst, value, banner.field, text.here());
    if (banner.symmetric && src != dst) add_entry(g, dst, src, value, banner.field, text.here());
    ++found;
  }
  if (found != entries)
    throw InputError("found " + std::to_string(found) + " entries but line " + std::to_string(size_line) +
                         " declares " + std::to_string(entries),
                     text.at_last_line());
}

// The network repository's coordinate list from its size line (the cursor is on it).
void read_coordinate_entries(const InputFile& file, TextCursor& text, GraphBuilder& g) {
  const std::int64_t entries = read_size_line(file, text, g, false);
  read_entries(text, g, entries, Banner{Field::optional, false});
}

}  // namespace

void read_matrix_market(const InputFile& file, GraphBuilder& g, const std::function<void(const std::string&)>& note) {
  TextCursor text(file);
  if (!text.next_line()) throw InputError("empty file: missing '%%MatrixMarket' banner", text.at_last_line());
  if (!is_banner(text.line())) {
    const std::string_view first = Tokens::trim_front(text.line());
    if ((first.empty() || first.front() == '%') && !next_content_line(text))
      throw InputError("no '%%MatrixMarket' banner and no size line 'n n m'", text.at_last_line());
    if (!is_size_line(text.line()))
      throw InputError("unknown header " + quoted(Tokens::trim_front(text.line()).substr(0, 40)) +
                           ": expected a '%%MatrixMarket matrix coordinate ...' banner or the network repository's "
                           "size line 'n n m' (--format names another format)",
                       text.here());
    if (note)
      note(file.path() + ": no '%%MatrixMarket' banner; read as the network repository's coordinate list "
                         "(size line 'n n m', then 'i j [w]' edges i -> j, 1-based, weight 1 when absent; "
                         "--undirected if each edge goes both ways)");
    return read_coordinate_entries(file, text, g);
  }
  const Banner banner = parse_banner(text);
  if (!next_content_line(text)) throw InputError("missing the size line 'rows columns entries'", text.at_last_line());
  const std::int64_t entries = read_size_line(file, text, g, banner.symmetric);
  read_entries(text, g, entries, banner);
}

void read_coordinate(const InputFile& file, GraphBuilder& g) {
  TextCursor text(file);
  if (!next_content_line(text))
    throw InputError("missing the size line 'n n m' of a coordinate list", text.at_last_line());
  read_coordinate_entries(file, text, g);
}

namespace {

template <class W>
void write_matrix_market_typed(const std::string& path, const BasicGraph<W>& g) {
  const std::string n = std::to_string(g.n);
  const std::string field = std::is_integral<W>::value ? "integer" : "real";
  write_edge_file(path, g,
                  "%%MatrixMarket matrix coordinate " + field + " general\n% written by apsp\n" + n + " " + n + " " +
                      std::to_string(g.edges.size()) + "\n",
                  "", 1);
}

}  // namespace

void write_matrix_market(const std::string& path, const Graph& g) { write_matrix_market_typed(path, g); }
void write_matrix_market(const std::string& path, const GraphF64& g) { write_matrix_market_typed(path, g); }

}  // namespace apsp::io::detail
