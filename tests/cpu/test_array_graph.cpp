// apsp::graph_from_coo / graph_from_csr (apsp/array_graph.hpp): seeded
// random sparse matrices over many parts (duplicates, self-loops, explicit
// zeros, +inf and NaN entries, negative weights) against a sequential
// reading of the same entries, CSR and CSC against COO, the first bad entry
// named whatever part holds it, and the auto weight type (the int32 attempt
// and its float64 fallback, wide integers, the (n-1) * max|w| bound).
#include "apsp/array_graph.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "apsp/error.hpp"

namespace apsp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

template <class T>
ArrayView view_of(const std::vector<T>& v) {
  return ArrayView{v.data(), static_cast<std::int64_t>(v.size()), 1, dense_element_of<T>};
}

// m random entries of an n x n matrix: weights in -3..40 (integers, or with
// .5 when `fractional`), a few +inf / NaN, self-loops and repeated cells.
struct Entries {
  std::int64_t n = 0;
  std::vector<std::int64_t> row, col;
  std::vector<double> data;
};

Entries random_entries(std::int64_t n, std::size_t m, bool fractional, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> vertex(0, n - 1);
  std::uniform_int_distribution<int> weight(-3, 40);
  std::uniform_real_distribution<double> unit(0, 1);
  Entries e;
  e.n = n;
  for (std::size_t k = 0; k < m; ++k) {
    const std::int64_t i = vertex(rng), j = unit(rng) < 0.02 ? i : vertex(rng);
    const double u = unit(rng);
    double w = weight(rng) + (fractional ? 0.5 : 0.0);
    if (u < 0.01)
      w = kInfinity;
    else if (u < 0.02)
      w = std::nan("");
    e.row.push_back(i);
    e.col.push_back(j);
    e.data.push_back(i == j ? std::fabs(w) : w);
  }
  return e;
}

// The sequential reading: every stored entry an edge except +inf and NaN
// (weight 1 when unweighted), both ways when undirected; then normalize().
GraphF64 reference(const Entries& e, bool directed, bool unweighted) {
  GraphF64 g;
  g.n = e.n;
  for (std::size_t k = 0; k < e.data.size(); ++k) {
    const double x = e.data[k];
    if (!unweighted && (std::isnan(x) || x == kInfinity)) continue;
    const double w = unweighted ? 1.0 : x;
    g.edges.push_back({static_cast<vertex_t>(e.row[k]), static_cast<vertex_t>(e.col[k]), w});
    if (!directed) g.edges.push_back({static_cast<vertex_t>(e.col[k]), static_cast<vertex_t>(e.row[k]), w});
  }
  return normalize(g);
}

GraphF64 as_f64(const AnyGraph& g) { return std::get<GraphF64>(convert_weights(g, WeightType::float64)); }

void expect_same(const AnyGraph& got, const GraphF64& want) {
  const GraphF64 g = as_f64(got);
  ASSERT_EQ(g.n, want.n);
  ASSERT_EQ(g.edges.size(), want.edges.size());
  for (std::size_t k = 0; k < g.edges.size(); ++k) {
    ASSERT_EQ(g.edges[k].src, want.edges[k].src) << k;
    ASSERT_EQ(g.edges[k].dst, want.edges[k].dst) << k;
    ASSERT_EQ(g.edges[k].w, want.edges[k].w) << k;
  }
}

// The CSR arrays of `e` in entry order sorted by row (stable: duplicates keep their order).
struct Csr3 {
  std::vector<std::int64_t> indptr;
  std::vector<std::int32_t> indices;
  std::vector<double> data;
};
Csr3 csr_of(const Entries& e, bool by_column) {
  Csr3 c;
  c.indptr.assign(static_cast<std::size_t>(e.n) + 1, 0);
  const auto& major = by_column ? e.col : e.row;
  const auto& minor = by_column ? e.row : e.col;
  for (const std::int64_t r : major) ++c.indptr[static_cast<std::size_t>(r) + 1];
  for (std::int64_t r = 0; r < e.n; ++r) c.indptr[r + 1] += c.indptr[r];
  std::vector<std::int64_t> next(c.indptr.begin(), c.indptr.end() - 1);
  c.indices.resize(e.data.size());
  c.data.resize(e.data.size());
  for (std::size_t k = 0; k < e.data.size(); ++k) {
    const auto at = static_cast<std::size_t>(next[static_cast<std::size_t>(major[k])]++);
    c.indices[at] = static_cast<std::int32_t>(minor[k]);
    c.data[at] = e.data[k];
  }
  return c;
}

TEST(ArrayGraph, CooCsrAndCscOfManyPartsEqualTheSequentialReading) {
  for (const bool fractional : {false, true}) {
    const Entries e = random_entries(700, 20000, fractional, fractional ? 7 : 8);  // about 10 parts
    for (const bool directed : {true, false}) {
      for (const bool unweighted : {false, true}) {
        SCOPED_TRACE(std::string(fractional ? "real" : "integer") + (directed ? " directed" : " undirected") +
                     (unweighted ? " unweighted" : ""));
        const GraphF64 want = reference(e, directed, unweighted);
        const AnyGraph coo = graph_from_coo(e.n, view_of(e.row), view_of(e.col), view_of(e.data), directed, unweighted);
        expect_same(coo, want);
        EXPECT_EQ(weight_type(coo), fractional && !unweighted ? WeightType::float64 : WeightType::int32);
        const Csr3 csr = csr_of(e, false);
        expect_same(graph_from_csr(e.n, view_of(csr.indptr), view_of(csr.indices), view_of(csr.data), directed,
                                   unweighted, false),
                    want);
        const Csr3 csc = csr_of(e, true);
        expect_same(graph_from_csr(e.n, view_of(csc.indptr), view_of(csc.indices), view_of(csc.data), directed,
                                   unweighted, true),
                    want);
      }
    }
  }
}

TEST(ArrayGraph, ANormalizedCsrComesBackAsIs) {
  const Entries e = random_entries(300, 9000, false, 9);
  const GraphF64 want = reference(e, true, false);
  const Csr csr = to_csr(std::get<Graph>(convert_weights(AnyGraph(want), WeightType::int32)));
  const AnyGraph g =
      graph_from_csr(csr.n, view_of(csr.row_start), view_of(csr.col), view_of(csr.weight), true, false, false);
  expect_same(g, want);
}

TEST(ArrayGraph, TheFirstBadEntryIsNamedWhateverPartHoldsIt) {
  Entries e = random_entries(300, 12000, false, 10);
  for (double& x : e.data)
    if (!std::isfinite(x)) x = 1;                            // every entry an edge
  const std::size_t early = 2048 + 17, late = 4 * 2048 + 5;  // in the second part and in the fifth
  Entries bad = e;
  bad.col[early] = 300;
  bad.data[late] = -kInfinity;
  try {
    graph_from_coo(bad.n, view_of(bad.row), view_of(bad.col), view_of(bad.data), true, false);
    FAIL() << "no error";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("entry " + std::to_string(early) + " ("), std::string::npos) << err.what();
  }
  bad = e;
  bad.col[late] = -1;
  bad.data[early] = -kInfinity;
  try {
    graph_from_coo(bad.n, view_of(bad.row), view_of(bad.col), view_of(bad.data), true, false);
    FAIL() << "no error";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("has weight -inf"), std::string::npos) << err.what();
  }
  // A real weight early (the int32 attempt stops there) and a bad vertex later: still named.
  bad = e;
  bad.data[17] = 0.5;
  bad.row[late] = 400;
  EXPECT_THROW(graph_from_coo(bad.n, view_of(bad.row), view_of(bad.col), view_of(bad.data), true, false), InputError);
  std::vector<double> fractional_index = {0.5};
  std::vector<double> one = {1.0};
  EXPECT_THROW(graph_from_coo(2, view_of(fractional_index), view_of(fractional_index), view_of(one), true, false),
               InputError);
  std::vector<std::int64_t> short_indptr = {0, 1};
  std::vector<std::int32_t> col = {1};
  EXPECT_THROW(graph_from_csr(2, view_of(short_indptr), view_of(col), view_of(one), true, false, false), InputError);
}

TEST(ArrayGraph, TheAutoWeightTypeTriesInt32FirstAndHoldsTheAnswer) {
  std::vector<std::int64_t> row = {0, 1, 2}, col = {1, 2, 3};
  std::vector<double> integers = {3, -2, 5};
  EXPECT_EQ(weight_type(graph_from_coo(4, view_of(row), view_of(col), view_of(integers), true, false)),
            WeightType::int32);
  std::vector<double> real = {3, 2.5, 5};
  EXPECT_EQ(weight_type(graph_from_coo(4, view_of(row), view_of(col), view_of(real), true, false)),
            WeightType::float64);
  // int64 and uint64 weights beyond int32: float64, as scipy converts them.
  std::vector<std::int64_t> wide = {3, std::int64_t{1} << 40, 5};
  const AnyGraph g = graph_from_coo(4, view_of(row), view_of(col), view_of(wide), true, false);
  ASSERT_EQ(weight_type(g), WeightType::float64);
  EXPECT_EQ(std::get<GraphF64>(g).edges[1].w, 1099511627776.0);
  std::vector<std::uint64_t> unsigned_wide = {3, std::numeric_limits<std::uint64_t>::max(), 5};
  EXPECT_EQ(weight_type(graph_from_coo(4, view_of(row), view_of(col), view_of(unsigned_wide), true, false)),
            WeightType::float64);
  // The bound: 3 * 357913940 < kInf is int32; 3 * 357913941 = kInf is float64.
  std::vector<std::int32_t> ints = {1, 357913940, 5};
  EXPECT_EQ(weight_type(graph_from_coo(4, view_of(row), view_of(col), view_of(ints), true, false)), WeightType::int32);
  ints[1] = 357913941;
  EXPECT_EQ(weight_type(graph_from_coo(4, view_of(row), view_of(col), view_of(ints), true, false)),
            WeightType::float64);
  // Stored +inf and NaN: no edge, or weight-1 edges when unweighted.
  std::vector<double> absent = {kInfinity, std::nan(""), 5};
  EXPECT_EQ(as_f64(graph_from_coo(4, view_of(row), view_of(col), view_of(absent), true, false)).edges.size(), 1u);
  EXPECT_EQ(as_f64(graph_from_coo(4, view_of(row), view_of(col), view_of(absent), true, true)).edges.size(), 3u);
}

}  // namespace
}  // namespace apsp
