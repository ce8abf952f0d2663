// Graph and matrix file formats. The format comes from the file's extension
// unless one is given explicitly.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp::io {

enum class Format {
  automatic,      // from the extension
  nthu_bin,       // .bin: int32 n, m, then m (src, dst, w); output n*n int32
  dimacs,         // .gr: DIMACS shortest-path, 1-based
  matrix_market,  // .mtx: coordinate, general/symmetric, integer/real/pattern
  edge_list,      // .txt .el .edges: "u v [w]", # or % comments, 0-based
  npy,            // .npy: int32 n*n dense adjacency (input) or matrix (output)
  text_matrix,    // .mat / .dense: the labs' text matrix "n" then n rows (input); INF-marked text (output)
  // Raw row-major float32 / float64 result matrices, +inf = unreachable: an
  // output format for real-valued results, only when named (the NTHU .bin
  // holds int32). No extension selects them, and no reader reads them.
  bin_f32,
  bin_f64,
  // The network repository's coordinate list (input only): a size line
  // "n n m" and m lines "i j [w]" (edge i -> j, 1-based, weight 1 when
  // absent), '%' comments, no banner. A .mtx file without a banner whose
  // first line is such a size line is read as one (ReadOptions::note says so).
  coordinate,
};

// Names: auto; bin, nthu; dimacs, gr; mtx, matrix-market; edges, edgelist, el,
// txt; npy; text-matrix, mat, dense; bin-f32; bin-f64; coordinate. to_string gives the
// first of each group.
// Extensions (case-insensitive): .bin .gr .mtx .txt .el .edges .npy .mat .dense.
// Matrices (write_matrix / read_matrix) use .bin, .npy, and .txt / .mat as text.
// Edge lists: n = largest id + 1, or N from a "# vertices: N" comment if larger
// (write_graph emits one). Dense graph inputs mark "no edge" with
// ReadOptions::no_edge_value, and with +inf in float .npy. Dense graph output:
// .npy is float64 with +inf for no edge, so every weight reads back as
// written; text matrices use -1 for no edge and refuse -1 weights.
Format parse_format(const std::string& name);      // throws UsageError
Format format_from_path(const std::string& path);  // throws UsageError for an unknown extension
const char* to_string(Format f);

struct ReadOptions {
  Format format = Format::automatic;
  // Dense inputs (npy, text_matrix): a cell value meaning "no edge", besides
  // +inf in float .npy, which always does. Unset: -1 in integer cells (the
  // labs' convention) and none in float cells, where -1.0 is a weight (as in
  // the float .npy that write_graph writes).
  std::optional<std::int64_t> no_edge_value;
  bool undirected = false;  // add each edge both ways
  // Told, when set, how a file was read where its format left a choice (a
  // .mtx file without banner read as a coordinate list); the CLI prints it.
  std::function<void(const std::string&)> note;
};

// Reads a graph with the weight type as read: int32 when every weight is an
// integer token (or integral cell) inside int32, float64 otherwise (a real
// weight such as 2.5 or 1e-3, or an integer beyond int32). Real weights in
// DIMACS, Matrix Market "real", edge lists, text matrices and float .npy;
// NaN in a sparse format is an InputError naming the position, +inf there
// means no edge. Throws InputError naming the file and the line or byte
// offset of the first problem; ResourceError if the declared size cannot be
// held.
AnyGraph read_any_graph(const std::string& path, const ReadOptions& opts = {});
// Reads a graph with int32 weights: as read_any_graph, but a weight that is
// not an integer inside int32 is an InputError naming its position.
Graph read_graph(const std::string& path, const ReadOptions& opts = {});
void write_graph(const std::string& path, const Graph& g, Format format = Format::automatic);
// A real-valued graph: DIMACS, Matrix Market (field real), edge lists (each
// weight the shortest text that reads back as the same double) and .npy
// (float64, +inf = no edge). UsageError for the formats that hold integers
// (NTHU .bin, text matrix).
void write_graph(const std::string& path, const GraphF64& g, Format format = Format::automatic);
// Throws UsageError when write_graph cannot write a graph of n vertices with
// weights in min_weight..max_weight to `path` in `format`: an unknown
// extension, a dense format beyond its size limit (16384 vertices for .npy,
// 4096 for text), or a text matrix whose no-edge value -1 is in the range. A
// caller can so refuse before it builds the graph; write_graph checks the
// same on the graph it is given.
void check_graph_output(const std::string& path, std::int64_t n, weight_t min_weight, weight_t max_weight,
                        Format format = Format::automatic);

// Result matrices of real-valued solves (FileSink): .npy keeps the dtype
// (<f4, <f8), the text formats print the shortest text that reads back as the
// same value and "inf" for unreachable, and .bin is refused (it holds int32)
// unless the format is named bin_f32 / bin_f64, matching the result's type.
//
// Writes an n*n int32 matrix (row-major) through the file sink's writer
// (apsp/sinks.hpp): written to a temporary file and renamed over `path` when
// complete. .bin: raw row-major int32 (NTHU); .npy: int32; .txt / .mat: text
// rows with INF for `unreachable` (refused above 4096 vertices). Throws
// ResourceError when the disk has too little room, before writing.
void write_matrix(const std::string& path, Span<const std::int32_t> m, std::int64_t n,
                  Format format = Format::automatic, std::int32_t unreachable = 1073741823);

// Reads an n*n int32 matrix written by write_matrix. For .bin, n comes from the
// file size (it must be a square count of int32). Throws InputError.
std::vector<std::int32_t> read_matrix(const std::string& path, std::int64_t& n, Format format = Format::automatic);

// An n*n matrix of T in a file, read in place where the file holds exactly
// that: a raw binary file, or an .npy of C-order T, is mapped and viewed, not
// copied (a 4 GiB result costs no 4 GiB of memory). Other layouts and the
// text formats are converted into memory.
// - T = std::int32_t (MatrixFile): the formats of read_matrix; integer .npy
//   dtypes, and float ones whose cells are integers or +inf (INF), convert.
// - T = float / double (the distances of a real-valued solve): .npy of dtype
//   <f4 / <f8, the raw bin_f32 / bin_f64 (only when the format is named), and
//   text (numbers, "inf" or "INF" for +infinity). A file that stores another
//   type (an int32 .bin or integer .npy, a float64 .npy for float) is an
//   InputError naming both types: the values are never converted between
//   float types or from int32.
// A NaN entry is an InputError naming its position. Throws InputError like
// read_matrix.
template <class T>
class BasicMatrixFile {
 public:
  explicit BasicMatrixFile(const std::string& path, Format format = Format::automatic);
  ~BasicMatrixFile();
  BasicMatrixFile(const BasicMatrixFile&) = delete;
  BasicMatrixFile& operator=(const BasicMatrixFile&) = delete;

  std::int64_t n() const { return n_; }
  Span<const T> cells() const { return {data_, static_cast<std::size_t>(n_ * n_)}; }  // row-major
  bool in_place() const { return in_place_; }                                         // cells() views the file itself

 private:
  struct Storage;
  std::unique_ptr<Storage> storage_;
  std::int64_t n_ = 0;
  const T* data_ = nullptr;
  bool in_place_ = false;
};
using MatrixFile = BasicMatrixFile<std::int32_t>;
extern template class BasicMatrixFile<std::int32_t>;
extern template class BasicMatrixFile<float>;
extern template class BasicMatrixFile<double>;

// The type of the values a matrix file stores: int32 for .bin and integer
// .npy dtypes, float32 / float64 for .npy <f4 / <f8 and bin_f32 / bin_f64;
// nullopt for the text formats, whose numbers read as any type. UsageError
// for a graph-only format or an unknown extension; InputError for a file
// that cannot be opened or a malformed .npy header.
std::optional<WeightType> stored_matrix_type(const std::string& path, Format format = Format::automatic);

// The id map `apsp solve --relabel` writes beside its result: line k (after
// two '#' comment lines) holds the original vertex id of vertex k, the ids
// increasing. read_id_map throws InputError naming the line of a malformed,
// negative or non-increasing id.
void write_id_map(const std::string& path, const std::vector<vertex_t>& ids);
std::vector<vertex_t> read_id_map(const std::string& path);
// The map's file name beside a result file: RESULT + ".ids".
std::string id_map_path(const std::string& result_path);

// Removes the hidden temporary files of the outputs this process is writing
// now: the named ones (a file the ranks of a distributed solve share, and
// every temporary where the file system has no unnamed ones; unnamed ones
// vanish with the process anyway). Async-signal-safe, for a front end's
// handler of SIGINT / SIGTERM / SIGHUP that then ends the process (the CLI
// installs one). A process killed by SIGKILL cannot run it: the next output
// of the same target on the same host removes temporaries whose process is
// gone.
void remove_temporaries_on_signal() noexcept;

}  // namespace apsp::io
