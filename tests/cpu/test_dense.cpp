// Dense views (apsp/dense.hpp): solve(view) against the edge-list solve of
// the same matrix read by an independent reference of scipy's dense rules,
// for every CPU algorithm (fw-seq and fw-blocked read the view in place, the
// others convert it), on seeded random matrices with negative and zero
// weights, NaN and +inf cells, undirected and unweighted readings, strided
// and Fortran-order views, int32 and float64 weight choices, n = 0 and 1 and
// around fw-blocked's tile size; and the errors (-inf naming its cell, a
// negative diagonal, integers outside int32).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "apsp/cpu.hpp"
#include "apsp/dense.hpp"
#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"

namespace apsp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An n x n matrix of doubles, row-major, and how to look at it.
struct Matrix {
  std::int64_t n = 0;
  std::vector<double> cells;
  double& at(std::int64_t i, std::int64_t j) { return cells[static_cast<std::size_t>(i * n + j)]; }
  double at(std::int64_t i, std::int64_t j) const { return cells[static_cast<std::size_t>(i * n + j)]; }
};

// Random cells: about `density` of them edges with weights lo..hi (integers,
// or with a fractional part when `fractional`), some zeros inside the range
// (no edge), and a few NaN and +inf cells (no edge); the diagonal random too
// but never negative.
Matrix random_matrix(std::int64_t n, double density, int lo, int hi, bool fractional, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<int> weight(lo, hi);
  Matrix m{n, std::vector<double>(static_cast<std::size_t>(n * n), 0.0)};
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double u = unit(rng);
      double w = 0;
      if (u < density)
        w = weight(rng) + (fractional ? 0.25 : 0.0);
      else if (u < density + 0.01)
        w = kNaN;
      else if (u < density + 0.02)
        w = kInfinity;
      if (i == j && w < 0) w = -w;
      m.at(i, j) = w;
    }
  return m;
}

// The reference reading of scipy's dense rules, cell by cell: the edges as
// a float64 graph (normalize() keeps the lighter of an undirected pair).
GraphF64 reference_graph(const Matrix& m, bool undirected, bool unweighted) {
  GraphF64 g;
  g.n = m.n;
  for (std::int64_t i = 0; i < m.n; ++i)
    for (std::int64_t j = 0; j < m.n; ++j) {
      const double x = m.at(i, j);
      if (i == j || x == 0 || std::isnan(x) || x == kInfinity) continue;
      const double w = unweighted ? 1.0 : x;
      g.edges.push_back({static_cast<vertex_t>(i), static_cast<vertex_t>(j), w});
      if (undirected) g.edges.push_back({static_cast<vertex_t>(j), static_cast<vertex_t>(i), w});
    }
  return normalize(g);
}

// Cells of T laid out in `storage` with the given strides (in elements):
// row-major (n, 1), Fortran order (1, n) or every other row and column of a
// 2n x 2n array (4n, 2).
enum class Layout { row_major, fortran, strided };

template <class T>
DenseView lay_out(const Matrix& m, Layout layout, std::vector<T>& storage) {
  const std::int64_t n = m.n;
  std::int64_t rs = n, cs = 1;
  std::size_t size = static_cast<std::size_t>(n * n);
  if (layout == Layout::fortran) rs = 1, cs = n;
  if (layout == Layout::strided) rs = 4 * n, cs = 2, size = static_cast<std::size_t>(4 * n * n);
  storage.assign(size, T{});
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double x = m.at(i, j);  // integer cells: NaN and inf are 0, no edge either way
      storage[static_cast<std::size_t>(i * rs + j * cs)] =
          std::is_integral<T>::value && !std::isfinite(x) ? T{} : static_cast<T>(x);
    }
  DenseView v;
  v.n = n;
  v.data = storage.data();
  v.element = dense_element_of<T>;
  v.row_stride = rs;
  v.col_stride = cs;
  return v;
}

SolveOptions cpu(const std::string& algorithm) {
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = algorithm;
  return o;
}

// solve(view) against solve(reference graph): same weight type, algorithm
// and distances (exact for int32, within 1e-9 relative for float64).
void expect_same_as_edges(const DenseView& v, const GraphF64& reference, const SolveOptions& o) {
  SCOPED_TRACE("algorithm " + o.algorithm + ", n = " + std::to_string(v.n));
  const WeightType expected = v.unweighted ? choose_weight_type(v.n, true, 1.0) : choose_weight_type(reference);
  EXPECT_EQ(scan_dense(v).weights, expected);
  EXPECT_EQ(scan_dense(v).m, static_cast<std::int64_t>(reference.edges.size()));
  HostMatrixSink sink;
  const SolveSummary s = solve(v, o, sink);
  EXPECT_EQ(s.weights, expected);
  if (expected == WeightType::int32) {
    const Graph ints = std::get<Graph>(convert_weights(AnyGraph(reference), WeightType::int32));
    const SolveResult r = solve(ints, o);
    EXPECT_EQ(s.algorithm, r.algorithm);
    ASSERT_EQ(sink.distances().size(), r.dist.size());
    for (std::size_t x = 0; x < r.dist.size(); ++x) ASSERT_EQ(sink.distances()[x], r.dist[x]) << "cell " << x;
  } else {
    const SolveResultF64 r = solve(reference, o);
    EXPECT_EQ(s.algorithm, r.algorithm);
    ASSERT_EQ(sink.distances_f64().size(), r.dist.size());
    for (std::size_t x = 0; x < r.dist.size(); ++x) {
      const double a = sink.distances_f64()[x], b = r.dist[x];
      if (std::isinf(b))
        ASSERT_EQ(a, b) << "cell " << x;
      else
        ASSERT_NEAR(a, b, 1e-9 * (1 + std::fabs(b))) << "cell " << x;
    }
  }
}

const char* const kAlgorithms[] = {"auto", "fw-blocked", "fw-seq", "dijkstra", "johnson", "bellman-ford"};

TEST(DenseView, MatchesTheEdgePathOnRandomMatrices) {
  std::uint32_t seed = 1;
  for (const std::int64_t n : {0, 1, 2, 7, 63, 64, 65, 130}) {
    for (const bool undirected : {false, true})
      for (const bool unweighted : {false, true}) {
        // Directed: some forward edges (i < j) negative and every backward
        // one heavier than n * 50, so no cycle is negative.
        Matrix m = random_matrix(n, 0.2, 0, 50, false, seed++);
        if (!undirected)
          for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
              double& x = m.at(i, j);
              if (i == j || x == 0 || !std::isfinite(x)) continue;
              if (j > i && (i + j) % 3 == 0) x = -x;
              if (j < i) x += 50.0 * static_cast<double>(n);
            }
        const GraphF64 reference = reference_graph(m, undirected, unweighted);
        std::vector<double> storage;
        DenseView v = lay_out(m, Layout::row_major, storage);
        v.undirected = undirected;
        v.unweighted = unweighted;
        for (const char* algorithm : kAlgorithms) {
          if (std::string(algorithm) == "dijkstra" && weight_stats(reference).has_negative()) continue;
          expect_same_as_edges(v, reference, cpu(algorithm));
        }
      }
  }
}

TEST(DenseView, RealWeightsSolveInFloat64) {
  for (const std::int64_t n : {5, 64, 100}) {
    const Matrix m = random_matrix(n, 0.3, 1, 30, true, 100 + static_cast<std::uint32_t>(n));
    const GraphF64 reference = reference_graph(m, false, false);
    for (const Layout layout : {Layout::row_major, Layout::fortran, Layout::strided}) {
      std::vector<double> storage;
      const DenseView v = lay_out(m, layout, storage);
      ASSERT_EQ(scan_dense(v).weights, WeightType::float64);
      for (const char* algorithm : kAlgorithms) expect_same_as_edges(v, reference, cpu(algorithm));
    }
    // float32 cells: 0.25 steps are exact in float.
    std::vector<float> floats;
    const DenseView f = lay_out(m, Layout::fortran, floats);
    expect_same_as_edges(f, reference, cpu("fw-blocked"));
  }
}

TEST(DenseView, StridedAndFortranViewsAndIntegerCells) {
  const Matrix m = random_matrix(70, 0.15, 0, 40, false, 7);
  for (const bool undirected : {false, true}) {
    Matrix cells = m;
    const GraphF64 reference = reference_graph(cells, undirected, false);
    for (const Layout layout : {Layout::row_major, Layout::fortran, Layout::strided}) {
      std::vector<double> doubles;
      std::vector<std::int64_t> longs;
      std::vector<std::int32_t> ints;
      for (DenseView v :
           {lay_out(cells, layout, doubles), lay_out(cells, layout, longs), lay_out(cells, layout, ints)}) {
        v.undirected = undirected;
        for (const char* algorithm : {"fw-blocked", "fw-seq", "johnson"})
          expect_same_as_edges(v, reference, cpu(algorithm));
      }
    }
  }
}

TEST(DenseView, UndirectedTakesTheLighterCell) {
  // 0 -> 1 weighs 5, 1 -> 0 weighs 2 (and 2.5 hidden behind a 2 is not a
  // real weight: the pair's lighter cell is the edge's).
  std::vector<double> cells = {0, 5, 0, 2, 0, 7, 0, 2.5, 0};
  DenseView v{3, cells.data(), DenseElement::float64, 3, 1, true, false};
  cells[5] = 2;  // 1 -> 2 weighs 2, 2 -> 1 weighs 2.5: the edge is 2 both ways
  HostMatrixSink sink;
  const SolveSummary s = solve(v, cpu("fw-blocked"), sink);
  EXPECT_EQ(s.weights, WeightType::int32);
  const std::vector<dist_t> expected = {0, 2, 4, 2, 0, 2, 4, 2, 0};
  EXPECT_EQ(std::vector<dist_t>(sink.distances().begin(), sink.distances().end()), expected);
}

TEST(DenseView, WeightTypeChoice) {
  std::vector<double> cells = {0, 3, 0, 0};
  DenseView v{2, cells.data(), DenseElement::float64, 2, 1, false, false};
  EXPECT_EQ(scan_dense(v).weights, WeightType::int32);
  cells[1] = 3.5;
  EXPECT_EQ(scan_dense(v).weights, WeightType::float64);
  v.unweighted = true;
  EXPECT_EQ(scan_dense(v).weights, WeightType::int32);
  v.unweighted = false;
  // Two vertices: int32 while (n-1) * |w| < kInf (choose_weight_type's bound).
  cells[1] = kInf - 1.0;
  EXPECT_EQ(scan_dense(v).weights, WeightType::int32);
  cells[1] = kInf;
  EXPECT_EQ(scan_dense(v).weights, WeightType::float64);
  cells[1] = 2 * kMaxAutoIntWeight;
  EXPECT_EQ(scan_dense(v).weights, WeightType::float64);
  std::vector<std::int32_t> ints = {0, kInf - 1, 0, 0};
  const DenseView int_view{2, ints.data(), DenseElement::int32, 2, 1, false, false};
  EXPECT_EQ(scan_dense(int_view).weights, WeightType::int32);
  ints[1] = kInf;
  EXPECT_EQ(scan_dense(int_view).weights, WeightType::float64);
  // A diagonal cell is no edge: it does not make the weights real.
  cells[1] = 3;
  cells[0] = 0.5;
  EXPECT_EQ(scan_dense(v).weights, WeightType::int32);
  EXPECT_EQ(scan_dense(v).m, 1);
}

TEST(DenseView, EmptyAndSingleVertex) {
  const DenseView empty{0, nullptr, DenseElement::float64, 0, 0, false, false};
  for (const char* algorithm : kAlgorithms) {
    HostMatrixSink sink;
    const SolveSummary s = solve(empty, cpu(algorithm), sink);
    EXPECT_EQ(s.n, 0);
    EXPECT_TRUE(sink.distances().empty());
  }
  EXPECT_EQ(std::get<Graph>(dense_to_graph(empty)).n, 0);
  double one = 4;  // a positive self-loop: dropped
  const DenseView single{1, &one, DenseElement::float64, 1, 1, false, false};
  for (const char* algorithm : kAlgorithms) {
    HostMatrixSink sink;
    solve(single, cpu(algorithm), sink);
    ASSERT_EQ(sink.distances().size(), 1u);
    EXPECT_EQ(sink.distances()[0], 0);
  }
}

// scipy's dense reading (csgraph_from_dense): -inf and every float cell with
// |w| <= 1e-8 are no edge, like 0, NaN and +inf.
TEST(DenseView, MinusInfinityAndCellsWithin1e8OfZeroAreNoEdge) {
  Matrix m = random_matrix(80, 0.1, 1, 9, true, 3);
  m.at(41, 17) = -kInfinity;
  m.at(60, 2) = 1e-8;
  m.at(3, 4) = -1e-8;
  m.at(5, 6) = 5e-9;
  m.at(7, 8) = 1.5e-8;  // an edge
  Matrix expected = m;
  expected.at(41, 17) = expected.at(60, 2) = expected.at(3, 4) = expected.at(5, 6) = 0;
  std::vector<double> storage;
  for (const Layout layout : {Layout::row_major, Layout::fortran}) {
    const DenseView v = lay_out(m, layout, storage);
    for (const char* algorithm : {"fw-blocked", "dijkstra"})
      expect_same_as_edges(v, reference_graph(expected, false, false), cpu(algorithm));
  }
  std::vector<float> narrow;
  const DenseView f32 = lay_out(m, Layout::row_major, narrow);
  EXPECT_EQ(scan_dense(f32).m, static_cast<std::int64_t>(reference_graph(expected, false, false).edges.size()));
  DenseView undirected = lay_out(m, Layout::row_major, storage);
  undirected.undirected = true;
  EXPECT_EQ(scan_dense(undirected).m, static_cast<std::int64_t>(reference_graph(expected, true, false).edges.size()));
}

TEST(DenseView, NegativeDiagonalIsANegativeCycle) {
  Matrix m = random_matrix(66, 0.1, 1, 9, false, 4);
  m.at(65, 65) = -1;
  std::vector<double> storage;
  const DenseView v = lay_out(m, Layout::strided, storage);
  for (const char* algorithm : {"fw-blocked", "fw-seq", "johnson"}) {
    try {
      HostMatrixSink sink;
      solve(v, cpu(algorithm), sink);
      FAIL() << "no error";
    } catch (const NegativeCycleError& e) {
      EXPECT_EQ(e.vertex(), 65);
    }
  }
}

// Integer cells beyond int32 (int64, uint64) are solved in float64, as
// scipy converts them; the heavier cell of an undirected pair never wraps.
TEST(DenseView, IntegerCellsOutsideInt32AreFloat64Weights) {
  std::vector<std::int64_t> cells = {0, 1, std::int64_t{1} << 40, 0};
  DenseView v{2, cells.data(), DenseElement::int64, 2, 1, false, false};
  EXPECT_EQ(scan_dense(v).m, 2);
  EXPECT_EQ(scan_dense(v).weights, WeightType::float64);
  HostMatrixSink sink;
  solve(v, cpu("fw-blocked"), sink);
  ASSERT_EQ(sink.distances_f64().size(), 4u);
  EXPECT_EQ(sink.distances_f64()[2], static_cast<double>(std::int64_t{1} << 40));
  v.unweighted = true;
  EXPECT_EQ(scan_dense(v).m, 2);
  EXPECT_EQ(scan_dense(v).weights, WeightType::int32);
  // Undirected: the pair's lighter cell 1 is the edge, int32 weights.
  v.unweighted = false;
  v.undirected = true;
  EXPECT_EQ(scan_dense(v).weights, WeightType::int32);
  for (const char* algorithm : {"fw-blocked", "dijkstra"}) {
    HostMatrixSink ints;
    solve(v, cpu(algorithm), ints);
    EXPECT_EQ(ints.distances()[2], 1) << algorithm;
  }
  std::vector<std::uint64_t> unsigned_cells = {0, 7, std::numeric_limits<std::uint64_t>::max(), 0};
  DenseView u{2, unsigned_cells.data(), DenseElement::uint64, 2, 1, true, false};
  HostMatrixSink ints;
  solve(u, cpu("fw-blocked"), ints);
  EXPECT_EQ(ints.distances()[1], 7);
  EXPECT_EQ(ints.distances()[2], 7);
}

// Every element type's boundaries around int32's range: the exact
// engine's weights are the integers W holds, nothing rounded or wrapped.
TEST(DenseView, HoldsIntegerOfInt32AtEveryTypesBoundaries) {
  constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  EXPECT_TRUE(holds_integer_of<std::int32_t>(std::int32_t{lo}));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(std::int32_t{hi}));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(std::int8_t{-128}));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(std::uint16_t{65535}));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(std::int64_t{lo}));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(std::int64_t{hi}));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(std::int64_t{lo - 1}));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(std::int64_t{hi + 1}));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(std::int64_t{1} << 40));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(static_cast<std::uint32_t>(hi)));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(static_cast<std::uint32_t>(hi + 1)));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(std::numeric_limits<std::uint64_t>::max()));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(std::uint64_t{7}));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(static_cast<double>(lo)));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(static_cast<double>(hi)));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(static_cast<double>(lo) - 1));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(static_cast<double>(hi) + 1));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(static_cast<double>(hi) + 0.5));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(2.5));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(-0.5));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(-0.0));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(1e300));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(-std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(holds_integer_of<std::int32_t>(16777216.0f));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(2147483648.0f));  // 2^31: the float nearest int32's maximum
  EXPECT_TRUE(holds_integer_of<std::int32_t>(-2147483648.0f));
  EXPECT_FALSE(holds_integer_of<std::int32_t>(0.25f));
}

TEST(DenseView, StagesAddUpAndTheScanIsInside) {
  const Matrix m = random_matrix(200, 0.05, 1, 99, false, 9);
  std::vector<double> storage;
  const DenseView v = lay_out(m, Layout::row_major, storage);
  HostMatrixSink sink;
  const SolveSummary s = solve(v, cpu("fw-blocked"), sink);
  EXPECT_GT(s.times.seconds("scan dense"), 0);
  EXPECT_GT(s.times.seconds("initialize"), 0);
  EXPECT_EQ(s.times.seconds("dense to edges"), 0);  // read in place
  HostMatrixSink other;
  const SolveSummary d = solve(v, cpu("dijkstra"), other);
  EXPECT_GT(d.times.seconds("dense to edges"), 0);
  EXPECT_GT(d.times.seconds("scan dense"), 0);
}

TEST(DenseView, PredecessorsTakeTheEdgePath) {
  const Matrix m = random_matrix(90, 0.1, 1, 20, false, 11);
  std::vector<double> storage;
  const DenseView v = lay_out(m, Layout::row_major, storage);
  SolveOptions o = cpu("fw-blocked");
  o.predecessors = true;
  HostMatrixSink sink;
  const SolveSummary s = solve(v, o, sink);
  EXPECT_GT(s.times.seconds("dense to edges"), 0);
  const Graph ints = std::get<Graph>(convert_weights(AnyGraph(reference_graph(m, false, false)), WeightType::int32));
  const SolveResult r = solve(ints, o);
  for (std::size_t x = 0; x < r.dist.size(); ++x) ASSERT_EQ(sink.distances()[x], r.dist[x]);
  for (std::size_t x = 0; x < r.pred.size(); ++x) ASSERT_EQ(sink.predecessors()[x], r.pred[x]);
}

TEST(DenseView, DenseToGraphIsNormalized) {
  const Matrix m = random_matrix(75, 0.2, -5, 5, true, 12);
  std::vector<double> storage;
  DenseView v = lay_out(m, Layout::fortran, storage);
  for (const bool undirected : {false, true}) {
    v.undirected = undirected;
    Matrix cells = m;
    const AnyGraph g = dense_to_graph(v);
    const GraphF64& edges = std::get<GraphF64>(g);
    EXPECT_NO_THROW(check_normalized(edges));
    const GraphF64 reference = reference_graph(cells, undirected, false);
    ASSERT_EQ(edges.edges.size(), reference.edges.size());
    for (std::size_t e = 0; e < edges.edges.size(); ++e) {
      EXPECT_EQ(edges.edges[e].src, reference.edges[e].src);
      EXPECT_EQ(edges.edges[e].dst, reference.edges[e].dst);
      EXPECT_EQ(edges.edges[e].w, reference.edges[e].w);
    }
  }
}

TEST(DenseView, ChooseBackendScansOnlyWhenTheWeightTypeMatters) {
  std::vector<double> cells = {0, 1.5, 0, 0};
  const DenseView v{2, cells.data(), DenseElement::float64, 2, 1, false, false};
  SolveOptions o;
  EXPECT_EQ(choose_backend(v, o), Backend::cpu);
  o.precision = Precision::int64;
  EXPECT_EQ(choose_backend(v, o), Backend::cpu);
}

}  // namespace
}  // namespace apsp
