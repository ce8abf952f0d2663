// File formats: round trips of the standard cases through every graph format,
// matrix round trips, hand-written inputs of each format, NumPy
// interoperability, and the location and wording of every input error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;
using io::Format;

// One malformed input: its file name, bytes, the location suffix after the
// path (":LINE" or "@OFFSET") and a phrase of the message.
struct Malformed {
  const char* file;
  std::string bytes;
  std::string location;
  const char* phrase;
};

// A fresh directory per test, removed afterwards.
class IoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("apsp_io_test_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write_file(const std::string& name, const std::string& bytes) const {
    std::ofstream out(path(name), std::ios::binary);
    out << bytes;
    return path(name);
  }

  // Each input must fail to read with an InputError at its location.
  // With any_weights, through read_any_graph (real weights accepted).
  void expect_input_errors(const std::vector<Malformed>& inputs, bool as_matrix = false,
                           bool any_weights = false) const {
    for (const auto& input : inputs) {
      SCOPED_TRACE(std::string(input.file) + " expecting '" + input.phrase + "'");
      const std::string file = write_file(input.file, input.bytes);
      try {
        if (as_matrix) {
          std::int64_t n = 0;
          io::read_matrix(file, n);
        } else if (any_weights) {
          io::read_any_graph(file);
        } else {
          io::read_graph(file);
        }
        ADD_FAILURE() << "no InputError";
      } catch (const InputError& error) {
        const std::string message = error.what();
        EXPECT_EQ(error.location(), file + input.location) << message;
        EXPECT_NE(message.find(input.phrase), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      }
    }
  }

 private:
  fs::path dir_;
};

template <class T>
std::string raw_bytes(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::string int32_bytes(const std::vector<std::int32_t>& values) { return raw_bytes(values); }

// An NPY file built by hand (independent of the library's writer).
std::string npy_file(const std::string& descr, bool fortran, const std::string& shape, const std::string& data,
                     int major = 1) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  header.append(15 - header.size() % 16, ' ');
  header.push_back('\n');
  std::string file = "\x93NUMPY";
  file.push_back(static_cast<char>(major));
  file.push_back('\0');
  const int length_bytes = major == 1 ? 2 : 4;
  for (int k = 0; k < length_bytes; ++k) file.push_back(static_cast<char>((header.size() >> (8 * k)) & 0xff));
  return file + header + data;
}

// Empty when equal; else the first difference.
std::string graph_difference(const Graph& expected, const Graph& actual) {
  std::ostringstream s;
  if (expected.n != actual.n) {
    s << "n = " << actual.n << ", expected " << expected.n;
    return s.str();
  }
  if (expected.edges.size() != actual.edges.size()) {
    s << actual.edges.size() << " edges, expected " << expected.edges.size();
    return s.str();
  }
  for (std::size_t e = 0; e < expected.edges.size(); ++e) {
    const Edge& a = actual.edges[e];
    const Edge& x = expected.edges[e];
    if (a.src != x.src || a.dst != x.dst || a.w != x.w) {
      s << "edge " << e << " is " << a.src << "->" << a.dst << " w " << a.w << ", expected " << x.src << "->" << x.dst
        << " w " << x.w;
      return s.str();
    }
  }
  return {};
}

bool has_weight(const Graph& g, weight_t w) {
  for (const Edge& e : g.edges)
    if (e.w == w) return true;
  return false;
}

// Runs `action`, which must throw E whose message contains every one of `needles`.
template <class E>
void expect_error(const std::function<void()>& action, const std::vector<std::string>& needles) {
  try {
    action();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needles.front() << "'";
  } catch (const E& error) {
    const std::string message = error.what();
    for (const auto& needle : needles) EXPECT_NE(message.find(needle), std::string::npos) << "message: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "message is not one line: " << message;
  } catch (const std::exception& other) {
    ADD_FAILURE() << "wrong exception type: " << other.what();
  }
}

TEST(IoFormatNames, ParseAndExtensions) {
  const std::pair<const char*, Format> names[] = {{"auto", Format::automatic},
                                                  {"bin", Format::nthu_bin},
                                                  {"nthu", Format::nthu_bin},
                                                  {"dimacs", Format::dimacs},
                                                  {"gr", Format::dimacs},
                                                  {"mtx", Format::matrix_market},
                                                  {"matrix-market", Format::matrix_market},
                                                  {"edges", Format::edge_list},
                                                  {"edgelist", Format::edge_list},
                                                  {"txt", Format::edge_list},
                                                  {"npy", Format::npy},
                                                  {"text-matrix", Format::text_matrix},
                                                  {"mat", Format::text_matrix}};
  for (const auto& [name, format] : names) {
    EXPECT_EQ(io::parse_format(name), format) << name;
    EXPECT_EQ(io::parse_format(io::to_string(format)), format) << name;
  }
  expect_error<UsageError>([] { io::parse_format("csv"); }, {"unknown format 'csv'"});

  const std::pair<const char*, Format> paths[] = {{"g.bin", Format::nthu_bin},      {"dir.x/g.GR", Format::dimacs},
                                                  {"g.mtx", Format::matrix_market}, {"g.txt", Format::edge_list},
                                                  {"g.el", Format::edge_list},      {"g.edges", Format::edge_list},
                                                  {"g.npy", Format::npy},           {"g.mat", Format::text_matrix},
                                                  {"g.dense", Format::text_matrix}};
  for (const auto& [p, format] : paths) EXPECT_EQ(io::format_from_path(p), format) << p;
  for (const char* unknown : {"g.csv", "graph", "dir.bin/graph"})
    expect_error<UsageError>([&] { io::format_from_path(unknown); }, {unknown, "extension"});
}

// The sparse formats keep every edge in order, duplicates and self-loops included.
TEST_F(IoTest, SparseFormatsRoundTripEveryStandardCase) {
  const auto cases = test::standard_cases();
  for (const char* extension : {".bin", ".gr", ".mtx", ".txt", ".el", ".edges"})
    for (const auto& c : cases) {
      SCOPED_TRACE(c.name + extension);
      // A new file each time: truncating a just-written one makes ext4 flush it.
      const std::string file = path(c.name + extension);
      io::write_graph(file, c.graph);
      const Graph back = io::read_graph(file);
      EXPECT_EQ(graph_difference(c.graph, back), "");
      EXPECT_EQ(graph_difference(normalize(c.graph), normalize(back)), "");
    }
}

// The dense formats keep the normalized graph. Bug 5: .npy wrote -1 for "no
// edge" and so refused graphs with an edge of weight -1; it now writes float64
// with +inf for no edge and keeps every case. The labs' text matrix still
// means no edge by -1, so it refuses such a graph with a clear error.
TEST_F(IoTest, DenseFormatsRoundTripNormalizedOrRefuseTextNoEdgeWeight) {
  int npy_with_weight_minus_one = 0, text_refusals = 0, text_round_trips = 0;
  for (const auto& c : test::standard_cases())
    for (const char* extension : {".npy", ".mat"}) {
      SCOPED_TRACE(c.name + extension);
      const std::string file = path(c.name + extension);
      const bool text = std::string(extension) == ".mat";
      if (text && has_weight(c.graph, -1)) {
        expect_error<UsageError>([&] { io::write_graph(file, c.graph); }, {file, "weighs -1", "'no edge'"});
        ++text_refusals;
        continue;
      }
      io::write_graph(file, c.graph);
      EXPECT_EQ(graph_difference(normalize(c.graph), normalize(io::read_graph(file))), "");
      npy_with_weight_minus_one += !text && has_weight(c.graph, -1);
      text_round_trips += text;
    }
  EXPECT_GT(npy_with_weight_minus_one, 0);
  EXPECT_GT(text_refusals, 0);
  EXPECT_GT(text_round_trips, 100);
}

// What the .npy graph writer puts in the file: float64 with +inf for no edge,
// a marker no weight can take.
TEST_F(IoTest, NpyGraphOutputIsFloat64WithInfinityForNoEdge) {
  const Graph g{3, {{0, 1, -1}, {1, 2, 7}, {2, 2, -4}, {0, 1, 3}}};
  io::write_graph(path("g.npy"), g);
  const double inf = std::numeric_limits<double>::infinity();
  const std::string expected =
      npy_file("<f8", false, "(3, 3)", raw_bytes<double>({0, -1, inf, inf, 0, 7, inf, inf, -4}));
  std::ifstream written(path("g.npy"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), 9 * sizeof(double));
  EXPECT_NE(bytes.find("'descr': '<f8'"), std::string::npos);
  EXPECT_EQ(bytes.substr(bytes.size() - 9 * sizeof(double)), expected.substr(expected.size() - 9 * sizeof(double)));
  EXPECT_EQ(graph_difference(Graph{3, {{0, 1, -1}, {1, 2, 7}, {2, 2, -4}}}, io::read_graph(path("g.npy"))), "");
}

TEST_F(IoTest, ExplicitFormatOverridesTheExtension) {
  const auto cases = test::standard_cases();
  const Graph& g = cases[10].graph;
  for (Format format : {Format::nthu_bin, Format::dimacs, Format::matrix_market, Format::edge_list}) {
    SCOPED_TRACE(io::to_string(format));
    const std::string file = path("graph.data");
    io::write_graph(file, g, format);
    io::ReadOptions options;
    options.format = format;
    EXPECT_EQ(graph_difference(g, io::read_graph(file, options)), "");
  }
}

TEST_F(IoTest, UndirectedAddsEachEdgeBothWays) {
  const auto cases = test::standard_cases();
  for (const char* extension : {".bin", ".mtx", ".txt"})
    for (std::size_t k : {std::size_t{12}, std::size_t{50}}) {
      SCOPED_TRACE(cases[k].name + extension);
      const std::string file = path("graph" + std::string(extension));
      io::write_graph(file, cases[k].graph);
      io::ReadOptions options;
      options.undirected = true;
      EXPECT_EQ(graph_difference(normalize(symmetrize(cases[k].graph)), normalize(io::read_graph(file, options))), "");
    }
}

TEST_F(IoTest, MatricesRoundTripWithUnreachableEntries) {
  const auto cases = test::standard_cases();
  for (std::size_t k : {std::size_t{0}, std::size_t{3}, std::size_t{20}, std::size_t{17}}) {
    const Graph& g = cases[k].graph;
    const std::vector<dist_t> d = test::reference_distances(g);
    if (g.n >= 2) {
      const auto counts = test::count_entries(d, g.n);
      ASSERT_GT(counts.unreachable, 0) << cases[k].name;
      ASSERT_GT(counts.finite_off_diagonal, 0) << cases[k].name;
    }
    for (const char* extension : {".bin", ".npy", ".txt", ".mat"}) {
      SCOPED_TRACE(cases[k].name + extension);
      const std::string file = path("dist" + std::string(extension));
      io::write_matrix(file, d, g.n);
      std::int64_t n = -1;
      const auto back = io::read_matrix(file, n);
      EXPECT_EQ(n, g.n);
      EXPECT_EQ(test::first_difference(d, back, g.n), "");
    }
  }
}

TEST_F(IoTest, TextMatrixShowsUnreachableAsInf) {
  const std::string file = path("dist.txt");
  io::write_matrix(file, {0, -7, 3, 0}, 2, Format::automatic, -7);
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "0 INF\n3 0\n");
  std::int64_t n = 0;
  EXPECT_EQ(io::read_matrix(file, n), (std::vector<std::int32_t>{0, kInf, 3, 0}));
  EXPECT_EQ(n, 2);
}

TEST_F(IoTest, BinMatrixIsRawRowMajorInt32) {
  const std::string file = path("dist.bin");
  io::write_matrix(file, {0, 1, kInf, 0}, 2);
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, int32_bytes({0, 1, kInf, 0}));
}

TEST_F(IoTest, HandWrittenSparseInputs) {
  const Graph expected{3, {{0, 1, 5}, {1, 2, -2}, {2, 0, 1}}};
  const std::string dimacs = path("g.gr");
  write_file("g.gr", "c a comment\r\n\r\np sp 3 3\r\nc between\r\na 1 2 5\r\na 2 3 -2\r\na 3 1 +1\r\n");
  EXPECT_EQ(graph_difference(expected, io::read_graph(dimacs)), "");

  write_file("real.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n3 3 3\n1 2 5.0\n2 3 -2\n3 1 1e0\n");
  EXPECT_EQ(graph_difference(expected, io::read_graph(path("real.mtx"))), "");

  write_file("sym.mtx", "%%MatrixMarket Matrix Coordinate Integer Symmetric\n3 3 2\n2 1 4\n3 3 -1\n");
  EXPECT_EQ(graph_difference(Graph{3, {{1, 0, 4}, {0, 1, 4}, {2, 2, -1}}}, io::read_graph(path("sym.mtx"))), "");

  write_file("pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n");
  EXPECT_EQ(graph_difference(Graph{2, {{0, 1, 1}}}, io::read_graph(path("pattern.mtx"))), "");

  write_file("snap.txt", "# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n\n% other comment\n  1 4\t7\n");
  EXPECT_EQ(graph_difference(Graph{5, {{0, 1, 1}, {1, 4, 7}}}, io::read_graph(path("snap.txt"))), "");

  write_file("hinted.el", "# vertices: 9\n0 1 2\n");
  EXPECT_EQ(graph_difference(Graph{9, {{0, 1, 2}}}, io::read_graph(path("hinted.el"))), "");

  write_file("empty.edges", "");
  EXPECT_EQ(graph_difference(Graph{0, {}}, io::read_graph(path("empty.edges"))), "");
}

TEST_F(IoTest, HandWrittenDenseInputs) {
  // Row-major; -1 = no edge; the non-negative diagonal is ignored.
  write_file("lab.mat", "3\n0 5 -1\n-1 4 2\n7 -1\n0\n");
  EXPECT_EQ(graph_difference(Graph{3, {{0, 1, 5}, {1, 2, 2}, {2, 0, 7}}}, io::read_graph(path("lab.mat"))), "");

  io::ReadOptions zero_means_none;
  zero_means_none.no_edge_value = 0;
  write_file("zeros.dense", "2 0 3 -1 0");
  EXPECT_EQ(graph_difference(Graph{2, {{0, 1, 3}, {1, 0, -1}}}, io::read_graph(path("zeros.dense"), zero_means_none)),
            "");

  write_file("negative_diagonal.mat", "2\n-3 1\n-1 0\n");
  const Graph with_loop = io::read_graph(path("negative_diagonal.mat"));
  EXPECT_EQ(graph_difference(Graph{2, {{0, 0, -3}, {0, 1, 1}}}, with_loop), "");
  EXPECT_THROW(normalize(with_loop), NegativeCycleError);

  // Fortran order: the data is column-major, so cell (0, 1) is the third value.
  write_file("fortran.npy", npy_file("<i8", true, "(2, 2)", raw_bytes<std::int64_t>({0, 9, 4, 0})));
  EXPECT_EQ(graph_difference(Graph{2, {{0, 1, 4}, {1, 0, 9}}}, normalize(io::read_graph(path("fortran.npy")))), "");

  // Float cells: +inf is no edge, and -1.0 a weight unless no_edge_value says otherwise.
  const double inf = std::numeric_limits<double>::infinity();
  write_file("float.npy", npy_file("<f8", false, "(2,2)", raw_bytes<double>({0.0, inf, 3.0, -1.0}), 2));
  EXPECT_EQ(graph_difference(Graph{2, {{1, 0, 3}, {1, 1, -1}}}, io::read_graph(path("float.npy"))), "");
  io::ReadOptions minus_one_means_none;
  minus_one_means_none.no_edge_value = -1;
  EXPECT_EQ(graph_difference(Graph{2, {{1, 0, 3}}}, io::read_graph(path("float.npy"), minus_one_means_none)), "");


  write_file("small.npy", npy_file("|u1", false, "(2, 2)", raw_bytes<std::uint8_t>({0, 200, 255, 0})));
  EXPECT_EQ(graph_difference(Graph{2, {{0, 1, 200}, {1, 0, 255}}}, io::read_graph(path("small.npy"))), "");

  write_file("empty.npy", npy_file("<i4", false, "(0, 0)", ""));
  EXPECT_EQ(graph_difference(Graph{0, {}}, io::read_graph(path("empty.npy"))), "");
}

TEST_F(IoTest, NpyMatrixOfOtherDtypesAndOrders) {
  const std::vector<std::int32_t> expected{0, 2, kInf, -5, 0, 1, 8, kInf, 0};
  const double inf = std::numeric_limits<double>::infinity();
  const std::pair<const char*, std::string> files[] = {
      {"i64.npy", npy_file("<i8", false, "(3, 3)", raw_bytes<std::int64_t>({0, 2, kInf, -5, 0, 1, 8, kInf, 0}))},
      {"f32.npy", npy_file("<f4", false, "(3, 3)", raw_bytes<float>({0, 2, float(inf), -5, 0, 1, 8, float(inf), 0}))},
      {"fortran.npy", npy_file("<i4", true, "(3, 3)", int32_bytes({0, -5, 8, 2, 0, kInf, kInf, 1, 0}), 3)},
  };
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    write_file(name, bytes);
    std::int64_t n = 0;
    EXPECT_EQ(test::first_difference(expected, io::read_matrix(path(name), n), 3), "");
    EXPECT_EQ(n, 3);
  }
}

// numpy.load reads our .npy, and numpy.save output of several dtypes and
// orders reads back to the same matrix. Skipped without python3 + numpy.
TEST_F(IoTest, NpyInteroperatesWithNumpy) {
  if (std::system("python3 -c 'import numpy' >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 with numpy not found";
  const auto cases = test::standard_cases();
  const Graph& g = cases[20].graph;
  const std::vector<dist_t> d = test::reference_distances(g);
  io::write_matrix(path("ours.npy"), d, g.n);
  write_file("convert.py", "import sys\nimport numpy as np\nd = sys.argv[1]\na = np.load(d + '/ours.npy')\n"
                           "assert a.dtype == np.int32 and a.shape == (" +
                               std::to_string(g.n) + ", " + std::to_string(g.n) +
                               ")\n"
                               "a.astype('<i4').tofile(d + '/numpy.bin')\n"
                               "np.save(d + '/i64.npy', a.astype(np.int64))\n"
                               "np.save(d + '/fortran.npy', np.asfortranarray(a))\n"
                               "np.save(d + '/f64.npy', np.where(a == 1073741823, np.inf, a).astype(np.float64))\n");
  ASSERT_EQ(std::system(("python3 " + path("convert.py") + " " + path("")).c_str()), 0);
  for (const char* name : {"numpy.bin", "i64.npy", "fortran.npy", "f64.npy"}) {
    SCOPED_TRACE(name);
    std::int64_t n = 0;
    EXPECT_EQ(test::first_difference(d, io::read_matrix(path(name), n), g.n), "");
    EXPECT_EQ(n, g.n);
  }
}

TEST_F(IoTest, MalformedNthuBinary) {
  expect_input_errors({
      {"empty.bin", "", "@0", "truncated header: expected 8 bytes (n, m), the file has 0"},
      {"short.bin", int32_bytes({3}), "@4", "truncated header"},
      {"negative_n.bin", int32_bytes({-1, 0}), "@0", "negative vertex count n = -1"},
      {"negative_m.bin", int32_bytes({3, -2}), "@4", "negative edge count m = -2"},
      {"huge_m.bin", int32_bytes({3, 1000000000, 0, 1, 1}), "@20",
       "m = 1000000000 edges need 12000000008 bytes, the file has 20"},
      {"cut_edge.bin", int32_bytes({3, 2, 0, 1, 5, 1, 2}), "@28", "edge 1 is the first incomplete one"},
      {"out_of_range.bin", int32_bytes({3, 2, 0, 1, 5, 1, 3, 2}), "@24", "edge 1 (1 -> 3) has a vertex outside 0..2"},
      {"negative_src.bin", int32_bytes({3, 1, -1, 0, 1}), "@8", "edge 0 (-1 -> 0)"},
      {"trailing.bin", int32_bytes({3, 1, 0, 1, 5, 99}), "@20", "4 trailing bytes after the m = 1 edges"},
  });
}

TEST_F(IoTest, MalformedDimacs) {
  expect_input_errors({
      {"empty.gr", "", ":1", "missing 'p sp n m' line"},
      {"no_p.gr", "c only comments\nc more\n", ":2", "missing 'p sp n m' line"},
      {"two_p.gr", "p sp 2 0\np sp 2 0\n", ":2", "second 'p' line (the first is line 1)"},
      {"arc_first.gr", "c x\na 1 2 3\np sp 2 1\n", ":2", "arc before the 'p sp n m' line"},
      {"vertex0.gr", "p sp 2 1\na 0 1 3\n", ":2", "vertex 0 is outside 1..2"},
      {"vertex_big.gr", "p sp 2 1\na 1 3 3\n", ":2", "vertex 3 is outside 1..2"},
      {"token.gr", "p sp 2 1\r\na 1 x2 3\r\n", ":2", "expected an integer head vertex, found 'x2'"},
      {"weight.gr", "p sp 2 1\na 1 2 2147483648\n", ":2", "weight 2147483648 is outside int32"},
      {"fewer.gr", "p sp 3 2\na 1 2 1\n", ":2", "found 1 arcs but line 1 declares m = 2"},
      {"more.gr", "p sp 3 1\na 1 2 1\na 2 3 1\n", ":3", "more arcs than the m = 1 declared on line 1"},
      {"kind.gr", "p sp 2 0\nx 1 2\n", ":2", "unknown line type 'x'"},
      {"extra.gr", "p sp 2 1\na 1 2 3 4\n", ":2", "unexpected extra token '4'"},
      {"missing_weight.gr", "p sp 2 1\na 1 2\n", ":2", "missing weight"},
      {"problem.gr", "p max 2 1\n", ":1", "problem type 'max' is not 'sp'"},
      {"negative_n.gr", "p sp -2 0\n", ":1", "negative vertex count -2"},
      {"huge_n.gr", "p sp 3000000000 0\n", ":1", "vertex count 3000000000 exceeds int32"},
  });
}

TEST_F(IoTest, MalformedMatrixMarket) {
  const std::string general = "%%MatrixMarket matrix coordinate integer general\n";
  expect_input_errors({
      {"unknown.mtx", "graph 3\n1 2 3\n", ":1", "unknown header 'graph 3'"},
      {"comment_then_unknown.mtx", "% c\n3 3\n1 2 3\n", ":2", "unknown header '3 3'"},
      {"only_comments.mtx", "% c\n", ":1", "no '%%MatrixMarket' banner and no size line"},
      {"no_banner_fewer.mtx", "3 3 2\n1 2 3\n", ":2", "found 1 entries but line 1 declares 2"},
      {"no_banner_range.mtx", "3 3 1\n0 2 3\n", ":2", "vertex 0 is outside 1..3"},
      {"no_banner_extra.mtx", "3 3 1\n1 2 3 4\n", ":2", "unexpected extra token '4'"},
      {"array.mtx", "%%MatrixMarket matrix array integer general\n2 2\n1\n2\n3\n4\n", ":1", "'array'"},
      {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", ":1", "complex"},
      {"hermitian.mtx", "%%MatrixMarket matrix coordinate integer hermitian\n1 1 0\n", ":1", "symmetry 'hermitian'"},
      {"fraction.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2.5\n", ":3",
       "weight '2.5' is not an integer inside int32; real weights need the float32 or float64 weight type"},
      {"int_field.mtx", general + "2 2 1\n1 2 2.0\n", ":3",
       "real value '2.0' in a Matrix Market file whose field is integer"},
      {"range.mtx", general + "% c\n2 2 1\n3 1 5\n", ":4", "vertex 3 is outside 1..2"},
      {"fewer.mtx", general + "2 2 2\n1 2 5\n", ":3", "found 1 entries but line 2 declares 2"},
      {"more.mtx", general + "2 2 1\n1 2 5\n2 1 5\n", ":4", "more entries than the 1 declared on line 2"},
      {"rectangular.mtx", general + "2 3 0\n", ":2", "the matrix is 2 x 3; a graph needs a square one"},
      {"no_size.mtx", general + "% only comments\n", ":2", "missing the size line"},
  });
}

// The network repository's coordinate files: no banner, "n n m", then
// "i j [w]" lines (1-based, weight 1 when absent), read as directed edges; a
// .mtx file of that shape is read so too, and ReadOptions::note says so.
TEST_F(IoTest, CoordinateListsWithoutBanner) {
  const Graph expected{4, {{0, 1, 5}, {1, 2, 1}, {3, 0, -2}}};
  const std::string text = "% road network\n4 4 3\n1 2 5\n2 3\n% between\n4 1 -2\n";
  write_file("road.mtx", text);
  std::vector<std::string> notes;
  io::ReadOptions opts;
  opts.note = [&](const std::string& note) { notes.push_back(note); };
  EXPECT_EQ(graph_difference(expected, io::read_graph(path("road.mtx"), opts)), "");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("road.mtx: no '%%MatrixMarket' banner; read as the network repository's coordinate list"),
            std::string::npos)
      << notes[0];
  write_file("road.txt", text);
  opts.format = io::parse_format("coordinate");
  notes.clear();
  EXPECT_EQ(graph_difference(expected, io::read_graph(path("road.txt"), opts)), "");
  EXPECT_TRUE(notes.empty());  // named, not guessed
  write_file("real.mtx", "2 2 1\n1 2 0.5\n");
  const AnyGraph real = io::read_any_graph(path("real.mtx"));
  ASSERT_TRUE(std::holds_alternative<GraphF64>(real));
  EXPECT_EQ(std::get<GraphF64>(real).edges.at(0).w, 0.5);
  write_file("banner.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 3\n");
  notes.clear();
  opts.format = io::Format::automatic;
  io::read_graph(path("banner.mtx"), opts);
  EXPECT_TRUE(notes.empty());
  EXPECT_THROW(io::write_graph(path("out.txt"), expected, io::Format::coordinate), UsageError);
}

// compact_vertices keeps the vertices an edge touches, in increasing order,
// and the id map round-trips them; a map that is malformed or does not
// increase is an InputError naming its line.
TEST_F(IoTest, CompactedVerticesAndTheirIdMap) {
  Graph g{3353, {{3352, 17, 4}, {17, 99, 1}, {0, 3352, 2}, {99, 99, 0}}};
  const std::vector<vertex_t> ids = compact_vertices(g);
  EXPECT_EQ(ids, (std::vector<vertex_t>{0, 17, 99, 3352}));
  EXPECT_EQ(graph_difference(Graph{4, {{3, 1, 4}, {1, 2, 1}, {0, 3, 2}, {2, 2, 0}}}, g), "");
  Graph empty{5, {}};
  EXPECT_TRUE(compact_vertices(empty).empty());
  EXPECT_EQ(empty.n, 0);
  Graph outside{2, {{0, 2, 1}}};
  EXPECT_THROW(compact_vertices(outside), InputError);

  io::write_id_map(path("d.bin.ids"), ids);
  EXPECT_EQ(io::read_id_map(path("d.bin.ids")), ids);
  EXPECT_EQ(io::id_map_path("out/d.bin"), "out/d.bin.ids");
  const std::vector<Malformed> bad = {
      {"down.ids", "# apsp id map\n5\n3\n", ":3", "vertex id 3 does not increase (the previous id is 5)"},
      {"word.ids", "1\nx\n", ":2", "vertex id"},
      {"negative.ids", "-1\n", ":1", "vertex id -1 is outside"},
      {"two.ids", "1 2\n", ":1", "'2'"},
  };
  for (const auto& input : bad) {
    const std::string file = write_file(input.file, input.bytes);
    try {
      io::read_id_map(file);
      ADD_FAILURE() << input.file << ": no InputError";
    } catch (const InputError& error) {
      EXPECT_EQ(error.location(), file + input.location) << error.what();
      EXPECT_NE(std::string(error.what()).find(input.phrase), std::string::npos) << error.what();
    }
  }
}

// Bug 9: a symmetric file doubled its declared entry count in int64 before
// checking it; 2^62 entries overflowed (UBSan aborted). The count is now
// checked against what the file can hold first.
TEST_F(IoTest, MatrixMarketEntryCountBeyondTheFileIsRefused) {
  const std::string symmetric = "%%MatrixMarket matrix coordinate pattern symmetric\n";
  expect_input_errors({
      {"huge_symmetric.mtx", symmetric + "2 2 4611686018427387904", ":2",
       "4611686018427387904 entries, more than the 74 bytes of the file can hold"},
      {"max_symmetric.mtx", symmetric + "2 2 9223372036854775807\n", ":2", "9223372036854775807 entries, more than"},
      {"huge_general.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1000\n1 2 3\n", ":2",
       "1000 entries, more than"},
  });
}

TEST_F(IoTest, MalformedEdgeList) {
  expect_input_errors({
      {"token.txt", "0 1\n1 z\n", ":2", "expected an integer target vertex, found 'z'"},
      {"negative.txt", "# c\n-1 2\n", ":2", "negative vertex id -1"},
      {"big_id.el", "0 2147483647\n", ":1", "vertex id 2147483647 exceeds the largest allowed id 2147483646"},
      {"huge_id.edges", "0 99999999999999999999\n", ":1", "expected an integer target vertex"},
      {"weight.txt", "0 1 3000000000\n", ":1", "weight 3000000000 is outside int32"},
      {"fraction.txt", "0 1 1.5\n", ":1", "weight '1.5' is not an integer inside int32"},
      {"extra.txt", "0 1 2 3\n", ":1", "unexpected extra token '3'"},
      {"single.txt", "\n\n5\n", ":3", "missing target vertex"},
  });
}

TEST_F(IoTest, MalformedNpy) {
  const std::string rectangular = npy_file("<i4", false, "(2, 3)", int32_bytes({0, 0, 0, 0, 0, 0}));
  const std::string cube = npy_file("<i4", false, "(2, 2, 2)", int32_bytes({0, 0, 0, 0, 0, 0, 0, 0}));
  const std::string big_endian = npy_file(">i4", false, "(1, 1)", int32_bytes({0}));
  const std::string complex = npy_file("<c16", false, "(1, 1)", std::string(16, '\0'));
  const std::string truncated = npy_file("<i4", false, "(2, 2)", int32_bytes({0, 1, 2}));
  const std::string trailing = npy_file("<i4", false, "(2, 2)", int32_bytes({0, 1, 2, 0, 9}));
  const std::string fraction = npy_file("<f8", false, "(2, 2)", raw_bytes<double>({0, 0.5, 0, 0}));
  const std::string minus_inf =
      npy_file("<f4", false, "(2, 2)", raw_bytes<float>({0, 1, -std::numeric_limits<float>::infinity(), 0}));
  const std::string wide = npy_file("<i8", false, "(2, 2)", raw_bytes<std::int64_t>({0, 3000000000, 0, 0}));
  std::string version4 = npy_file("<i4", false, "(1, 1)", int32_bytes({0}));
  version4[6] = 4;
  const auto at = [](std::size_t offset) { return "@" + std::to_string(offset); };
  expect_input_errors({
      {"magic.npy", "hello", "@0", "not an NPY file"},
      {"rectangular.npy", rectangular, at(rectangular.find("(2, 3)") + 6), "shape (2, 3) is not a 2-D square array"},
      {"cube.npy", cube, at(cube.find("(2, 2, 2)") + 9), "shape (2, 2, 2)"},
      {"big_endian.npy", big_endian, at(big_endian.find("'>i4'")), "big-endian dtype '>i4'"},
      {"complex.npy", complex, at(complex.find("'<c16'")), "unsupported dtype '<c16'"},
      {"truncated.npy", truncated, at(truncated.size()), "truncated NPY data"},
      {"trailing.npy", trailing, at(trailing.size() - 4), "4 trailing bytes"},
      {"fraction.npy", fraction, at(fraction.size() - 24), "weight '0.5' is not an integer inside int32"},
      {"minus_inf.npy", minus_inf, at(minus_inf.size() - 8), "weight '-inf' is -inf, not a length"},
      {"wide.npy", wide, at(wide.size() - 24), "weight 3000000000 is outside int32"},
      {"version.npy", version4, "@6", "unsupported NPY format version 4"},
  });
  expect_input_errors({{"rectangular_matrix.npy", rectangular, at(rectangular.find("(2, 3)") + 6), "(2, 3)"}}, true);
}

// Real weights in every format that holds them, read in the weight type as
// read: float64 as soon as one weight is no int32, int32 otherwise.
TEST_F(IoTest, RealWeightsInEveryTextAndDenseFormat) {
  const double inf = std::numeric_limits<double>::infinity();
  const GraphF64 expected{3, {{0, 1, 0.25}, {1, 2, -1.5e-3}, {2, 0, 120.0}}};
  auto expect_real = [&](const std::string& file, const GraphF64& want, const io::ReadOptions& opts = {}) {
    SCOPED_TRACE(file);
    const AnyGraph any = io::read_any_graph(path(file), opts);
    ASSERT_EQ(weight_type(any), WeightType::float64);
    const GraphF64 g = normalize(std::get<GraphF64>(any));
    const GraphF64 w = normalize(want);
    ASSERT_EQ(g.n, w.n);
    ASSERT_EQ(g.edges.size(), w.edges.size());
    for (std::size_t e = 0; e < w.edges.size(); ++e) {
      EXPECT_EQ(g.edges[e].src, w.edges[e].src);
      EXPECT_EQ(g.edges[e].dst, w.edges[e].dst);
      EXPECT_EQ(g.edges[e].w, w.edges[e].w);  // parsing is exact: the nearest double to the text
    }
    // read_graph (int32 only) refuses it, naming the first real weight's line or cell.
    EXPECT_THROW(io::read_graph(path(file), opts), InputError);
  };
  write_file("g.gr", "p sp 3 4\na 1 2 0.25\na 2 3 -1.5e-3\na 3 1 1.2E+2\na 1 3 inf\n");
  expect_real("g.gr", expected);
  write_file("g.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 .25\n2 3 -0.0015\n3 1 120\n");
  expect_real("g.mtx", expected);
  write_file("g.txt", "0 1 0.25\n1 2 -1.5e-3\n2 0 +120.0\n");
  expect_real("g.txt", expected);
  write_file("g.mat", "3\n0 0.25 -1\ninf 0 -1.5e-3\n120 nan 0\n");
  expect_real("g.mat", expected);
  write_file("f8.npy", npy_file("<f8", false, "(3, 3)",
                                raw_bytes<double>({0, 0.25, inf, std::nan(""), 0, -1.5e-3, 120, inf, 0})));
  expect_real("f8.npy", expected);
  // float32 cells widen exactly; -1 is a weight in float cells unless named as no edge.
  write_file("f4.npy", npy_file("<f4", true, "(2, 2)", raw_bytes<float>({0, 0.1f, -1, 0})));
  expect_real("f4.npy", GraphF64{2, {{1, 0, static_cast<double>(0.1f)}, {0, 1, -1.0}}});
  io::ReadOptions minus_one;
  minus_one.no_edge_value = -1;
  expect_real("f4.npy", GraphF64{2, {{1, 0, static_cast<double>(0.1f)}}}, minus_one);

  // Integral values stay int32, whatever their spelling.
  write_file("int.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 5.0\n");
  EXPECT_EQ(weight_type(io::read_any_graph(path("int.mtx"))), WeightType::int32);
  write_file("int.gr", "p sp 2 2\na 1 2 1e3\na 2 1 inf\n");
  const AnyGraph int_graph = io::read_any_graph(path("int.gr"));
  ASSERT_EQ(weight_type(int_graph), WeightType::int32);
  EXPECT_EQ(std::get<Graph>(int_graph).edges.size(), 1u);  // +inf is no edge
  EXPECT_EQ(std::get<Graph>(int_graph).edges[0].w, 1000);
  // An integer beyond int32 makes the graph float64 (exact up to 2^53).
  write_file("big.txt", "0 1 3000000000\n1 0 2\n");
  const AnyGraph big = io::read_any_graph(path("big.txt"));
  ASSERT_EQ(weight_type(big), WeightType::float64);
  EXPECT_EQ(std::get<GraphF64>(big).edges[0].w, 3e9);
  EXPECT_EQ(std::get<GraphF64>(big).edges[1].w, 2.0);
}

// Real-valued graphs written by write_graph read back exactly (the shortest
// round-trip text, or float64 cells), in every format that holds them.
TEST_F(IoTest, RealGraphsRoundTripExactly) {
  GenerateOptions o;
  o.kind = GraphKind::random;
  o.n = 40;
  o.m = 200;
  o.w_lo = -5;
  o.w_hi = 20;
  o.seed = 9;
  GraphF64 g = generate_real(o, 4);
  g.edges.push_back({0, 1, 0.1 + 0.2});  // 0.30000000000000004: 17 significant digits
  g.edges.push_back({1, 2, 1e-300});
  const GraphF64 expected = normalize(g);
  for (const char* file : {"r.gr", "r.mtx", "r.txt", "r.npy"}) {
    SCOPED_TRACE(file);
    io::write_graph(path(file), g);
    const AnyGraph back = io::read_any_graph(path(file));
    ASSERT_EQ(weight_type(back), WeightType::float64);
    const GraphF64 read = normalize(std::get<GraphF64>(back));
    ASSERT_EQ(read.n, expected.n);
    ASSERT_EQ(read.edges.size(), expected.edges.size());
    for (std::size_t e = 0; e < read.edges.size(); ++e) {
      EXPECT_EQ(read.edges[e].src, expected.edges[e].src);
      EXPECT_EQ(read.edges[e].dst, expected.edges[e].dst);
      EXPECT_EQ(read.edges[e].w, expected.edges[e].w) << "edge " << e;  // bit-exact round trip
    }
  }
  expect_error<UsageError>([&] { io::write_graph(path("r.bin"), g); }, {"holds integer weights"});
  expect_error<UsageError>([&] { io::write_graph(path("r.mat"), g); }, {"holds integer weights"});
  EXPECT_FALSE(fs::exists(path("r.bin")));
}

TEST_F(IoTest, MalformedRealWeights) {
  const std::string real_mtx = "%%MatrixMarket matrix coordinate real general\n2 2 1\n";
  const std::string minus_inf =
      npy_file("<f8", false, "(2, 2)", raw_bytes<double>({0, -std::numeric_limits<double>::infinity(), 0, 0}));
  expect_input_errors(
      {
          {"nan.gr", "p sp 2 1\na 1 2 nan\n", ":2", "weight 'nan' is NaN, not a length"},
          {"exponent.gr", "p sp 2 1\na 1 2 1.5e\n", ":2", "expected a number for the weight, found '1.5e'"},
          {"minus_inf.gr", "p sp 2 1\na 1 2 -inf\n", ":2", "weight '-inf' is -inf, not a length"},
          {"nan.mtx", real_mtx + "1 2 NaN\n", ":3", "weight 'NaN' is NaN"},
          {"exponent.mtx", real_mtx + "1 2 2e+\n", ":3", "expected a number for the value, found '2e+'"},
          {"int_field.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 0.5\n", ":3",
           "real value '0.5' in a Matrix Market file whose field is integer"},
          {"nan.txt", "0 1 2\n1 0 nan\n", ":2", "weight 'nan' is NaN"},
          {"exponent.txt", "0 1 3E\n", ":1", "expected a number for the weight, found '3E'"},
          {"dots.txt", "0 1 1.2.3\n", ":1", "expected a number for the weight, found '1.2.3'"},
          {"exponent.mat", "2\n0 1e-\n0 0\n", ":2", "expected a number as matrix entry, found '1e-'"},
          {"minus_inf.mat", "2\n0 -inf\n0 0\n", ":2", "weight '-inf' is -inf"},
          {"minus_inf.npy", minus_inf, "@" + std::to_string(minus_inf.size() - 24), "weight '-inf' is -inf"},
      },
      false, /*any_weights=*/true);
}

TEST_F(IoTest, ReadGraphNamesTheFirstRealWeight) {
  write_file("mixed.txt", "0 1 2\n1 2 3\n2 0 0.5\n0 2 0.75\n");
  expect_input_errors({{"mixed.txt", "0 1 2\n1 2 3\n2 0 0.5\n0 2 0.75\n", ":3", "weight '0.5' is not an integer"}});
}

TEST_F(IoTest, MalformedTextMatrixGraph) {
  expect_input_errors({
      {"empty.mat", "", ":1", "empty file: expected the vertex count n"},
      {"negative.mat", "-2\n", ":1", "negative vertex count -2"},
      {"few.mat", "3\n0 1 2\n3 4\n", ":3", "found 5 entries, expected n*n = 9"},
      {"extra.mat", "1\n0 5\n", ":2", "unexpected token '5' after the n*n = 1 entries"},
      {"range.dense", "2\n0 4294967296\n0 0\n", ":2", "weight 4294967296 is outside int32"},
      {"token.mat", "2\n0 x\n", ":2", "expected a number as matrix entry, found 'x'"},
  });
}

TEST_F(IoTest, MalformedMatrices) {
  expect_input_errors(
      {
          {"odd.bin", "123456", "@4", "size 6 bytes is not a whole number of int32 values"},
          {"rectangular.bin", int32_bytes({1, 2, 3}), "@12", "3 int32 values do not form a square matrix"},
          {"short_row.txt", "0 1\n2\n", ":2", "row 2 has 1 values, expected 2"},
          {"more_rows.txt", "0\n1\n", ":2", "more than the n = 1 rows"},
          {"fewer_rows.mat", "0 1 2\n1 0 2\n", ":2", "found 2 rows, expected n = 3"},
          {"token.txt", "0 z\n1 0\n", ":1", "expected an integer matrix entry or INF, found 'z'"},
          {"real.txt", "0 inf\n1 0.5\n", ":1", "entry 'inf' is a real value, not an int32 distance"},
          {"range.txt", "0 2147483648\n1 0\n", ":1", "entry 2147483648 is outside int32"},
      },
      true);
}

// Bug 10: the text matrix reader reserved n x n cells as soon as it saw the
// first row, so one row of 100000 zeros asked for 40 GB and failed with
// ResourceError instead of reporting the missing rows.
TEST_F(IoTest, TextMatrixWithOneLongRowReportsTheMissingRows) {
  std::string row;
  for (int k = 0; k < 100000; ++k) row += k ? " 0" : "0";
  expect_input_errors({{"one_row.txt", row + "\n", ":1", "found 1 rows, expected n = 100000"}}, true);
}

TEST_F(IoTest, UnreadableFiles) {
  const std::string absent = path("absent.gr");
  expect_error<InputError>([&] { io::read_graph(absent); }, {"cannot open " + absent + ": No such file or directory"});
  fs::create_directory(path("folder.bin"));
  expect_error<InputError>([&] { io::read_graph(path("folder.bin")); }, {path("folder.bin"), "Is a directory"});
  std::int64_t n = 0;
  expect_error<InputError>([&] { io::read_matrix(path("absent.npy"), n); }, {"No such file or directory"});
  expect_error<UsageError>([&] { io::read_graph(path("graph.csv")); }, {"graph.csv", "extension"});
}

TEST_F(IoTest, WriteErrors) {
  const Graph g{3, {{0, 1, 2}, {1, 2, 3}}};
  const std::string no_dir = path("missing/graph.bin");
  // An output that cannot be created is a failed write (exit 3), not bad input.
  expect_error<ResourceError>([&] { io::write_graph(no_dir, g); },
                              {"cannot open " + no_dir + " for writing: No such file or directory"});
  expect_error<ResourceError>([&] { io::write_matrix(no_dir, {0}, 1); }, {no_dir});
  if (fs::exists("/dev/full")) {
    expect_error<ResourceError>([&] { io::write_graph("/dev/full", g, Format::edge_list); },
                                {"cannot write /dev/full: No space left on device"});
    expect_error<ResourceError>(
        [&] { io::write_matrix("/dev/full", std::vector<std::int32_t>(1 << 20), 1 << 10, Format::nthu_bin); },
        {"/dev/full"});
  }
  expect_error<InputError>(
      [&] {
        io::write_graph(path("bad.gr"), Graph{2, {{0, 5, 1}}});
      },
      {"bad.gr", "edge 0 (0 -> 5) has a vertex outside 0..1"});
  expect_error<UsageError>([&] { io::write_matrix(path("m.bin"), {0, 1, 2}, 2); }, {"3 values", "n = 2"});
  expect_error<UsageError>([&] { io::write_matrix(path("m.gr"), {0}, 1); }, {"not as dimacs"});
  std::int64_t n = 0;
  expect_error<UsageError>([&] { io::read_matrix(path("m.mtx"), n); }, {"not as mtx"});
}

TEST_F(IoTest, SizeLimitsOfTextAndDenseOutputs) {
  const std::int64_t too_many = 4097;
  const std::vector<std::int32_t> big(static_cast<std::size_t>(too_many * too_many), 0);
  expect_error<UsageError>([&] { io::write_matrix(path("big.txt"), big, too_many); }, {"4096", "use .bin or .npy"});
  expect_error<UsageError>([&] { io::write_graph(path("big.mat"), Graph{too_many, {}}); }, {"big.mat", "4096"});
  expect_error<UsageError>([&] { io::write_graph(path("big.npy"), Graph{16385, {}}); }, {"big.npy", "16384"});
  // The same limits, and the text matrix's no-edge weight, before any graph exists.
  expect_error<UsageError>([&] { io::check_graph_output(path("big.mat"), too_many, 1, 9); }, {"big.mat", "4096"});
  expect_error<UsageError>([&] { io::check_graph_output(path("g.data"), 16385, 1, 9, Format::npy); },
                           {"g.data", "16384"});
  expect_error<UsageError>([&] { io::check_graph_output(path("g.csv"), 10, 1, 9); }, {"g.csv", "extension"});
  expect_error<UsageError>([&] { io::check_graph_output(path("g.mat"), 10, -3, 9); },
                           {"g.mat", "weights -3:9 include -1", "use .npy"});
  for (const char* fits : {"g.bin", "g.gr", "g.mtx", "g.txt"}) io::check_graph_output(path(fits), 100000, -9, 9);
  io::check_graph_output(path("g.npy"), 16384, -9, 9);
  io::check_graph_output(path("g.dense"), 4096, 0, 9);
  io::check_graph_output(path("g.mat"), 10, -9, -2);
  EXPECT_FALSE(fs::exists(path("big.mat")));
}

}  // namespace
}  // namespace apsp
