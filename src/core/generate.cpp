#include "apsp/generate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "apsp/error.hpp"
#include "core/resources.hpp"

namespace apsp {
namespace {

using Rng = std::mt19937_64;

// Uniform integer in [lo, hi], independent of the standard library's
// distribution implementation so that seeds give the same graph everywhere.
std::int64_t uniform(Rng& rng, std::int64_t lo, std::int64_t hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<std::int64_t>(rng() % span);
}

double unit(Rng& rng) { return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0); }

// Usage errors name the GenerateOptions field at fault ("weights" for the
// range w_lo:w_hi); a front end adds its own spelling of it.
void check(const GenerateOptions& o) {
  if (o.n < 0) throw UsageError("the vertex count n must be >= 0, got " + std::to_string(o.n));
  if (o.n > std::numeric_limits<vertex_t>::max())
    throw UsageError("the vertex count n exceeds int32: " + std::to_string(o.n));
  const std::string range = std::to_string(o.w_lo) + ":" + std::to_string(o.w_hi);
  if (o.w_lo > o.w_hi) throw UsageError("the range " + range + " needs LO <= HI", "weights");
  if (o.w_lo < 0 && o.w_hi < 0)
    throw UsageError("with HI < 0 every cycle would be negative (" + range + "); the range needs HI >= 0", "weights");
  if (o.degree < 1) throw UsageError("must be >= 1, got " + std::to_string(o.degree), "degree");
  if (o.density < 0 || o.density > 1)
    throw UsageError("must be in [0, 1], got " + std::to_string(o.density), "density");
  if (o.kind == GraphKind::geometric && o.w_lo < 0)
    throw UsageError("geometric weights grow with Euclidean length, so the range " + range + " needs LO >= 0",
                     "weights");
}

// Random weights in [lo, hi]. With lo < 0 the weight is base + p(u) - p(v)
// with base >= 0, so every cycle weighs sum(base) >= 0: no negative cycle.
// Potentials lie in [0, a] with a = min(-lo, hi) / 2, so the shift
// p(u) - p(v) is within [-a, a] and base can always be drawn with the
// weight inside [lo, hi].
struct WeightMaker {
  WeightMaker(const GenerateOptions& o, Rng& rng) : lo(o.w_lo), hi(o.w_hi) {
    if (lo < 0) {
      potential.resize(static_cast<std::size_t>(o.n));
      const std::int64_t amp = std::min<std::int64_t>(-lo, hi) / 2;
      for (auto& p : potential) p = uniform(rng, 0, amp);
    }
  }
  weight_t operator()(Rng& rng, vertex_t u, vertex_t v) const {
    if (lo >= 0) return static_cast<weight_t>(uniform(rng, lo, hi));
    const std::int64_t shift = potential[u] - potential[v];
    const std::int64_t base_lo = std::max<std::int64_t>(0, lo - shift);
    const std::int64_t base_hi = hi - shift;  // >= base_lo because |shift| <= hi / 2
    return static_cast<weight_t>(uniform(rng, base_lo, base_hi) + shift);
  }
  std::int64_t lo, hi;
  std::vector<std::int64_t> potential;
};

// About the number of edges the options produce (scale-free: both directions
// per link; grid: four per vertex; dense: the expected count), for the
// memory check before generating.
double expected_edges(const GenerateOptions& o) {
  const double n = static_cast<double>(o.n);
  switch (o.kind) {
    case GraphKind::random:
    case GraphKind::rmat: return o.m >= 0 ? static_cast<double>(o.m) : 8 * n;
    case GraphKind::scale_free:
    case GraphKind::geometric: return 2 * n * o.degree;
    case GraphKind::grid: return 4 * n;
    case GraphKind::dense: return n * n * o.density;
  }
  return 0;
}

void add(Graph& g, Rng& rng, const WeightMaker& wm, std::int64_t u, std::int64_t v) {
  const auto a = static_cast<vertex_t>(u), b = static_cast<vertex_t>(v);
  g.edges.push_back(Edge{a, b, wm(rng, a, b)});
}

// The geometric kind: n points uniform in the unit square, numbered cell by
// cell, each joined to its k nearest neighbours (ties by index), every such
// pair in both directions once. Neighbours are found through a grid of about two points per cell,
// searching square rings of cells outward until the ring's inner distance
// exceeds the k-th best: O(n k log k) for uniform points.
void add_geometric(Graph& g, Rng& rng, const GenerateOptions& o) {
  const std::int64_t n = o.n;
  const std::int64_t k = std::min<std::int64_t>(o.degree, n - 1);
  std::vector<double> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) {
    x[v] = unit(rng);
    y[v] = unit(rng);
  }
  if (k <= 0) return;
  const std::int64_t side = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::sqrt(static_cast<double>(n) / 2)));
  const double cell_size = 1.0 / static_cast<double>(side);
  auto cell_of = [&](double c) { return std::min<std::int64_t>(side - 1, static_cast<std::int64_t>(c * side)); };
  {
    // Vertices numbered cell by cell (rows of cells), so that neighbours
    // have nearby numbers, as in road networks' published orderings.
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t v = 0; v < n; ++v) order[static_cast<std::size_t>(v)] = v;
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return cell_of(y[a]) * side + cell_of(x[a]) < cell_of(y[b]) * side + cell_of(x[b]);
    });
    std::vector<double> sorted_x(static_cast<std::size_t>(n)), sorted_y(static_cast<std::size_t>(n));
    for (std::int64_t v = 0; v < n; ++v) {
      sorted_x[static_cast<std::size_t>(v)] = x[order[static_cast<std::size_t>(v)]];
      sorted_y[static_cast<std::size_t>(v)] = y[order[static_cast<std::size_t>(v)]];
    }
    x.swap(sorted_x);
    y.swap(sorted_y);
  }
  // Points bucketed by cell (counting sort): cell c holds by_cell[cell_start[c] .. cell_start[c + 1]).
  std::vector<std::int64_t> cell_start(static_cast<std::size_t>(side * side) + 1, 0);
  for (std::int64_t v = 0; v < n; ++v) ++cell_start[static_cast<std::size_t>(cell_of(y[v]) * side + cell_of(x[v])) + 1];
  for (std::size_t c = 0; c + 1 < cell_start.size(); ++c) cell_start[c + 1] += cell_start[c];
  std::vector<vertex_t> by_cell(static_cast<std::size_t>(n));
  {
    std::vector<std::int64_t> fill(cell_start.begin(), cell_start.end() - 1);
    for (std::int64_t v = 0; v < n; ++v)
      by_cell[static_cast<std::size_t>(fill[static_cast<std::size_t>(cell_of(y[v]) * side + cell_of(x[v]))]++)] =
          static_cast<vertex_t>(v);
  }
  auto squared = [&](std::int64_t a, std::int64_t b) {
    const double dx = x[a] - x[b], dy = y[a] - y[b];
    return dx * dx + dy * dy;
  };
  // Each unordered pair once, as (min << 32 | max).
  std::vector<std::uint64_t> pairs;
  pairs.reserve(static_cast<std::size_t>(n * k));
  using Candidate = std::pair<double, vertex_t>;  // (squared distance, vertex): a max-heap keeps the k best
  std::vector<Candidate> best;
  for (std::int64_t v = 0; v < n; ++v) {
    best.clear();
    const std::int64_t cx = cell_of(x[v]), cy = cell_of(y[v]);
    for (std::int64_t r = 0; r <= side; ++r) {
      if (static_cast<std::int64_t>(best.size()) == k) {
        // Every point in ring r or beyond is at least (r - 1) cells away in x or y.
        const double reach = static_cast<double>(r - 1) * cell_size;
        if (r >= 1 && reach * reach > best.front().first) break;
      }
      for (std::int64_t gy = cy - r; gy <= cy + r; ++gy) {
        if (gy < 0 || gy >= side) continue;
        const bool edge_row = gy == cy - r || gy == cy + r;
        for (std::int64_t gx = cx - r; gx <= cx + r; gx += edge_row ? 1 : 2 * std::max<std::int64_t>(r, 1)) {
          if (gx < 0 || gx >= side) continue;
          const std::size_t c = static_cast<std::size_t>(gy * side + gx);
          for (std::int64_t at = cell_start[c]; at < cell_start[c + 1]; ++at) {
            const vertex_t u = by_cell[static_cast<std::size_t>(at)];
            if (u == v) continue;
            const Candidate cand{squared(u, v), u};
            if (static_cast<std::int64_t>(best.size()) < k) {
              best.push_back(cand);
              std::push_heap(best.begin(), best.end());
            } else if (cand < best.front()) {
              std::pop_heap(best.begin(), best.end());
              best.back() = cand;
              std::push_heap(best.begin(), best.end());
            }
          }
        }
      }
    }
    for (const Candidate& c : best) {
      const auto a = static_cast<std::uint64_t>(std::min<std::int64_t>(v, c.second));
      const auto b = static_cast<std::uint64_t>(std::max<std::int64_t>(v, c.second));
      pairs.push_back(a << 32 | b);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  double longest = 0;
  for (const std::uint64_t p : pairs)
    longest =
        std::max(longest, squared(static_cast<std::int64_t>(p >> 32), static_cast<std::int64_t>(p & 0xffffffffu)));
  longest = std::sqrt(longest);
  const double span = static_cast<double>(o.w_hi) - static_cast<double>(o.w_lo);
  g.edges.reserve(2 * pairs.size());
  for (const std::uint64_t p : pairs) {
    const auto a = static_cast<vertex_t>(p >> 32), b = static_cast<vertex_t>(p & 0xffffffffu);
    const double fraction = longest > 0 ? std::sqrt(squared(a, b)) / longest : 0;
    const auto w = static_cast<weight_t>(std::min<double>(o.w_hi, std::llround(o.w_lo + span * fraction)));
    g.edges.push_back(Edge{a, b, w});
    g.edges.push_back(Edge{b, a, w});
  }
}

}  // namespace

GraphKind parse_graph_kind(const std::string& s) {
  if (s == "random" || s == "uniform") return GraphKind::random;
  if (s == "scale-free") return GraphKind::scale_free;
  if (s == "rmat") return GraphKind::rmat;
  if (s == "grid") return GraphKind::grid;
  if (s == "dense") return GraphKind::dense;
  if (s == "geometric") return GraphKind::geometric;
  throw UsageError("unknown graph kind '" + s +
                   "' (expected random (or uniform), scale-free, rmat, grid, dense or geometric)");
}

Graph generate(const GenerateOptions& o) {
  check(o);
  const double edges = expected_edges(o);
  resources::require_memory(static_cast<std::uint64_t>(std::min(edges * sizeof(Edge), 1.8e19)),
                            "generating about " + std::to_string(static_cast<long long>(std::min(edges, 9e18))) +
                                " edges");
  Rng rng(o.seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL);
  const WeightMaker wm(o, rng);
  Graph g;
  g.n = o.n;
  const std::int64_t n = o.n;
  const std::int64_t m = o.m >= 0 ? o.m : 8 * n;
  if (n == 0) return g;
  switch (o.kind) {
    case GraphKind::random:  // G(n, m): m arcs with uniform endpoints
      g.edges.reserve(static_cast<std::size_t>(m));
      for (std::int64_t e = 0; e < m; ++e) add(g, rng, wm, uniform(rng, 0, n - 1), uniform(rng, 0, n - 1));
      break;
    case GraphKind::rmat: {  // Graph500 quadrant probabilities a, b, c = .57, .19, .19
      int scale = 0;
      while ((std::int64_t{1} << scale) < n) ++scale;
      g.edges.reserve(static_cast<std::size_t>(m));
      for (std::int64_t e = 0; e < m;) {
        std::int64_t u = 0, v = 0;
        for (int bit = 0; bit < scale; ++bit) {
          const double r = unit(rng);
          const int quadrant = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
          u = (u << 1) | (quadrant >> 1);
          v = (v << 1) | (quadrant & 1);
        }
        if (u >= n || v >= n) continue;  // n not a power of two: resample
        add(g, rng, wm, u, v);
        ++e;
      }
      break;
    }
    case GraphKind::scale_free: {  // Barabasi-Albert: each new vertex links to `degree` targets by degree
      std::vector<vertex_t> ends;  // every edge endpoint, so a uniform pick is by degree
      const std::int64_t seed_size = std::min<std::int64_t>(n, o.degree + 1);
      for (std::int64_t u = 0; u < seed_size; ++u)
        for (std::int64_t v = 0; v < seed_size; ++v)
          if (u != v) {
            add(g, rng, wm, u, v);
            ends.push_back(static_cast<vertex_t>(u));
            ends.push_back(static_cast<vertex_t>(v));
          }
      for (std::int64_t u = seed_size; u < n; ++u)
        for (int k = 0; k < o.degree; ++k) {
          const std::int64_t v =
              ends.empty()
                  ? 0
                  : ends[static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(ends.size()) - 1))];
          add(g, rng, wm, u, v);
          add(g, rng, wm, v, u);
          ends.push_back(static_cast<vertex_t>(u));
          ends.push_back(static_cast<vertex_t>(v));
        }
      break;
    }
    case GraphKind::grid: {  // road-like: a near-square 2D grid, both directions
      std::int64_t w = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
      if (w < 1) w = 1;
      for (std::int64_t v = 0; v < n; ++v) {
        const std::int64_t right = v + 1, down = v + w;
        if ((v + 1) % w != 0 && right < n) {
          add(g, rng, wm, v, right);
          add(g, rng, wm, right, v);
        }
        if (down < n) {
          add(g, rng, wm, v, down);
          add(g, rng, wm, down, v);
        }
      }
      break;
    }
    case GraphKind::dense:  // the labs' GenMatrix: each ordered pair is an edge with probability `density`
      for (std::int64_t u = 0; u < n; ++u)
        for (std::int64_t v = 0; v < n; ++v)
          if (u != v && unit(rng) < o.density) add(g, rng, wm, u, v);
      break;
    case GraphKind::geometric: add_geometric(g, rng, o); break;
  }
  return g;
}

GraphF64 generate_real(const GenerateOptions& opts, int decimals) {
  if (decimals < 0 || decimals > 6)
    throw UsageError("decimals " + std::to_string(decimals) + " is outside 0..6", "weights");
  double scale = 1;
  for (int d = 0; d < decimals; ++d) scale *= 10;
  const double lo = static_cast<double>(opts.w_lo) * scale, hi = static_cast<double>(opts.w_hi) * scale;
  if (lo < std::numeric_limits<weight_t>::min() || hi > std::numeric_limits<weight_t>::max())
    throw UsageError("the range " + std::to_string(opts.w_lo) + ":" + std::to_string(opts.w_hi) + " with " +
                         std::to_string(decimals) + " decimals leaves int32",
                     "weights");
  GenerateOptions scaled = opts;
  scaled.w_lo = static_cast<weight_t>(lo);
  scaled.w_hi = static_cast<weight_t>(hi);
  const Graph g = generate(scaled);
  GraphF64 out;
  out.n = g.n;
  out.edges.reserve(g.edges.size());
  for (const Edge& e : g.edges) out.edges.push_back(EdgeF64{e.src, e.dst, e.w / scale});
  return out;
}

}  // namespace apsp
