#include "distributed/checks/dist_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/generate.hpp"
#include "apsp/solver.hpp"
#include "distributed/checks/row_collector.hpp"

namespace apsp::test {
namespace {

// fw-blocked with predecessors on one process: the result, or the vertex
// of its NegativeCycleError, or the message of its OverflowError. Cached
// per case, shared by the ranks (threads) of this process.
struct Expected {
  SolveResult result;
  std::int64_t negative_cycle_vertex = -1;
  std::string overflow;
};

// The single-process solve of `algorithm` (fw-blocked, or fw-ooc: the
// super-rounds of 128 that the distributed solver's super width 128 runs).
const Expected& fw_blocked(const std::string& name, const Graph& g, const std::string& algorithm = "fw-blocked") {
  static std::mutex mutex;
  static std::map<std::string, Expected> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(algorithm + " " + name);
  if (it != cache.end()) return it->second;
  Expected e;
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = algorithm;
  o.predecessors = true;
  o.threads = 1;
  try {
    e.result = solve(g, o);
  } catch (const NegativeCycleError& error) {
    e.negative_cycle_vertex = error.vertex();
  } catch (const OverflowError& error) {
    e.overflow = error.what();
  }
  return cache.emplace(algorithm + " " + name, std::move(e)).first->second;
}

std::string where(const Communicator& comm, const std::string& what, const DistConfig& config) {
  return what + " on " + config.name() + ", rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size());
}

std::string first_row_difference(const std::vector<std::int32_t>& got, const std::int32_t* expected, std::int64_t row,
                                 const char* plane) {
  for (std::size_t j = 0; j < got.size(); ++j)
    if (got[j] != expected[j]) {
      std::ostringstream s;
      s << plane << "[" << row << "][" << j << "] = " << got[j] << ", fw-blocked gives " << expected[j];
      return s.str();
    }
  return {};
}

Graph random_graph(std::int64_t n, std::int64_t m, weight_t lo, weight_t hi, std::uint64_t seed) {
  return generated(GraphKind::random, n, m, lo, hi, seed);
}

// The long-double reference of a real-weighted graph (as solved: float32
// weights widened), cached per name and shared by the ranks of this process.
const std::vector<double>& real_reference(const std::string& name, const GraphF64& exact) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<double>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, reference_distances(exact)).first;
  return it->second;
}

// The whole n x n result on every rank: each rank adds the rows it was given
// (every other entry 0), so a row that arrived at one rank arrives
// everywhere; `counts[i]` becomes how many ranks were given row i.
void assemble(Communicator& comm, const RowCollector& sink, std::int64_t n, std::vector<double>& d,
              std::vector<std::int32_t>& pred, std::vector<std::int64_t>& counts) {
  const auto cells = static_cast<std::size_t>(n * n);
  d.assign(cells, 0.0);
  pred.assign(cells, 0);
  counts.assign(static_cast<std::size_t>(n), 0);
  for (const auto& [row, values] : sink.real_distances) {
    if (row < 0 || row >= n) continue;  // RowCollector reported it
    ++counts[static_cast<std::size_t>(row)];
    std::copy(values.begin(), values.end(), d.begin() + row * n);
  }
  for (const auto& [row, values] : sink.predecessors)
    if (row >= 0 && row < n) std::copy(values.begin(), values.end(), pred.begin() + row * n);
  // +inf + 0 stays +inf: the sum of one given row and zeros is that row.
  comm.all_reduce(d.data(), d.data(), cells, ReduceOp::sum);
  comm.all_reduce(pred.data(), pred.data(), cells, ReduceOp::sum);
  comm.all_reduce(counts.data(), counts.data(), counts.size(), ReduceOp::sum);
}

// The options of a real-weighted check on `backend` (cuda: this rank's device, or 0).
DistributedOptions real_options(const Communicator& comm, const DistConfig& config, Backend backend,
                                bool predecessors) {
  DistributedOptions o = config.options();
  o.backend = backend;
  if (backend == Backend::cuda) o.device = comm.device() >= 0 ? comm.device() : 0;
  o.predecessors = predecessors;
  return o;
}

template <class W>
void check_real_case(Communicator& comm, const Case& c, const DistConfig& config, Backend backend, bool predecessors) {
  const GraphF64 real = with_real_weights(c.graph);
  BasicGraph<W> g;
  GraphF64 exact;  // the weights the solve sees, in double
  if constexpr (std::is_same<W, float>::value) {
    g = to_float32(real);
    exact = to_float64(g);
  } else {
    g = real;
    exact = real;
  }
  const std::string name = c.name + "_" + to_string(weight_type_of<W>);
  SCOPED_TRACE(where(comm, name + (predecessors ? " with predecessors" : "") + " on " + to_string(backend), config));
  const std::int64_t n = c.graph.n;
  RowCollector sink;
  DistributedOptions o = real_options(comm, config, backend, predecessors);
  o.verify = true;
  try {
    solve_distributed(comm, g, o, sink);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "solve_distributed threw: " << e.what();
  }
  EXPECT_EQ(sink.begins, 1);
  EXPECT_EQ(sink.commits, 1);
  EXPECT_EQ(sink.problem, "");
  EXPECT_EQ(sink.layout.distance_element, (std::is_same<W, float>::value ? Element::float32 : Element::float64));
  EXPECT_TRUE(sink.distances.empty()) << "int32 rows of a real-weighted solve";
  EXPECT_EQ(sink.predecessors.size(), predecessors ? sink.real_distances.size() : 0u);
  std::vector<double> d;
  std::vector<std::int32_t> pred;
  std::vector<std::int64_t> counts;
  assemble(comm, sink, n, d, pred, counts);
  for (std::int64_t row = 0; row < n; ++row)
    if (counts[static_cast<std::size_t>(row)] != 1) {
      ADD_FAILURE() << "row " << row << " arrived " << counts[static_cast<std::size_t>(row)] << " times over all ranks";
      return;
    }
  // Every rank holds the whole result now: rank 0 alone compares it with the
  // reference (an O(n^3) long-double loop that an MPI rank would otherwise
  // repeat in every process while the others spin in their next call).
  if (comm.rank() != 0) return;
  const std::vector<double>& expected = real_reference(name, exact);
  const double rel = test_relative_tolerance<W>(n);
  EXPECT_EQ(first_real_difference(expected, d, n, max_abs_weight(exact), rel), "");
  const EntryCounts entries = count_entries(d, n);
  if (n >= 2) EXPECT_GT(entries.finite_off_diagonal, 0);
  if (n >= 3) EXPECT_GT(entries.unreachable, 0);
  if (predecessors) {
    double scale = max_abs_weight(exact);
    for (const double x : expected)
      if (x != std::numeric_limits<double>::infinity()) scale = std::max(scale, std::abs(x));
    EXPECT_EQ(check_predecessors(exact, d, pred, rel * scale), "");
  }
}

// Expects every rank to throw Agreed<NegativeCycleError> naming a vertex in
// `cycle`, and the sink discarded.
template <class W>
void expect_real_negative_cycle(Communicator& comm, const BasicGraph<W>& g, const std::vector<vertex_t>& cycle,
                                const DistConfig& config, Backend backend, bool predecessors) {
  RowCollector sink;
  const DistributedOptions o = real_options(comm, config, backend, predecessors);
  std::int64_t vertex = -1;
  try {
    solve_distributed(comm, g, o, sink);
    ADD_FAILURE() << "no negative cycle reported";
  } catch (const NegativeCycleError& e) {
    vertex = e.vertex();
    EXPECT_NE(dynamic_cast<const AgreedFailure*>(&e), nullptr) << "not agreed";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected error: " << e.what();
  }
  EXPECT_NE(std::find(cycle.begin(), cycle.end(), vertex), cycle.end()) << "vertex " << vertex;
  EXPECT_EQ(sink.commits, 0);
  EXPECT_EQ(sink.discards, 1);
  EXPECT_TRUE(sink.real_distances.empty());
}

}  // namespace

std::string DistConfig::name() const {
  std::string s = distribution == Distribution::rows ? "rows" : "2d";
  if (distribution == Distribution::grid) s += "_" + std::to_string(grid_rows) + "x" + std::to_string(grid_cols);
  s += lookahead ? "_lookahead" : "_no_lookahead";
  return super_width > 0 ? s + "_super" + std::to_string(super_width) : s;
}

DistributedOptions DistConfig::options() const {
  DistributedOptions o;
  o.distribution = distribution;
  o.grid_rows = grid_rows;
  o.grid_cols = grid_cols;
  o.lookahead = lookahead;
  o.super_width = super_width;
  o.threads = 1;
  return o;
}

std::vector<DistConfig> configs_for(int ranks) {
  std::vector<DistConfig> out;
  for (bool lookahead : {true, false}) {
    out.push_back(DistConfig{Distribution::rows, 0, 0, lookahead});
    // A P x 1 grid is the rows layout itself; every other shape.
    for (int rows = 1; rows < ranks; ++rows)
      if (ranks % rows == 0) out.push_back(DistConfig{Distribution::grid, rows, ranks / rows, lookahead});
  }
  return out;
}

std::vector<DistConfig> out_of_core_configs(int ranks) {
  std::vector<DistConfig> out{DistConfig{Distribution::rows, 0, 0, true, 128},
                              DistConfig{Distribution::rows, 0, 0, false, 192}};
  if (ranks == 4) out.push_back(DistConfig{Distribution::grid, 2, 2, true, 128});
  return out;
}

std::vector<Case> out_of_core_cases() {
  std::vector<Case> out;
  for (const std::int64_t n : {127, 128, 129, 192, 255, 257, 385}) {
    // Vertices [0, n/2) and [n/2, n) apart. Weights 1 .. 40 shifted by the
    // potential phi(v) = 7v mod 23 (w + phi(u) - phi(v), down to -21): every
    // cycle keeps its positive weight, so negative edges but no negative cycle.
    const std::int64_t half = n / 2;
    Graph g{n, {}};
    const Graph a = generated(GraphKind::random, half, 4 * half, 1, 40, static_cast<std::uint64_t>(n));
    const Graph b = generated(GraphKind::random, n - half, 4 * (n - half), 1, 40, static_cast<std::uint64_t>(n + 1));
    const auto phi = [](std::int64_t v) { return static_cast<weight_t>(7 * v % 23); };
    const auto add = [&](const Edge& e, std::int64_t shift) {
      const std::int64_t u = e.src + shift, v = e.dst + shift;
      g.edges.push_back(Edge{static_cast<vertex_t>(u), static_cast<vertex_t>(v), e.w + phi(u) - phi(v)});
    };
    for (const Edge& e : a.edges) add(e, 0);
    for (const Edge& e : b.edges) add(e, half);
    out.push_back(Case{"two_parts_negative_n" + std::to_string(n), std::move(g)});
  }
  return out;
}

void check_matches_fw_blocked(Communicator& comm, const Case& c, const DistConfig& config, bool predecessors) {
  SCOPED_TRACE(where(comm, c.name + (predecessors ? " with predecessors" : ""), config));
  const Expected& expected = fw_blocked(c.name, c.graph);
  const std::int64_t n = c.graph.n;
  RowCollector sink;
  DistributedOptions o = config.options();
  o.predecessors = predecessors;
  o.verify = true;
  std::vector<double> progress;
  o.progress = [&progress](double f) { progress.push_back(f); };
  DistributedResult r;
  try {
    r = solve_distributed(comm, c.graph, o, sink);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "solve_distributed threw: " << e.what();
  }
  EXPECT_EQ(sink.begins, 1);
  EXPECT_EQ(sink.commits, 1);
  EXPECT_EQ(sink.discards, 0);
  EXPECT_EQ(sink.problem, "");
  EXPECT_EQ(sink.layout.n, n);
  EXPECT_EQ(sink.layout.predecessors, predecessors);
  EXPECT_EQ(r.ranks.size(), static_cast<std::size_t>(comm.size()));
  EXPECT_GE(r.verify_seconds, 0.0);
  if (config.distribution == Distribution::rows) {
    EXPECT_EQ(r.grid_rows, comm.size());
    EXPECT_EQ(r.grid_cols, 1);
  } else {
    EXPECT_EQ(r.grid_rows, config.grid_rows);
    EXPECT_EQ(r.grid_cols, config.grid_cols);
  }
  if (n > 0) EXPECT_EQ(check_progress(progress), "");
  EXPECT_EQ(r.super_width, config.super_width);
  EXPECT_EQ(r.tile, config.super_width > 0 ? config.super_width : 64);
  // Out of core per rank: distances are fw-blocked's; predecessors are the
  // single-process fw-ooc's where its width is the same (128), else checked
  // as trees by verify (ties may resolve in another order).
  const Expected& expected_pred = config.super_width == 0     ? expected
                                  : config.super_width == 128 ? fw_blocked(c.name, c.graph, "fw-ooc")
                                                              : Expected{};

  // Every row at exactly one rank, equal to fw-blocked's.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n) + 2, 0);  // rows, then finite and unreachable
  std::string mismatch;
  const bool have_expected = expected.result.dist.size() == static_cast<std::size_t>(n * n);
  EXPECT_TRUE(have_expected) << "fw-blocked failed on this case";
  for (const auto& [row, values] : sink.distances) {
    if (row < 0 || row >= n) continue;  // RowCollector reported it
    ++counts[static_cast<std::size_t>(row)];
    for (std::int64_t j = 0; j < n; ++j)
      if (j != row) ++counts[static_cast<std::size_t>(n) + (values[static_cast<std::size_t>(j)] == kInf ? 1 : 0)];
    if (have_expected && mismatch.empty())
      mismatch = first_row_difference(values, expected.result.dist.data() + row * n, row, "d");
  }
  if (predecessors) {
    EXPECT_EQ(sink.predecessors.size(), sink.distances.size());
    const bool have_pred = expected_pred.result.pred.size() == static_cast<std::size_t>(n * n);
    if (config.super_width == 0 || config.super_width == 128) EXPECT_TRUE(have_pred || !have_expected);
    for (const auto& [row, values] : sink.predecessors)
      if (have_pred && mismatch.empty() && row >= 0 && row < n)
        mismatch = first_row_difference(values, expected_pred.result.pred.data() + row * n, row, "pred");
  } else {
    EXPECT_TRUE(sink.predecessors.empty());
  }
  EXPECT_EQ(mismatch, "");
  comm.all_reduce(counts.data(), counts.data(), counts.size(), ReduceOp::sum);
  for (std::int64_t row = 0; row < n; ++row)
    if (counts[static_cast<std::size_t>(row)] != 1) {
      ADD_FAILURE() << "row " << row << " arrived " << counts[static_cast<std::size_t>(row)] << " times over all ranks";
      break;
    }
  if (n >= 2) EXPECT_GT(counts[static_cast<std::size_t>(n)], 0) << "no finite off-diagonal entry";
  if (n >= 3) EXPECT_GT(counts[static_cast<std::size_t>(n) + 1], 0) << "no unreachable entry";
}

void check_negative_cycles(Communicator& comm, const DistConfig& config) {
  // Tiles are 64 wide: the first cycle lies inside tile 1 and is found when
  // round 1 closes tile (1, 1); the second, 10 <-> 100, shows on tile (1, 1)
  // during round 0's update. Tile (1, 1) is off rank 0 on every grid but 1 x 1.
  Case inside{"negcycle_inside_tile1", random_graph(200, 600, 1, 100, 71)};
  inside.graph.edges.push_back(Edge{70, 90, 1});
  inside.graph.edges.push_back(Edge{90, 100, -10});
  inside.graph.edges.push_back(Edge{100, 70, 2});
  inside.graph.edges.push_back(Edge{5, 6, -3});  // another negative weight, on no cycle
  Case across{"negcycle_10_100", random_graph(200, 600, 1, 100, 72)};
  across.graph.edges.push_back(Edge{100, 10, -5});
  across.graph.edges.push_back(Edge{10, 100, 2});
  for (const Case* c : {&inside, &across})
    for (bool predecessors : {false, true}) {
      SCOPED_TRACE(where(comm, c->name, config));
      const Expected& expected = fw_blocked(c->name, c->graph);
      EXPECT_GE(expected.negative_cycle_vertex, 0) << "fw-blocked found no negative cycle";
      RowCollector sink;
      DistributedOptions o = config.options();
      o.predecessors = predecessors;
      std::int64_t vertex = -1;
      try {
        solve_distributed(comm, c->graph, o, sink);
        ADD_FAILURE() << "no negative cycle reported";
      } catch (const NegativeCycleError& e) {
        vertex = e.vertex();
        EXPECT_NE(dynamic_cast<const AgreedFailure*>(&e), nullptr) << "not agreed";
      }
      EXPECT_EQ(vertex, expected.negative_cycle_vertex);
      if (vertex >= 0) EXPECT_TRUE(lies_on_negative_cycle(c->graph, static_cast<vertex_t>(vertex)));
      EXPECT_EQ(sink.commits, 0);
      EXPECT_EQ(sink.discards, 1);
      EXPECT_TRUE(sink.distances.empty());
    }
}

void check_real_weights(Communicator& comm, const DistConfig& config, Backend backend) {
  std::vector<Case> cases = standard_cases();
  if (backend == Backend::cuda)
    for (Case& c : tile_cases()) cases.push_back(std::move(c));
  // On the CPU, float32 and float64 take turns (9 sizes a kind: each size
  // meets both types over the kinds), and predecessors every other pair. On
  // the GPU every case runs in both (float64 on its own 64-wide tiles).
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const bool predecessors = (i / 2 + config.lookahead) % 2 == 0;
    if (backend == Backend::cuda || i % 2 == 0) check_real_case<float>(comm, cases[i], config, backend, predecessors);
    if (backend == Backend::cuda || i % 2 == 1) check_real_case<double>(comm, cases[i], config, backend, predecessors);
  }
}

void check_real_negative_cycles(Communicator& comm, const DistConfig& config, Backend backend) {
  // 70 -> 90 -> 100 -> 70 weighs -6.5, inside tile 1 (off rank 0 on every grid but 1 x 1).
  const GraphF64 base = with_real_weights(random_graph(200, 600, 1, 100, 73));
  GraphF64 deep = base;
  for (const EdgeF64& e : {EdgeF64{70, 90, 1.25}, EdgeF64{90, 100, -10.0}, EdgeF64{100, 70, 2.25},
                           EdgeF64{5, 6, -3.5}})  // the last: another negative weight, on no cycle
    deep.edges.push_back(e);
  // 100 -> 101 -> 102 -> 100 weighs -1e-10: above minus the tolerance of
  // n = 1000 (2.2e-10 at max|w| = 1000), so only the rule finds it.
  GraphF64 shallow{1000, {{100, 101, 500.0}, {101, 102, 500.0}, {102, 100, -1000.0000000001}}};
  for (bool predecessors : {false, true}) {
    SCOPED_TRACE(where(comm, predecessors ? "real negative cycles with predecessors" : "real negative cycles", config));
    expect_real_negative_cycle(comm, to_float32(deep), {70, 90, 100}, config, backend, predecessors);
    expect_real_negative_cycle(comm, deep, {70, 90, 100}, config, backend, predecessors);
    expect_real_negative_cycle(comm, shallow, {100, 101, 102}, config, backend, predecessors);
  }
}

void check_large_weights(Communicator& comm, const DistConfig& config) {
  // (n - 1) * max|w| beyond int32's half range: int64 arithmetic, as in fw-blocked.
  Case wide{"large_weights_n130", random_graph(130, 520, 10000000, 20000000, 81)};
  wide.graph.edges.push_back(Edge{0, 1, -10000000});
  const Expected& expected = fw_blocked(wide.name, wide.graph);
  ASSERT_TRUE(expected.overflow.empty()) << expected.overflow;
  check_matches_fw_blocked(comm, wide, config, true);

  // A path of 129 edges of 2e7: its end is 2.58e9 away, beyond int32.
  Case path{"overflow_path_n130", Graph{130, {}}};
  for (vertex_t v = 0; v + 1 < 130; ++v) path.graph.edges.push_back(Edge{v, v + 1, 20000000});
  EXPECT_FALSE(fw_blocked(path.name, path.graph).overflow.empty());
  SCOPED_TRACE(where(comm, path.name, config));
  RowCollector sink;
  const auto [message, origin] =
      expect_agreed<OverflowError>([&] { solve_distributed(comm, path.graph, config.options(), sink); });
  EXPECT_NE(message.find("outside the int32 output range"), std::string::npos) << message;
  EXPECT_GE(origin, -1);  // the ranks whose tiles hold such a distance; every rank on most grids
  EXPECT_EQ(sink.discards, 1);
}

void check_agreed_errors(Communicator& comm) {
  const int last = comm.size() - 1;
  RowCollector sink;
  DistributedOptions o;
  o.threads = 1;
  if (comm.size() > 1) {
    Graph g{comm.rank() == last ? 11 : 10, {Edge{0, 1, 1}}};
    const auto [message, origin] = expect_agreed<InputError>([&] { solve_distributed(comm, g, o, sink); });
    EXPECT_EQ(message, "the ranks hold different graphs: n from 10 to 11");
    EXPECT_EQ(origin, -1);
  }
  {
    // One rank's graph names a vertex out of range: that rank's error, everywhere.
    Graph g{10, {Edge{0, 1, 1}}};
    if (comm.rank() == last) g.edges.push_back(Edge{3, 12, 1});
    const auto [message, origin] = expect_agreed<InputError>([&] { solve_distributed(comm, g, o, sink); });
    EXPECT_EQ(origin, comm.size() > 1 ? last : -1);
    EXPECT_EQ(message.rfind(comm.size() > 1 ? "rank " + std::to_string(last) + ": " : "", 0), 0u) << message;
  }
  for (const auto& [backend, precision] : {std::pair<Backend, Precision>{Backend::cpu, Precision::int16},
                                           std::pair<Backend, Precision>{Backend::cuda, Precision::int64}}) {
    // Refused before any work (no device needed): the CPU engine has no
    // int16, the GPU engine no int64.
    DistributedOptions bad = o;
    bad.backend = backend;
    bad.precision = precision;
    Graph g{10, {Edge{0, 1, 1}}};
    try {
      solve_distributed(comm, g, bad, sink);
      ADD_FAILURE() << to_string(precision) << " on " << to_string(backend) << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.option(), "precision") << e.what();
      const auto* agreed = dynamic_cast<const AgreedFailure*>(&e);
      EXPECT_NE(agreed, nullptr);
      if (agreed) EXPECT_EQ(agreed->origin_rank(), -1);
    }
  }
  {
    // float32 weights take no integer precision.
    const GraphF64 real{10, {EdgeF64{0, 1, 0.5}}};
    DistributedOptions narrow = o;
    narrow.precision = Precision::int32;
    const auto [narrow_message, narrow_origin] =
        expect_agreed<UsageError>([&] { solve_distributed(comm, to_float32(real), narrow, sink); });
    EXPECT_EQ(narrow_message, "float32 weights compute in their own type; int32 is for int32 weights");
    EXPECT_EQ(narrow_origin, -1);
  }
  {
    DistributedOptions bad = o;
    bad.distribution = Distribution::grid;
    bad.grid_rows = comm.size() + 1;
    bad.grid_cols = 1;
    Graph g{10, {Edge{0, 1, 1}}};
    try {
      solve_distributed(comm, g, bad, sink);
      ADD_FAILURE() << "a grid larger than the ranks was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.option(), "grid");
      const auto* agreed = dynamic_cast<const AgreedFailure*>(&e);
      EXPECT_NE(agreed, nullptr);
      if (agreed) EXPECT_EQ(agreed->origin_rank(), -1);  // every rank saw it
      EXPECT_EQ(std::string(e.what()).rfind("rank", 0), std::string::npos) << e.what();
    }
  }
  {
    const auto [message, origin] = expect_agreed<InputError>([&] {
      agree(comm, [&] {
        if (comm.rank() == last) throw InputError("truncated edge list", "g.bin@8");
      });
    });
    EXPECT_EQ(origin, comm.size() > 1 ? last : -1);
    EXPECT_EQ(message, (comm.size() > 1 ? "rank " + std::to_string(last) + ": " : std::string()) +
                           "g.bin@8: truncated edge list");
  }
  agree(comm, [] {});  // no failure: returns on every rank
}

}  // namespace apsp::test
