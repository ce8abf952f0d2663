// Parts of the matrix: SolveOptions::targets (columns), sources by slicing,
// the sparse results of a cutoff or the nearest targets (SparseSink), and the
// output's type (ConvertingSink), against the full solve on seeded graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "sink/part.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

bool has_negative_edge(const Graph& g) {
  for (const Edge& e : g.edges)
    if (e.w < 0 && e.src != e.dst) return true;
  return false;
}

// Sources and targets with repeats, the last vertex (which no other vertex
// reaches in the standard cases) and vertex 0.
std::vector<vertex_t> chosen(std::int64_t n, int salt) {
  const auto last = static_cast<vertex_t>(n - 1);
  return {last, static_cast<vertex_t>((n / 3 + salt) % n), 0, last, static_cast<vertex_t>(n / 2)};
}

// A standard case of 65 vertices with negative weights, unreachable pairs and duplicates.
test::Case medium_case() {
  for (const test::Case& c : test::standard_cases())
    if (c.graph.n == 65 && has_negative_edge(c.graph)) return c;
  throw Error("no standard case of 65 vertices with negative weights");
}

const std::vector<std::string> kCpuAlgorithms = {"dijkstra",   "johnson",    "bellman-ford",
                                                 "supernodal", "fw-blocked", "fw-seq"};

class TargetsOf : public ::testing::TestWithParam<std::string> {};

// Every CPU algorithm: sources x targets (and targets alone) are the
// full solve's entries, predecessors too, int32 weights.
TEST_P(TargetsOf, SourcesByTargetsAreTheFullSolvesEntries) {
  const std::string algorithm = GetParam();
  std::int64_t finite = 0, unreachable = 0;
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n < 2 || c.graph.n > 130 || (algorithm == "dijkstra" && has_negative_edge(c.graph))) continue;
    SCOPED_TRACE(c.name);
    const std::int64_t n = c.graph.n;
    const std::vector<dist_t> expected = test::reference_distances(c.graph);
    SolveOptions o;
    o.backend = Backend::cpu;
    o.algorithm = algorithm;
    o.predecessors = true;
    const SolveResult full = solve(c.graph, o);
    for (const bool some_rows : {false, true}) {
      o.sources = some_rows ? chosen(n, 1) : std::vector<vertex_t>{};
      o.targets = chosen(n, 2);
      const SolveResult part = solve(c.graph, o);
      const std::size_t rows = some_rows ? o.sources.size() : static_cast<std::size_t>(n), cols = o.targets.size();
      ASSERT_EQ(part.dist.size(), rows * cols);
      ASSERT_EQ(part.pred.size(), rows * cols);
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t k = 0; k < cols; ++k) {
          const std::int64_t s = some_rows ? o.sources[r] : static_cast<std::int64_t>(r), t = o.targets[k];
          ASSERT_EQ(part.dist[r * cols + k], expected[s * n + t]) << "source " << s << " target " << t;
          ASSERT_EQ(part.pred[r * cols + k], full.pred[s * n + t]) << "source " << s << " target " << t;
          (part.dist[r * cols + k] == kInf ? unreachable : finite) += 1;
        }
    }
  }
  EXPECT_GT(finite, 0);
  EXPECT_GT(unreachable, 0);
}

INSTANTIATE_TEST_SUITE_P(CpuAlgorithms, TargetsOf, ::testing::ValuesIn(kCpuAlgorithms), [](const auto& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(Targets, RealWeightsKeepTheFullSolvesColumns) {
  const test::Case c = medium_case();
  const GraphF64 g = test::with_real_weights(c.graph);
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "johnson";  // one algorithm for both: another may round the sums differently
  const SolveResultF64 full = solve(g, o);
  o.targets = chosen(g.n, 3);
  o.sources = chosen(g.n, 4);
  const SolveResultF64 part = solve(g, o);
  ASSERT_EQ(part.dist.size(), o.sources.size() * o.targets.size());
  for (std::size_t r = 0; r < o.sources.size(); ++r)
    for (std::size_t k = 0; k < o.targets.size(); ++k)
      EXPECT_EQ(part.dist[r * o.targets.size() + k], full.dist[o.sources[r] * g.n + o.targets[k]]) << c.name;
}

// The PartSink's two GPU uses (issue 23): rows whose target columns the
// producer gathered itself (the layout announces t columns, the PartSink
// cuts none, maps rows and renames predecessors), and a cut behind an inner
// sink that has begun already (begin_producer: the row solvers' host cut
// where rows must reach the host whole).
TEST(Targets, PartSinkTakesGatheredRowsAndCutsBehindABegunSink) {
  HostMatrixSink host;
  sink::PartSink part(host, {1, 0, 1}, {}, {4, 3, 2, 1, 0});
  part.begin(SinkLayout{5, Element::int32, true, 2, 3});
  const std::vector<dist_t> dist = {10, 11, 12, 20, 21, 22};
  const std::vector<vertex_t> pred = {0, -1, 4, 1, 2, 3};
  part.put(RowBlock{Plane::distances, Element::int32, 0, 2, 3, dist.data()});
  part.put(RowBlock{Plane::predecessors, Element::int32, 0, 2, 3, pred.data()});
  part.commit();
  EXPECT_EQ(std::vector<dist_t>(host.distances().begin(), host.distances().end()),
            (std::vector<dist_t>{20, 21, 22, 10, 11, 12, 20, 21, 22}));
  EXPECT_EQ(std::vector<vertex_t>(host.predecessors().begin(), host.predecessors().end()),
            (std::vector<vertex_t>{3, 2, 1, 4, -1, 0, 3, 2, 1}));

  HostMatrixSink begun;
  begun.begin(SinkLayout{5, Element::int32, false, -1, 2});
  sink::PartSink cut(begun, {}, {4, 1});
  const SinkLayout out = cut.begin_producer(SinkLayout{5, Element::int32, false});
  EXPECT_EQ(out.column_count(), 2);
  EXPECT_EQ(out.row_count(), 5);
  std::vector<dist_t> rows(25);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<dist_t>(i);
  EXPECT_THROW(cut.put(RowBlock{Plane::distances, Element::int32, 0, 1, 2, rows.data()}), UsageError);  // 5-wide rows
  cut.put(RowBlock{Plane::distances, Element::int32, 0, 5, 5, rows.data()});
  cut.commit();
  EXPECT_EQ(std::vector<dist_t>(begun.distances().begin(), begun.distances().end()),
            (std::vector<dist_t>{4, 1, 9, 6, 14, 11, 19, 16, 24, 21}));
}

// The GPU row solvers' renumbering (sources first): the O(n + m) rename of
// a normalized graph is exactly normalize() of the renamed edge list, for
// every standard case (int32) and a real-valued copy of one; PartRoute
// hands the backend that graph and the chosen sources as rows 0..k-1.
template <class G>
void expect_renumbering_is_normalize_of_the_renamed_edges(const G& g, const std::vector<vertex_t>& sources) {
  const std::size_t n = static_cast<std::size_t>(g.n);
  std::vector<vertex_t> new_id(n, -1), names(n);
  vertex_t next = 0;
  for (const vertex_t s : sources)
    if (new_id[static_cast<std::size_t>(s)] < 0) new_id[static_cast<std::size_t>(s)] = next++;
  for (std::size_t v = 0; v < n; ++v)
    if (new_id[v] < 0) new_id[v] = next++;
  for (std::size_t v = 0; v < n; ++v) names[static_cast<std::size_t>(new_id[v])] = static_cast<vertex_t>(v);
  G renamed = g;
  for (auto& e : renamed.edges) {
    e.src = new_id[static_cast<std::size_t>(e.src)];
    e.dst = new_id[static_cast<std::size_t>(e.dst)];
  }
  const G expected = normalize(renamed);
  const G fast = sink::renumbered_normalized(g, new_id, names);
  ASSERT_EQ(fast.n, expected.n);
  ASSERT_EQ(fast.edges.size(), expected.edges.size());
  for (std::size_t i = 0; i < fast.edges.size(); ++i) {
    EXPECT_EQ(fast.edges[i].src, expected.edges[i].src) << i;
    EXPECT_EQ(fast.edges[i].dst, expected.edges[i].dst) << i;
    EXPECT_EQ(fast.edges[i].w, expected.edges[i].w) << i;
  }
  EXPECT_TRUE(is_normalized(fast));

  SolveOptions run;
  run.sources = sources;
  HostMatrixSink host;
  sink::PartRoute<G> route(run, g, true, false, host);
  const G& solved = route.graph();
  ASSERT_EQ(solved.edges.size(), expected.edges.size());
  for (std::size_t i = 0; i < solved.edges.size(); ++i) {
    EXPECT_EQ(solved.edges[i].src, expected.edges[i].src) << i;
    EXPECT_EQ(solved.edges[i].dst, expected.edges[i].dst) << i;
  }
  // The distinct sources, in order, are rows 0..k-1 of the graph solved.
  std::vector<vertex_t> distinct;
  for (const vertex_t s : sources)
    if (std::find(distinct.begin(), distinct.end(), s) == distinct.end()) distinct.push_back(s);
  ASSERT_EQ(run.sources.size(), distinct.size());
  for (std::size_t r = 0; r < distinct.size(); ++r) {
    EXPECT_EQ(run.sources[r], static_cast<vertex_t>(r));
    EXPECT_EQ(names[r], distinct[r]);
  }
}

TEST(Sources, GpuRenumberingIsNormalizeOfTheRenamedEdges) {
  int cases = 0;
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n < 2) continue;
    SCOPED_TRACE(c.name);
    const Graph g = normalize(c.graph);
    expect_renumbering_is_normalize_of_the_renamed_edges(g, chosen(g.n, 1));
    ++cases;
  }
  EXPECT_GT(cases, 3);
  const Graph g = normalize(medium_case().graph);
  GraphF64 real;
  real.n = g.n;
  for (const Edge& e : g.edges) real.edges.push_back(EdgeF64{e.src, e.dst, e.w + 0.25});
  expect_renumbering_is_normalize_of_the_renamed_edges(normalize(real), chosen(real.n, 2));
}

TEST(Targets, TargetOutsideTheGraphIsAUsageErrorBeforeTheSinkBegins) {
  const Graph g = test::generated(GraphKind::random, 20, 60, 1, 9, 2);
  for (const vertex_t bad : {-1, 20}) {
    SolveOptions o;
    o.targets = {0, bad};
    HostMatrixSink sink;
    try {
      solve(g, o, sink);
      ADD_FAILURE() << "target " << bad << " accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.option(), "targets");
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
    }
    EXPECT_EQ(sink.distances().size(), 0u);
  }
}

// What the sparse result must hold: the full solve's row, unreachable
// dropped, <= cutoff, then the `nearest` smallest (ties to the lower column).
std::vector<std::pair<vertex_t, double>> expected_kept(const std::vector<double>& row, const SparseKeep& keep) {
  std::vector<std::pair<vertex_t, double>> kept;
  for (std::size_t c = 0; c < row.size(); ++c)
    if (std::isfinite(row[c]) && row[c] <= keep.cutoff.value_or(INFINITY))
      kept.emplace_back(static_cast<vertex_t>(c), row[c]);
  if (keep.nearest > 0 && static_cast<std::int64_t>(kept.size()) > keep.nearest) {
    std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    kept.resize(static_cast<std::size_t>(keep.nearest));
    std::sort(kept.begin(), kept.end());
  }
  return kept;
}

TEST(Sparse, CutoffAndNearestKeepWhatTheFullSolveSays) {
  std::int64_t kept_total = 0, dropped_total = 0;
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n < 2 || c.graph.n > 130) continue;
    SCOPED_TRACE(c.name);
    const std::int64_t n = c.graph.n;
    const std::vector<dist_t> full = test::reference_distances(c.graph);
    for (const SparseKeep keep :
         {SparseKeep{30.0, 0}, SparseKeep{std::nullopt, 3}, SparseKeep{-2.0, 2}, SparseKeep{std::nullopt, 1000}}) {
      SolveOptions o;
      o.backend = Backend::cpu;
      o.sources = chosen(n, 5);
      o.targets = chosen(n, 6);
      SparseSink sink(keep);
      solve(c.graph, o, sink);
      const SparseDistances& got = sink.result();
      ASSERT_EQ(got.rows, static_cast<std::int64_t>(o.sources.size()));
      ASSERT_EQ(got.columns, static_cast<std::int64_t>(o.targets.size()));
      ASSERT_EQ(got.row_start.size(), o.sources.size() + 1);
      for (std::size_t r = 0; r < o.sources.size(); ++r) {
        std::vector<double> row;
        for (const vertex_t t : o.targets) {
          const dist_t d = full[o.sources[r] * n + t];
          row.push_back(d == kInf ? INFINITY : static_cast<double>(d));
        }
        const auto want = expected_kept(row, keep);
        const auto first = static_cast<std::size_t>(got.row_start[r]),
                   last = static_cast<std::size_t>(got.row_start[r + 1]);
        ASSERT_EQ(last - first, want.size()) << "row " << r;
        for (std::size_t k = 0; k < want.size(); ++k) {
          EXPECT_EQ(got.column[first + k], want[k].first) << "row " << r;
          EXPECT_EQ(got.distance(first + k), want[k].second) << "row " << r;
        }
        kept_total += static_cast<std::int64_t>(want.size());
        dropped_total += static_cast<std::int64_t>(row.size() - want.size());
      }
    }
  }
  EXPECT_GT(kept_total, 0);
  EXPECT_GT(dropped_total, 0);
}

// Integer distances that all fit int16 are kept in 2 bytes (6 a pair); one
// outside it (here 40000, or -40000 from negative weights) keeps every
// block's in int32, the blocks of int16 widened.
TEST(Sparse, IntegerDistancesAreInt16WhereEveryOneFits) {
  for (const std::int32_t far : {300, 40000, -40000}) {
    SCOPED_TRACE(far);
    SparseSink sink(SparseKeep{std::nullopt, 0});
    SinkLayout layout;
    layout.n = 3;
    sink.begin(layout);
    const std::vector<std::int32_t> first = {0, 7, kInf}, rest = {-5, 0, far, 1, kInf, 0};
    sink.put(RowBlock{Plane::distances, Element::int32, 0, 1, 3, first.data()});
    sink.put(RowBlock{Plane::distances, Element::int32, 1, 2, 3, rest.data()});
    sink.commit();
    const SparseDistances& kept = sink.result();
    EXPECT_EQ(kept.element, far == 300 ? Element::int16 : Element::int32);
    EXPECT_EQ(kept.row_start, (std::vector<std::int64_t>{0, 2, 5, 7}));
    EXPECT_EQ(kept.distances(), (std::vector<double>{0, 7, -5, 0, static_cast<double>(far), 1, 0}));
    EXPECT_EQ(kept.column, (std::vector<vertex_t>{0, 1, 0, 1, 2, 0, 2}));
  }
}

TEST(Sparse, PredecessorsAreAUsageError) {
  const Graph g = test::generated(GraphKind::random, 20, 60, 1, 9, 2);
  SolveOptions o;
  o.predecessors = true;
  SparseSink sink(SparseKeep{5.0, 0});
  try {
    solve(g, o, sink);
    ADD_FAILURE() << "a sparse sink took predecessors";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "predecessors");
  }
  EXPECT_THROW(SparseSink(SparseKeep{std::nullopt, -1}), UsageError);
  EXPECT_THROW(SparseSink(SparseKeep{NAN, 0}), UsageError);
}

// SolveOptions::cutoff: dijkstra and johnson stop each search past it. Every
// distance at or below it is the full solve's; one above it is unreachable
// (the search never settled it; real labels may keep one a rounding step
// past it), predecessors -1 there; int32,
// int64 (the wide search), float32 and float64 weights.
template <class G, class R>
void expect_pruned(const G& g, SolveOptions o, double cutoff, std::int64_t& kept, std::int64_t& pruned) {
  o.predecessors = true;
  const R full = solve(g, o);
  o.cutoff = cutoff;
  const R part = solve(g, o);
  ASSERT_EQ(part.dist.size(), full.dist.size());
  using D = std::decay_t<decltype(full.dist[0])>;
  for (std::size_t x = 0; x < full.dist.size(); ++x) {
    const D want = full.dist[x];
    if (want != kUnreachable<D> && static_cast<double>(want) <= cutoff) {
      ASSERT_EQ(part.dist[x], want) << o.algorithm << " cell " << x;
      ++kept;
    } else if (part.dist[x] != want) {  // real labels may keep a distance a rounding step past it
      ASSERT_EQ(part.dist[x], kUnreachable<D>) << o.algorithm << " cell " << x << " full " << want;
      ASSERT_EQ(part.pred[x], -1) << o.algorithm << " cell " << x;
      ++pruned;
    }
  }
}

TEST(Cutoff, DijkstraAndJohnsonStopPastItAndKeepTheFullSolvesDistances) {
  const test::Case c = medium_case();
  Graph positive = c.graph;
  for (Edge& e : positive.edges) e.w = e.w < 0 ? -e.w : e.w;
  std::int64_t kept = 0, pruned = 0;
  for (const double cutoff : {0.0, 7.0, 25.5, -3.0}) {
    SCOPED_TRACE(cutoff);
    for (const Precision p : {Precision::automatic, Precision::int64}) {
      SolveOptions o;
      o.backend = Backend::cpu;
      o.precision = p;
      o.algorithm = "dijkstra";
      expect_pruned<Graph, SolveResult>(positive, o, cutoff, kept, pruned);
      o.algorithm = "johnson";
      expect_pruned<Graph, SolveResult>(c.graph, o, cutoff, kept, pruned);
      o.sources = chosen(c.graph.n, 2);
      expect_pruned<Graph, SolveResult>(c.graph, o, cutoff, kept, pruned);
    }
    SolveOptions o;
    o.backend = Backend::cpu;
    const GraphF64 real = test::with_real_weights(c.graph);
    GraphF32 real32;
    real32.n = real.n;
    for (const auto& e : real.edges) real32.edges.push_back({e.src, e.dst, static_cast<float>(e.w)});
    o.algorithm = "johnson";
    expect_pruned<GraphF64, SolveResultF64>(real, o, cutoff / 10, kept, pruned);
    expect_pruned<GraphF32, SolveResultF32>(real32, o, cutoff / 10, kept, pruned);
    GraphF64 real_positive = real;
    for (auto& e : real_positive.edges) e.w = std::fabs(e.w);
    o.algorithm = "dijkstra";
    expect_pruned<GraphF64, SolveResultF64>(real_positive, o, cutoff / 10, kept, pruned);
  }
  EXPECT_GT(kept, 100);
  EXPECT_GT(pruned, 100);
  SolveOptions o;
  o.cutoff = NAN;
  EXPECT_THROW(solve(c.graph, o), UsageError);
}

TEST(OutputType, Float32FromFloat64RoundsAndInt32RefusesARealDistance) {
  const test::Case c = medium_case();
  const GraphF64 g = test::with_real_weights(c.graph);
  SolveOptions o;
  o.backend = Backend::cpu;
  const SolveResultF64 full = solve(g, o);
  HostMatrixSink host;
  ConvertingSink to_float32(host, Element::float32);
  solve(g, o, to_float32);
  ASSERT_EQ(host.distances_f32().size(), full.dist.size());
  for (std::size_t x = 0; x < full.dist.size(); ++x)
    ASSERT_EQ(host.distances_f32()[x], static_cast<float>(full.dist[x])) << x;
  EXPECT_TRUE(to_float32.lossy());
  EXPECT_EQ(to_float32.narrowest_exact(), Element::float64);

  HostMatrixSink refused;
  ConvertingSink to_int32(refused, Element::int32);
  try {
    solve(g, o, to_int32);
    ADD_FAILURE() << "int32 took real distances";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "output-type");
    EXPECT_NE(std::string(e.what()).find("row "), std::string::npos) << e.what();
  }
}

TEST(OutputType, IntegerDistancesAreExactInInt32AndTheAdviceSaysSo) {
  const test::Case c = medium_case();
  GraphF64 integral;
  integral.n = c.graph.n;
  for (const Edge& e : c.graph.edges) integral.edges.push_back({e.src, e.dst, static_cast<double>(e.w)});
  SolveOptions o;
  o.backend = Backend::cpu;
  const SolveResultF64 full = solve(integral, o);
  HostMatrixSink host;
  ConvertingSink to_int32(host, Element::int32);
  solve(integral, o, to_int32);
  std::int64_t unreachable = 0;
  dist_t largest = 0;
  for (std::size_t x = 0; x < full.dist.size(); ++x) {
    const dist_t want = std::isinf(full.dist[x]) ? kInf : static_cast<dist_t>(full.dist[x]);
    ASSERT_EQ(host.distances()[x], want) << x;
    unreachable += want == kInf;
    if (want != kInf) largest = std::max(largest, want < 0 ? -want : want);
  }
  EXPECT_GT(unreachable, 0);
  EXPECT_EQ(to_int32.narrowest_exact(), largest < kOutputInf16 ? Element::int16 : Element::int32) << largest;
  EXPECT_FALSE(to_int32.lossy());
}

// int16 output: exact below 2^15 - 1 (kOutputInf16 = unreachable) into a
// file; a larger distance is refused naming it; a host matrix refuses int16.
class OutputTypeFiles : public test::ScratchDirTest {};

TEST_F(OutputTypeFiles, Int16HoldsSmallDistancesAndRefusesLargeOnes) {
  const test::Case c = medium_case();
  SolveOptions o;
  o.backend = Backend::cpu;
  const SolveResult full = solve(c.graph, o);
  FileSink files(MatrixFileTarget{path("d.npy"), io::Format::automatic}, MatrixFileTarget{});
  ConvertingSink to_int16(files, Element::int16);
  solve(c.graph, o, to_int16);
  EXPECT_EQ(to_int16.narrowest_exact(), Element::int16);
  const std::string written = read_text("d.npy");
  EXPECT_NE(written.find("'<i2'"), std::string::npos);
  ASSERT_GE(written.size(), full.dist.size() * 2);
  const char* cells = written.data() + written.size() - full.dist.size() * 2;
  for (std::size_t x = 0; x < full.dist.size(); ++x) {
    std::int16_t got = 0;
    std::memcpy(&got, cells + 2 * x, 2);
    ASSERT_EQ(got, full.dist[x] == kInf ? kOutputInf16 : static_cast<std::int16_t>(full.dist[x])) << x;
  }
  Graph far;
  far.n = 3;
  far.edges = {{0, 1, 30000}, {1, 2, 30000}};
  FileSink far_file(MatrixFileTarget{path("far.npy"), io::Format::automatic}, MatrixFileTarget{});
  ConvertingSink far_int16(far_file, Element::int16);
  o.threads = 1;  // the first row's distance is the one named
  try {
    solve(far, o, far_int16);
    ADD_FAILURE() << "int16 took the distance 60000";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), "output-type");
    EXPECT_NE(std::string(e.what()).find("the distance 60000 (row 0, column 2)"), std::string::npos) << e.what();
  }
  HostMatrixSink host;
  ConvertingSink refused(host, Element::int16);
  EXPECT_THROW(solve(c.graph, o, refused), UsageError);
}

}  // namespace
}  // namespace apsp
