// Readers and writers of each format, behind the public read_graph /
// write_graph / read_matrix in io.cpp, and the pieces of the matrix formats
// that the file sinks (src/io/matrix_file.*) write matrices with.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "io/files.hpp"
#include "io/graph_builder.hpp"

namespace apsp::io::detail {

// read_any_graph / read_graph and read_matrix on an open file: the one
// dispatch to the readers, for files on disk and bytes in memory alike. An
// automatic format comes from file.path()'s extension.
ReadGraph read_graph_from(const InputFile& file, const ReadOptions& opts);
std::vector<std::int32_t> read_matrix_from(const InputFile& file, std::int64_t& n, Format format);

Graph read_nthu_bin(const InputFile& file);
void write_nthu_bin(const std::string& path, const Graph& g);
std::vector<std::int32_t> read_bin_matrix(const InputFile& file, std::int64_t& n);
// The side n of the n x n matrix of `value_bytes`-byte values (named
// `value_name` in messages) a raw binary file holds; InputError if none.
std::int64_t bin_matrix_side(const InputFile& file, std::size_t value_bytes = sizeof(std::int32_t),
                             const char* value_name = "int32");

// The text and dense readers add their edges to `g` and set g.n.
void read_dimacs(const InputFile& file, GraphBuilder& g);
void write_dimacs(const std::string& path, const Graph& g);
void write_dimacs(const std::string& path, const GraphF64& g);

// `note` (when set) is told that a .mtx file without banner was read as the
// network repository's coordinate list.
void read_matrix_market(const InputFile& file, GraphBuilder& g, const std::function<void(const std::string&)>& note);
// The network repository's coordinate list: "n n m", then m lines "i j [w]", 1-based.
void read_coordinate(const InputFile& file, GraphBuilder& g);
void write_matrix_market(const std::string& path, const Graph& g);     // field integer
void write_matrix_market(const std::string& path, const GraphF64& g);  // field real

void read_edge_list(const InputFile& file, GraphBuilder& g);
void write_edge_list(const std::string& path, const Graph& g);
void write_edge_list(const std::string& path, const GraphF64& g);

// Dense graph readers take ReadOptions::no_edge_value as given (see io.hpp);
// real cells that are +inf or NaN mean no edge too.
void read_npy_graph(const InputFile& file, std::optional<std::int64_t> no_edge_value, GraphBuilder& g);
void write_npy_graph(const std::string& path, const Graph& g);
void write_npy_graph(const std::string& path, const GraphF64& g);
void check_npy_graph_output(const std::string& path, std::int64_t n);
std::vector<std::int32_t> read_npy_matrix(const InputFile& file, std::int64_t& n);
// Sets n; returns where the cells lie in the file when they are C-order
// little-endian T (int32, float, double) at an aligned offset (viewable in
// place), else null.
template <class T>
const T* npy_cells_in_place(const InputFile& file, std::int64_t& n);
// The type of the cells: float32 / float64 for <f4 / <f8, int32 for the
// integer dtypes (which result matrices convert from).
WeightType npy_stored_type(const InputFile& file);
// A float .npy matrix of exactly T's dtype (<f4 for float, <f8 for double),
// C or Fortran order, into memory. InputError naming both types for another
// dtype, and naming the cell for a NaN.
template <class T>
std::vector<T> read_npy_real_matrix(const InputFile& file, std::int64_t& n);
// The .npy prelude and header of a C-order n x n array of `descr` ("<i4",
// "<f8"), padded so that the data starts at a multiple of 64 bytes.
std::string npy_header(std::int64_t n, const char* descr);
// The same for a rows x columns matrix (a part of the result: some sources, some targets).
std::string npy_header(std::int64_t rows, std::int64_t columns, const char* descr);

// The labs' text matrix: "n" then n rows of n integers, no_edge_value (-1
// unless given) = no edge. Output writes -1 for no edge, so it refuses -1
// weights, and a weight range that holds -1 up front.
void read_text_matrix_graph(const InputFile& file, std::optional<std::int64_t> no_edge_value, GraphBuilder& g);
void write_text_matrix_graph(const std::string& path, const Graph& g);
void check_text_matrix_graph_output(const std::string& path, std::int64_t n, weight_t min_weight, weight_t max_weight);
// Result matrices as text: n rows of n values. T = std::int32_t: integers
// and "INF" (kInf) for unreachable; a real token is an InputError. T = float
// / double: numbers parsed as T (so the shortest text of a float reads back
// exactly), "inf" or "INF" for +infinity; NaN is an InputError.
template <class T>
std::vector<T> read_text_matrix(const InputFile& file, std::int64_t& n);
// Appends `rows` text rows of n space-separated values, each ended by '\n';
// row r starts at cells + r * stride. Cells equal to shown_as_inf print "INF".
void append_text_rows(std::string& out, const std::int32_t* cells, std::int64_t rows, std::int64_t n,
                      std::int64_t stride, std::optional<std::int32_t> shown_as_inf);
// The same for real values: each the shortest text that reads back as the
// same float / double ("0.1", "1e+30"), "inf" for unreachable (+infinity).
void append_text_rows(std::string& out, const float* cells, std::int64_t rows, std::int64_t n, std::int64_t stride);
void append_text_rows(std::string& out, const double* cells, std::int64_t rows, std::int64_t n, std::int64_t stride);
// Text matrices (results and dense graphs) are refused above this many vertices.
inline constexpr std::int64_t kTextMaxVertices = 4096;
// Throws UsageError naming `path` when n exceeds kTextMaxVertices.
void refuse_large_text(const std::string& path, std::int64_t n);

// Throws UsageError: `format` (dimacs, mtx) holds graphs, not matrices.
[[noreturn]] void not_a_matrix_format(Format format, const std::string& path);

// Throws InputError when n does not fit vertex_t or an edge has a vertex
// outside 0..n-1: such a graph cannot be written in any format.
template <class W>
void check_graph_for_output(const BasicGraph<W>& g, const std::string& path);

// Reserves room for a declared edge count, capped by what a file of
// `file_bytes` can hold at `min_bytes_per_edge`, so a lying header cannot
// force a huge allocation. Throws ResourceError when even that fails.
void reserve_declared_edges(GraphBuilder& g, std::int64_t declared, std::uint64_t file_bytes,
                            std::uint64_t min_bytes_per_edge, const std::string& path);

// Writes a sparse text graph: `header` as given, then one line per edge:
// prefix, src + base, dst + base, w (real weights as the shortest text that
// reads back as the same double).
template <class W>
void write_edge_file(const std::string& path, const BasicGraph<W>& g, const std::string& header,
                     std::string_view prefix, int base);

// Throws UsageError when a dense graph of n vertices exceeds a format's
// max_vertices; the dense writers and check_graph_output share it.
void check_dense_size(const std::string& path, std::int64_t n, std::int64_t max_vertices);

// Dense adjacency written by the dense graph writers, n x n row-major:
// `no_edge` where there is no edge, 0 on the diagonal unless a negative
// self-loop is lighter, the minimum weight of parallel edges. Throws
// UsageError when n exceeds max_vertices or an edge weighs `no_edge` (it
// would read back as no edge; a float +inf marker never clashes). Defined for
// Cell = double with W = int32 or double, and Cell = std::int32_t with W = int32.
template <class Cell, class W>
std::vector<Cell> dense_cells_for_output(const BasicGraph<W>& g, const std::string& path, std::int64_t max_vertices,
                                         Cell no_edge);
// Throws the UsageError for weights (`which`: "edge 3 (0 -> 1) weighs -1",
// "weights -3:9 include -1") that a dense format would read as no edge.
[[noreturn]] void refuse_dense_no_edge_weight(const std::string& path, const std::string& which);

// The no-edge value of integer dense cells when ReadOptions leaves it unset.
inline constexpr std::int64_t kDefaultIntegerNoEdge = -1;

// Adds the edge that dense cell (row, col) = value stands for: none for
// no_edge_value, a non-negative diagonal, +inf or NaN. Integer values beyond
// int32 and real ones make the graph real-valued (GraphBuilder); -inf is an
// InputError at `where`.
template <class Location>
void add_dense_cell(GraphBuilder& g, std::int64_t row, std::int64_t col, std::int64_t value,
                    std::optional<std::int64_t> no_edge_value, const Location& where) {
  if (value == no_edge_value || (row == col && value >= 0)) return;
  g.add_integer(static_cast<vertex_t>(row), static_cast<vertex_t>(col), value, where);
}
template <class Location>
void add_dense_cell(GraphBuilder& g, std::int64_t row, std::int64_t col, double value, std::string_view text,
                    std::optional<std::int64_t> no_edge_value, const Location& where) {
  if (std::isnan(value) || (no_edge_value && value == static_cast<double>(*no_edge_value)) ||
      (row == col && value >= 0))
    return;
  g.add_real(static_cast<vertex_t>(row), static_cast<vertex_t>(col), value, text, where);
}

}  // namespace apsp::io::detail
