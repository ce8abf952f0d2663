#include "support/cases.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "apsp/error.hpp"
#include "apsp/generate.hpp"

namespace apsp::test {
namespace {

struct WeightRange {
  const char* label;
  weight_t lo, hi;
};
constexpr WeightRange kWeightRanges[] = {{"pos", 1, 100}, {"zero", 0, 3}, {"neg", -20, 50}};

const char* kind_name(GraphKind k) {
  switch (k) {
    case GraphKind::random: return "random";
    case GraphKind::scale_free: return "scale-free";
    case GraphKind::rmat: return "rmat";
    case GraphKind::grid: return "grid";
    case GraphKind::dense: return "dense";
  }
  return "?";
}

// Makes the case hold every feature the tests must see: duplicates (heavier
// copies of existing edges and one lighter), non-negative self-loops, a
// vertex with no in-edges (unreachable entries) and an edge 0->1.
Graph decorate(Graph g, std::uint64_t seed) {
  const std::int64_t n = g.n;
  if (n < 2) {
    if (n == 1) g.edges.push_back(Edge{0, 0, 5});
    return g;
  }
  // No edge enters `unreached` (the last vertex; vertex 0 when n == 2, where
  // the edge 0 -> 1 below must stay), so every case has unreachable pairs.
  const vertex_t last = static_cast<vertex_t>(n - 1);
  const vertex_t unreached = n == 2 ? 0 : last;
  g.edges.erase(std::remove_if(g.edges.begin(), g.edges.end(), [&](const Edge& e) { return e.dst == unreached; }),
                g.edges.end());
  if (n > 2) g.edges.push_back(Edge{last, 0, 7});
  const std::size_t original = g.edges.size();
  for (std::size_t e = 0; e < original; e += 5) {
    Edge dup = g.edges[e];
    if (dup.src == dup.dst) continue;
    dup.w = dup.w + 3 + static_cast<weight_t>(seed % 5);
    g.edges.push_back(dup);
  }
  g.edges.push_back(Edge{0, 1, 4});
  g.edges.push_back(Edge{0, 1, 2});  // a lighter duplicate must win
  g.edges.push_back(Edge{1, 1, 0});
  g.edges.push_back(Edge{static_cast<vertex_t>(n / 2), static_cast<vertex_t>(n / 2), 9});
  return g;
}

Case make(GraphKind kind, std::int64_t n, const WeightRange& wr, std::uint64_t seed) {
  GenerateOptions o;
  o.kind = kind;
  o.n = n;
  o.m = 3 * n;
  o.degree = 2;
  o.density = 0.1;
  o.w_lo = wr.lo;
  o.w_hi = wr.hi;
  o.seed = seed;
  std::ostringstream name;
  name << kind_name(kind) << "_n" << n << "_" << wr.label << "_seed" << seed;
  return Case{name.str(), decorate(generate(o), seed)};
}

}  // namespace

std::vector<Case> standard_cases() {
  std::vector<Case> cases;
  const GraphKind kinds[] = {GraphKind::random, GraphKind::scale_free, GraphKind::rmat, GraphKind::grid,
                             GraphKind::dense};
  const std::int64_t sizes[] = {0, 1, 2, 63, 64, 65, 127, 200, 257};
  std::uint64_t seed = 11;
  for (GraphKind k : kinds)
    for (std::int64_t n : sizes)
      for (const WeightRange& wr : kWeightRanges) cases.push_back(make(k, n, wr, seed++));
  // Two disconnected parts: a random graph on each half, no edge between them.
  for (std::int64_t n : {64, 131}) {
    GenerateOptions o;
    o.kind = GraphKind::random;
    o.n = n / 2;
    o.m = 4 * o.n;
    o.seed = seed++;
    Graph g = generate(o);
    g.n = n;
    Graph other = generate(o);
    for (Edge e : other.edges)
      g.edges.push_back(Edge{e.src + static_cast<vertex_t>(n / 2), e.dst + static_cast<vertex_t>(n / 2), e.w});
    cases.push_back(Case{"two-parts_n" + std::to_string(n), decorate(g, seed)});
  }
  return cases;
}

std::vector<Case> tile_cases() {
  std::vector<Case> cases;
  std::uint64_t seed = 1001;
  for (std::int64_t tile : {32, 64, 128, 256})
    for (std::int64_t n : {tile - 1, tile, tile + 1})
      cases.push_back(make(GraphKind::random, n, kWeightRanges[(seed) % 3], seed)), ++seed;
  for (std::int64_t n : {3, 97, 251, 509})
    cases.push_back(make(GraphKind::rmat, n, kWeightRanges[(seed) % 3], seed)), ++seed;
  return cases;
}

Graph generated(GraphKind kind, std::int64_t n, std::int64_t m, weight_t lo, weight_t hi, std::uint64_t seed,
                double density) {
  GenerateOptions o;
  o.kind = kind;
  o.n = n;
  o.m = m;
  o.w_lo = lo;
  o.w_hi = hi;
  o.seed = seed;
  o.density = density;
  return generate(o);
}

Case negative_cycle_case(std::int64_t n, std::uint64_t seed) {
  GenerateOptions o;
  o.kind = GraphKind::random;
  o.n = n;
  o.m = 2 * n;
  o.seed = seed;
  Graph g = generate(o);
  const vertex_t a = static_cast<vertex_t>(n / 3), b = static_cast<vertex_t>(n / 2), c = static_cast<vertex_t>(n - 2);
  g.edges.push_back(Edge{a, b, 1});
  g.edges.push_back(Edge{b, c, -10});
  g.edges.push_back(Edge{c, a, 2});
  return Case{"negcycle_n" + std::to_string(n), g};
}

bool lies_on_negative_cycle(const Graph& g, vertex_t v) {
  const std::int64_t unreached = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<std::int64_t> walk(static_cast<std::size_t>(g.n), unreached);
  walk[v] = 0;
  for (std::int64_t round = 0; round < g.n; ++round) {
    std::vector<std::int64_t> next = walk;
    for (const Edge& e : g.edges)
      if (walk[e.src] != unreached) next[e.dst] = std::min(next[e.dst], walk[e.src] + e.w);
    walk.swap(next);
    if (walk[v] < 0) return true;
  }
  return false;
}

std::vector<dist_t> reference_distances(const Graph& g) {
  const std::int64_t n = g.n;
  const std::int64_t inf = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<std::int64_t> d(static_cast<std::size_t>(n * n), inf);
  for (std::int64_t i = 0; i < n; ++i) d[i * n + i] = 0;
  for (const Edge& e : g.edges)
    if (e.src != e.dst || e.w < 0) d[e.src * n + e.dst] = std::min<std::int64_t>(d[e.src * n + e.dst], e.w);
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t i = 0; i < n; ++i) {
      if (d[i * n + k] == inf) continue;
      for (std::int64_t j = 0; j < n; ++j)
        if (d[k * n + j] != inf) d[i * n + j] = std::min(d[i * n + j], d[i * n + k] + d[k * n + j]);
    }
  std::vector<dist_t> out(d.size());
  for (std::size_t x = 0; x < d.size(); ++x) out[x] = d[x] == inf ? kInf : static_cast<dist_t>(d[x]);
  return out;
}

std::string first_difference(Span<const dist_t> expected, Span<const dist_t> actual, std::int64_t n) {
  if (expected.size() != actual.size()) {
    std::ostringstream s;
    s << "size " << actual.size() << " != expected " << expected.size();
    return s.str();
  }
  for (std::size_t x = 0; x < expected.size(); ++x)
    if (expected[x] != actual[x]) {
      std::ostringstream s;
      s << "d[" << x / static_cast<std::size_t>(n) << "][" << x % static_cast<std::size_t>(n) << "] = " << actual[x]
        << ", expected " << expected[x];
      return s.str();
    }
  return {};
}

EntryCounts count_entries(Span<const dist_t> d, std::int64_t n) {
  EntryCounts c;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j) continue;
      if (d[i * n + j] == kInf)
        ++c.unreachable;
      else
        ++c.finite_off_diagonal;
    }
  return c;
}

std::string check_progress(const std::vector<double>& fractions) {
  if (fractions.empty()) return "no progress reported";
  if (!std::is_sorted(fractions.begin(), fractions.end())) return "progress went backwards";
  if (!(fractions.front() > 0.0)) return "first progress " + std::to_string(fractions.front()) + " is not above 0";
  if (fractions.back() != 1.0) return "last progress " + std::to_string(fractions.back()) + " is not 1";
  return {};
}

std::string check_predecessors(const Graph& g, Span<const dist_t> d, Span<const vertex_t> pred) {
  const std::int64_t n = g.n;
  if (pred.size() != d.size()) return "pred has " + std::to_string(pred.size()) + " entries";
  // Lightest edge weight between each ordered pair, from the raw edge list.
  std::vector<std::int64_t> w(static_cast<std::size_t>(n * n), std::numeric_limits<std::int64_t>::max());
  for (const Edge& e : g.edges) w[e.src * n + e.dst] = std::min<std::int64_t>(w[e.src * n + e.dst], e.w);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const dist_t dij = d[i * n + j];
      const vertex_t p = pred[i * n + j];
      std::ostringstream where;
      where << "pred[" << i << "][" << j << "]";
      if (i == j || dij == kInf) {
        if (p != -1) return where.str() + " = " + std::to_string(p) + ", expected -1";
        continue;
      }
      std::int64_t total = 0;
      std::int64_t v = j, steps = 0;
      while (v != i) {
        const vertex_t u = pred[i * n + v];
        if (u < 0 || u >= n)
          return where.str() + ": chain hits " + std::to_string(u) + " at vertex " + std::to_string(v);
        if (w[u * n + v] == std::numeric_limits<std::int64_t>::max())
          return where.str() + ": chain uses a missing edge " + std::to_string(u) + "->" + std::to_string(v);
        total += w[u * n + v];
        v = u;
        if (++steps > n) return where.str() + ": chain does not reach the source";
      }
      if (total != dij) return where.str() + ": path weight " + std::to_string(total) + " != d " + std::to_string(dij);
    }
  return {};
}

GraphF64 with_real_weights(const Graph& g) {
  GraphF64 out;
  out.n = g.n;
  for (const Edge& e : g.edges) out.edges.push_back(EdgeF64{e.src, e.dst, e.w * kRealScale});
  return out;
}

GraphF32 to_float32(const GraphF64& g) {
  GraphF32 out;
  out.n = g.n;
  for (const EdgeF64& e : g.edges) out.edges.push_back(EdgeF32{e.src, e.dst, static_cast<float>(e.w)});
  return out;
}

GraphF64 to_float64(const GraphF32& g) {
  GraphF64 out;
  out.n = g.n;
  for (const EdgeF32& e : g.edges) out.edges.push_back(EdgeF64{e.src, e.dst, static_cast<double>(e.w)});
  return out;
}

std::vector<double> reference_distances(const GraphF64& g) {
  const std::int64_t n = g.n;
  const long double inf = std::numeric_limits<long double>::infinity();
  std::vector<long double> d(static_cast<std::size_t>(n * n), inf);
  for (std::int64_t i = 0; i < n; ++i) d[i * n + i] = 0;
  for (const EdgeF64& e : g.edges)
    if (e.src != e.dst || e.w < 0) d[e.src * n + e.dst] = std::min<long double>(d[e.src * n + e.dst], e.w);
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t i = 0; i < n; ++i) {
      if (d[i * n + k] == inf) continue;
      for (std::int64_t j = 0; j < n; ++j)
        if (d[k * n + j] != inf) d[i * n + j] = std::min(d[i * n + j], d[i * n + k] + d[k * n + j]);
    }
  return std::vector<double>(d.begin(), d.end());
}

std::string first_real_difference(Span<const double> expected, Span<const double> actual, std::int64_t n,
                                  double max_abs_weight, double rel) {
  if (expected.size() != actual.size()) {
    std::ostringstream s;
    s << "size " << actual.size() << " != expected " << expected.size();
    return s.str();
  }
  double scale = max_abs_weight;
  for (const double e : expected)
    if (e != std::numeric_limits<double>::infinity()) scale = std::max(scale, std::abs(e));
  const double tolerance = rel * scale;
  for (std::size_t x = 0; x < expected.size(); ++x) {
    const bool expected_inf = expected[x] == std::numeric_limits<double>::infinity();
    const bool actual_inf = actual[x] == std::numeric_limits<double>::infinity();
    if (expected_inf == actual_inf && (expected_inf || std::abs(expected[x] - actual[x]) <= tolerance)) continue;
    std::ostringstream s;
    s.precision(17);
    s << "d[" << x / static_cast<std::size_t>(n) << "][" << x % static_cast<std::size_t>(n) << "] = " << actual[x]
      << ", expected " << expected[x] << " within " << tolerance;
    return s.str();
  }
  return {};
}

std::vector<double> widened(Span<const float> d) { return std::vector<double>(d.begin(), d.end()); }

EntryCounts count_entries(Span<const double> d, std::int64_t n) {
  EntryCounts c;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j) continue;
      if (d[i * n + j] == std::numeric_limits<double>::infinity())
        ++c.unreachable;
      else
        ++c.finite_off_diagonal;
    }
  return c;
}

std::string check_predecessors(const GraphF64& g, Span<const double> d, Span<const vertex_t> pred, double tolerance) {
  const std::int64_t n = g.n;
  const double inf = std::numeric_limits<double>::infinity();
  if (pred.size() != d.size()) return "pred has " + std::to_string(pred.size()) + " entries";
  std::vector<double> w(static_cast<std::size_t>(n * n), inf);
  for (const EdgeF64& e : g.edges) w[e.src * n + e.dst] = std::min(w[e.src * n + e.dst], e.w);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double dij = d[i * n + j];
      const vertex_t p = pred[i * n + j];
      std::ostringstream where;
      where.precision(17);
      where << "pred[" << i << "][" << j << "]";
      if (i == j || dij == inf) {
        if (p != -1) return where.str() + " = " + std::to_string(p) + ", expected -1";
        continue;
      }
      long double total = 0;
      std::int64_t v = j, steps = 0;
      while (v != i) {
        const vertex_t u = pred[i * n + v];
        if (u < 0 || u >= n)
          return where.str() + ": chain hits " + std::to_string(u) + " at vertex " + std::to_string(v);
        if (w[u * n + v] == inf)
          return where.str() + ": chain uses a missing edge " + std::to_string(u) + "->" + std::to_string(v);
        total += w[u * n + v];
        v = u;
        if (++steps > n) return where.str() + ": chain does not reach the source";
      }
      if (std::abs(static_cast<double>(total) - dij) > tolerance) {
        where << ": path weight " << static_cast<double>(total) << " != d " << dij << " within " << tolerance;
        return where.str();
      }
    }
  return {};
}

double max_abs_weight(const GraphF64& g) {
  double m = 0;
  for (const EdgeF64& e : g.edges) m = std::max(m, std::abs(e.w));
  return m;
}

namespace {

template <class W>
std::string check_small_cycle(W big, W closing, const SolveOptions& options) {
  for (const std::int64_t n : {3, 1000}) {
    BasicGraph<W> g;
    g.n = n;
    g.edges = {{0, 1, big}, {1, 2, big}, {2, 0, closing}};
    const std::string where = options.algorithm + " in " + (sizeof(W) == 4 ? "float32" : "float64") +
                              " at n = " + std::to_string(n);
    try {
      solve(g, options);
      return where + ": no NegativeCycleError";
    } catch (const NegativeCycleError& e) {
      if (e.vertex() < 0 || e.vertex() > 2) return where + ": " + e.what() + " names no vertex of the cycle";
    }
  }
  return "";
}

}  // namespace

std::string check_small_negative_cycles_reported(const SolveOptions& options) {
  const std::string wide = check_small_cycle<double>(500.0, -1000.0000000001, options);
  return wide.empty() ? check_small_cycle<float>(512.0f, -1024.0009765625f, options) : wide;
}

}  // namespace apsp::test
