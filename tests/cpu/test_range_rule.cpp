// The rule of the GPU range certificate (src/cuda/range_rule.hpp), run on the
// host over matrices shaped like a GPU result: every entry min(distance,
// infinity). The GPU kernels run the same functions (tests/gpu checks them
// end to end).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "cuda/range_rule.hpp"

namespace apsp {
namespace {

using cuda::RangeView;

// A result as the GPU leaves it: Floyd-Warshall in int64 on `g` (normalized,
// non-negative weights), each entry clamped to `infinity`, stored as T with
// `shift` tag bits below the distance.
template <class T>
std::vector<T> clamped_result(const Graph& g, int infinity, int shift = 0) {
  const std::int64_t n = g.n;
  const std::int64_t unreachable = std::int64_t{1} << 62;
  std::vector<std::int64_t> d(static_cast<std::size_t>(n * n), unreachable);
  for (std::int64_t i = 0; i < n; ++i) d[i * n + i] = 0;
  for (const Edge& e : g.edges) d[e.src * n + e.dst] = std::min<std::int64_t>(d[e.src * n + e.dst], e.w);
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        if (d[i * n + k] < unreachable && d[k * n + j] < unreachable)
          d[i * n + j] = std::min(d[i * n + j], d[i * n + k] + d[k * n + j]);
  std::vector<T> out(d.size());
  for (std::size_t x = 0; x < d.size(); ++x) out[x] = static_cast<T>(std::min<std::int64_t>(d[x], infinity) << shift);
  return out;
}

// The certificate as the GPU runs it: the quick check over the largest
// finite distance, else the exact check of every cell.
template <class T>
bool certificate_holds(const std::vector<T>& matrix, const Graph& g, int infinity, int shift = 0) {
  const RangeView<T> view{matrix.data(), g.n, g.n, shift, infinity};
  const Csr csr = to_csr(g);
  const cuda::DeviceCsr edges{csr.row_start.data(), csr.col.data(), csr.weight.data(), csr.n,
                              static_cast<std::int64_t>(csr.col.size())};
  const WeightStats stats = weight_stats(g);
  int largest = INT_MIN;
  for (std::int64_t i = 0; i < g.n; ++i)
    for (std::int64_t j = 0; j < g.n; ++j)
      if (view.distance(i, j) < infinity) largest = std::max(largest, view.distance(i, j));
  if (cuda::range_holds_below(largest, infinity, stats.max_w)) return true;
  for (std::int64_t i = 0; i < g.n; ++i)
    for (std::int64_t u = 0; u < g.n; ++u)
      if (cuda::cell_escapes_range(view, edges, stats.max_w, i, u)) return false;
  return true;
}

Graph graph_of(std::int64_t n, std::vector<Edge> edges) {
  Graph g;
  g.n = n;
  g.edges = std::move(edges);
  return normalize(g);
}

// Bug 2: one edge of 6e8 among 2000 vertices. Every distance fits, but the
// a-priori rule (largest >= kInf - max_weight) refused it; the certificate
// holds. (The matrix is built directly: a triple loop at n = 2000 is slow.)
TEST(RangeRule, LargeWeightWhoseDistancesFitIsCertified) {
  const Graph g = graph_of(2000, {{0, 1, 600000000}});
  std::vector<dist_t> d(static_cast<std::size_t>(g.n * g.n), kInf);
  for (std::int64_t i = 0; i < g.n; ++i) d[i * g.n + i] = 0;
  d[1] = 600000000;
  EXPECT_FALSE(cuda::range_holds_below(600000000, kInf, 600000000)) << "the quick check alone cannot decide";
  EXPECT_TRUE(certificate_holds(d, g, kInf));
}

TEST(RangeRule, PathBeyondInt32IsCaught) {
  const Graph g = graph_of(4, {{0, 1, 600000000}, {1, 2, 600000000}, {3, 0, 5}});
  const std::vector<dist_t> d = clamped_result<dist_t>(g, kInf);
  ASSERT_EQ(d[0 * 4 + 2], kInf) << "clamped like the GPU";
  EXPECT_FALSE(certificate_holds(d, g, kInf));
}

// Near the limit but in range, with unreachable vertices and edges that lead
// into parts no finite entry reaches: nothing escapes.
TEST(RangeRule, UnreachablePartsAreNotEscapes) {
  const Graph g = graph_of(6, {{0, 1, 1000000000}, {1, 2, 73741822}, {3, 4, 1000000000}, {4, 5, 7}, {5, 3, 0}});
  const std::vector<dist_t> d = clamped_result<dist_t>(g, kInf);
  ASSERT_EQ(d[0 * 6 + 2], kInf - 1);
  ASSERT_EQ(d[0 * 6 + 3], kInf);
  EXPECT_TRUE(certificate_holds(d, g, kInf));
  // One more unit and 0 -> 2 leaves the range.
  const Graph over = graph_of(6, {{0, 1, 1000000000}, {1, 2, 73741823}, {3, 4, 1000000000}});
  EXPECT_FALSE(certificate_holds(clamped_result<dist_t>(over, kInf), over, kInf));
}

// The int16 width (infinity 16383): a path of 200 edges of weight 100.
TEST(RangeRule, Int16PathBeyondItsInfinityIsCaught) {
  std::vector<Edge> edges;
  for (vertex_t v = 0; v + 1 < 200; ++v) edges.push_back(Edge{v, v + 1, 100});
  const Graph long_path = graph_of(200, edges);
  EXPECT_FALSE(certificate_holds(clamped_result<std::int16_t>(long_path, 16383), long_path, 16383));
  edges.resize(163);  // 163 * 100 < 16383 fits, though the quick check cannot tell
  const Graph short_path = graph_of(200, edges);
  EXPECT_FALSE(cuda::range_holds_below(16300, 16383, 100));
  EXPECT_TRUE(certificate_holds(clamped_result<std::int16_t>(short_path, 16383), short_path, 16383));
}

// supernodal's int16 working rows leave the device widened to int32 rows,
// the int16 infinity (16383) as kInf, and are certified as int32 rows read
// with infinity 16383: the verdict is the int16 matrix's. The chain's
// longest distance is 16382 (the largest finite int16 value: holds), then
// 16383 (the int16 infinity: escapes); weights below fw's int16 rule (8191).
TEST(RangeRule, WidenedInt16RowsAreCertifiedWithTheInt16Infinity) {
  for (const weight_t last : {2, 3}) {
    const Graph g = graph_of(6, {{0, 1, 8190}, {1, 2, 8190}, {2, 3, last}, {3, 4, 0}});
    const std::vector<std::int16_t> narrow = clamped_result<std::int16_t>(g, 16383);
    std::vector<dist_t> widened(narrow.size());
    std::transform(narrow.begin(), narrow.end(), widened.begin(),
                   [](std::int16_t x) { return x < 16383 ? dist_t{x} : kInf; });
    const bool fits = last == 2;
    EXPECT_EQ(certificate_holds(narrow, g, 16383), fits) << last;
    EXPECT_EQ(certificate_holds(widened, g, 16383), fits) << last;
    EXPECT_TRUE(certificate_holds(widened, g, kInf)) << "the int32 infinity alone cannot see it";
  }
}

// Tagged words: the distance above 8 tag bits, infinity 2^22 - 1.
TEST(RangeRule, TaggedWordsAreReadAboveTheirTag) {
  const int infinity = (1 << 22) - 1;
  std::vector<Edge> edges;
  for (vertex_t v = 0; v + 1 < 100; ++v) edges.push_back(Edge{v, v + 1, 50000});
  const Graph g = graph_of(100, edges);
  EXPECT_FALSE(certificate_holds(clamped_result<std::int32_t>(g, infinity, 8), g, infinity, 8));
  edges.resize(80);  // 80 * 50000 < 2^22 - 1
  const Graph fits = graph_of(100, edges);
  EXPECT_TRUE(certificate_holds(clamped_result<std::int32_t>(fits, infinity, 8), fits, infinity, 8));
}

}  // namespace
}  // namespace apsp
