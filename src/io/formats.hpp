// Readers and writers of each format, behind the public read_graph /
// write_graph / read_matrix in io.cpp, and the pieces of the matrix formats
// that the file sinks (src/sink/matrix_file.*) write matrices with.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "io/files.hpp"

namespace apsp::io::detail {

Graph read_nthu_bin(const InputFile& file);
void write_nthu_bin(const std::string& path, const Graph& g);
std::vector<std::int32_t> read_bin_matrix(const InputFile& file, std::int64_t& n);
// The side n of the n x n int32 matrix a .bin file holds; InputError if none.
std::int64_t bin_matrix_side(const InputFile& file);

Graph read_dimacs(const InputFile& file);
void write_dimacs(const std::string& path, const Graph& g);

Graph read_matrix_market(const InputFile& file);
void write_matrix_market(const std::string& path, const Graph& g);

Graph read_edge_list(const InputFile& file);
void write_edge_list(const std::string& path, const Graph& g);

Graph read_npy_graph(const InputFile& file, std::int64_t no_edge_value);
void write_npy_graph(const std::string& path, const Graph& g);
std::vector<std::int32_t> read_npy_matrix(const InputFile& file, std::int64_t& n);
// Sets n; returns where the cells lie in the file when they are C-order
// little-endian int32 at an aligned offset (viewable in place), else null.
const std::int32_t* npy_int32_cells(const InputFile& file, std::int64_t& n);
// The .npy prelude and header of a C-order n x n array of `descr` ("<i4",
// "<f8"), padded so that the data starts at a multiple of 64 bytes.
std::string npy_header(std::int64_t n, const char* descr);

// The labs' text matrix: "n" then n rows of n integers, no_edge_value = no edge.
Graph read_text_matrix_graph(const InputFile& file, std::int64_t no_edge_value);
void write_text_matrix_graph(const std::string& path, const Graph& g);
// Result matrices as text: n rows of n values, "INF" for unreachable.
std::vector<std::int32_t> read_text_matrix(const InputFile& file, std::int64_t& n);
// Appends `rows` text rows of n space-separated values, each ended by '\n';
// row r starts at cells + r * stride. Cells equal to shown_as_inf print "INF".
void append_text_rows(std::string& out, const std::int32_t* cells, std::int64_t rows, std::int64_t n,
                      std::int64_t stride, std::optional<std::int32_t> shown_as_inf);
// Text matrices (results and dense graphs) are refused above this many vertices.
inline constexpr std::int64_t kTextMaxVertices = 4096;
// Throws UsageError naming `path` when n exceeds kTextMaxVertices.
void refuse_large_text(const std::string& path, std::int64_t n);

// Throws UsageError: `format` (dimacs, mtx) holds graphs, not matrices.
[[noreturn]] void not_a_matrix_format(Format format, const std::string& path);

// Throws InputError when n does not fit vertex_t or an edge has a vertex
// outside 0..n-1: such a graph cannot be written in any format.
void check_graph_for_output(const Graph& g, const std::string& path);

// Reserves room for a declared edge count, capped by what a file of
// `file_bytes` can hold at `min_bytes_per_edge`, so a lying header cannot
// force a huge allocation. Throws ResourceError when even that fails.
void reserve_declared_edges(Graph& g, std::int64_t declared, std::uint64_t file_bytes,
                            std::uint64_t min_bytes_per_edge, const std::string& path);

// Writes a sparse text graph: `header` as given, then one line per edge:
// prefix, src + base, dst + base, w.
void write_edge_file(const std::string& path, const Graph& g, const std::string& header, std::string_view prefix,
                     int base);

// Dense adjacency written by the dense graph writers: kDenseNoEdge where there
// is no edge, 0 on the diagonal unless a negative self-loop is lighter, the
// minimum weight of parallel edges. Throws UsageError when n exceeds
// max_vertices or an edge weighs kDenseNoEdge (it would read back as no edge).
inline constexpr std::int32_t kDenseNoEdge = -1;
std::vector<std::int32_t> dense_cells_for_output(const Graph& g, const std::string& path,
                                                 std::int64_t max_vertices);

// Appends the edge that dense cell (row, col) = value stands for: none for
// no_edge_value or a non-negative diagonal. Returns false, adding nothing,
// when the value does not fit a weight (the caller knows the location).
inline bool add_dense_cell(Graph& g, std::int64_t row, std::int64_t col, std::int64_t value,
                           std::int64_t no_edge_value) {
  if (value == no_edge_value || (row == col && value >= 0)) return true;
  if (value < std::numeric_limits<weight_t>::min() || value > std::numeric_limits<weight_t>::max())
    return false;
  g.edges.push_back(Edge{static_cast<vertex_t>(row), static_cast<vertex_t>(col), static_cast<weight_t>(value)});
  return true;
}

}  // namespace apsp::io::detail
