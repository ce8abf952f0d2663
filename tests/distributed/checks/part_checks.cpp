#include "distributed/checks/part_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/distributed.hpp"
#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "support/cases.hpp"

namespace apsp::test {
namespace {

// Keeps the distance rows one rank is given, widened to double, by row, and
// counts begin, commit and discard.
class PartRows final : public Sink {
 public:
  void begin(const SinkLayout& l) override {
    layout = l;
    ++begins;
  }
  void put(const RowBlock& block) override {
    if (block.plane != Plane::distances) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const std::int64_t columns = layout.column_count();
    for (std::int64_t r = 0; r < block.rows; ++r) {
      std::vector<double> row(static_cast<std::size_t>(columns));
      const std::size_t at = static_cast<std::size_t>(r * block.row_stride);
      for (std::int64_t c = 0; c < columns; ++c) {
        const auto k = at + static_cast<std::size_t>(c);
        row[static_cast<std::size_t>(c)] = block.element == Element::int32
                                               ? static_cast<const std::int32_t*>(block.data)[k]
                                           : block.element == Element::float32
                                               ? static_cast<const float*>(block.data)[k]
                                               : static_cast<const double*>(block.data)[k];
      }
      if (!rows.emplace(block.first_row + r, std::move(row)).second) twice = true;
    }
  }
  void commit() override { ++commits; }
  void discard() noexcept override { ++discards; }

  SinkLayout layout;
  int begins = 0, commits = 0, discards = 0;
  bool twice = false;
  std::map<std::int64_t, std::vector<double>> rows;

 private:
  std::mutex mutex_;
};

struct Part {
  const char* name;
  std::vector<vertex_t> sources, targets;
};

// The graph of every check: a standard case with negative weights (no
// negative cycle), a vertex no other reaches (n - 1) and an edge 0 -> 1.
Graph part_graph() {
  for (Case& c : standard_cases())
    if (c.name.rfind("random_n127_neg", 0) == 0) return c.graph;
  ADD_FAILURE() << "no random_n127_neg case";
  return Graph{};
}

std::vector<Part> parts(vertex_t n) {
  return {{"sources x targets", {5, 3, 5, n - 1, 0, 40, 41, 42, 43, 44, 100}, {n - 1, 1, 0, 7, 7, 100}},
          {"sources only", {9, 2, n - 1, 64}, {}},
          {"targets only", {}, {n - 1, 0, 3}}};
}

// One process's options for `part`, and the ranks' for the same part.
SolveOptions one_process(Communicator& comm, const std::string& algorithm, Backend backend, const Part& part) {
  SolveOptions one;
  one.backend = backend;
  one.algorithm = algorithm;
  one.threads = 1;
  one.device = std::max(0, comm.device());
  one.sources = part.sources;
  one.targets = part.targets;
  return one;
}
DistributedOptions on_ranks(const SolveOptions& one) {
  DistributedOptions o;
  o.backend = one.backend;
  o.device = one.device;
  o.threads = 2;
  o.sources = one.sources;
  o.targets = one.targets;
  o.cutoff = one.cutoff;
  return o;
}

bool close(double got, double want, bool rounding, std::int64_t n) {
  if (got == want) return true;
  if (!rounding || std::isinf(got) || std::isinf(want)) return false;
  return std::abs(got - want) <=
         static_cast<double>(n) * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(want));
}

template <class W>
void check_dense_part(Communicator& comm, const BasicGraph<W>& g, const std::string& algorithm, Backend backend,
                      const Part& part) {
  SCOPED_TRACE(std::string(part.name) + " with " + algorithm + " on " + to_string(backend) + ", rank " +
               std::to_string(comm.rank()) + " of " + std::to_string(comm.size()));
  const SolveOptions one = one_process(comm, algorithm, backend, part);
  PartRows expected;
  solve(g, one, expected);

  const DistributedOptions o = on_ranks(one);
  PartRows got;
  const DistributedResult r = solve_distributed_rows(comm, g, algorithm, o, got);
  EXPECT_EQ(r.algorithm, algorithm);
  EXPECT_EQ(got.begins, 1);
  EXPECT_EQ(got.commits, 1);
  EXPECT_EQ(got.discards, 0);
  EXPECT_FALSE(got.twice);
  EXPECT_EQ(got.layout.row_count(), expected.layout.row_count());
  EXPECT_EQ(got.layout.column_count(), expected.layout.column_count());

  // Every rank's rows summed on every rank, with how often each arrived.
  const std::int64_t rows = expected.layout.row_count(), columns = expected.layout.column_count();
  std::vector<double> all(static_cast<std::size_t>(rows * columns), 0.0);
  std::vector<std::int32_t> arrived(static_cast<std::size_t>(rows), 0);
  for (const auto& [row, values] : got.rows) {
    if (row < 0 || row >= rows || static_cast<std::int64_t>(values.size()) != columns) continue;
    std::copy(values.begin(), values.end(), all.begin() + row * columns);
    arrived[static_cast<std::size_t>(row)] = 1;
  }
  comm.all_reduce(all.data(), all.data(), all.size(), ReduceOp::sum);
  comm.all_reduce(arrived.data(), arrived.data(), arrived.size(), ReduceOp::sum);
  const bool rounding = backend == Backend::cuda && std::is_floating_point<W>::value;
  std::int64_t finite = 0, unreachable = 0, wrong = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    EXPECT_EQ(arrived[static_cast<std::size_t>(row)], 1) << "row " << row;
    const std::vector<double>& want = expected.rows[row];
    for (std::int64_t c = 0; c < columns; ++c) {
      const double w = want[static_cast<std::size_t>(c)], d = all[static_cast<std::size_t>(row * columns + c)];
      const bool unreached = std::is_floating_point<W>::value ? std::isinf(w) : w == kInf;
      ++(unreached ? unreachable : finite);
      if (!close(d, w, rounding, g.n) && wrong++ == 0)
        ADD_FAILURE() << "row " << row << " column " << c << ": " << d << ", one process " << w;
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(finite, 0);
  EXPECT_GT(unreachable, 0);
}

template <class W>
void check_sparse_part(Communicator& comm, const BasicGraph<W>& g, const std::string& algorithm, Backend backend,
                       const Part& part, SparseKeep keep) {
  SCOPED_TRACE(std::string("sparse (cutoff ") + (keep.cutoff ? std::to_string(*keep.cutoff) : "none") + ", nearest " +
               std::to_string(keep.nearest) + ") of " + part.name + " with " + algorithm + ", rank " +
               std::to_string(comm.rank()) + " of " + std::to_string(comm.size()));
  SolveOptions one = one_process(comm, algorithm, backend, part);
  one.cutoff = keep.cutoff;
  SparseSink expected_sink(keep);
  solve(g, one, expected_sink);
  const SparseDistances& expected = expected_sink.result();

  const DistributedOptions o = on_ranks(one);
  SparseSink got_sink(comm, keep);
  solve_distributed_rows(comm, g, algorithm, o, got_sink);
  const SparseDistances& got = got_sink.result();
  if (comm.rank() != 0) {
    EXPECT_EQ(got.rows, 0);
    EXPECT_EQ(got.size(), 0u);
    return;
  }
  EXPECT_GT(expected.size(), 0u);
  EXPECT_EQ(got.rows, expected.rows);
  EXPECT_EQ(got.columns, expected.columns);
  EXPECT_EQ(got.element, expected.element);
  EXPECT_EQ(got.row_start, expected.row_start);
  EXPECT_EQ(got.column, expected.column);
  const bool rounding = backend == Backend::cuda && std::is_floating_point<W>::value;
  if (got.size() != expected.size()) return;
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!close(got.distance(k), expected.distance(k), rounding, g.n)) {
      ADD_FAILURE() << "kept entry " << k << ": " << got.distance(k) << ", one process " << expected.distance(k);
      break;
    }
}

template <class W>
void check_all(Communicator& comm, const BasicGraph<W>& g, const std::string& algorithm, Backend backend) {
  const auto n = static_cast<vertex_t>(g.n);
  for (const Part& part : parts(n)) check_dense_part(comm, g, algorithm, backend, part);
  const Part all{"every vertex", {}, {}};
  const Part some = parts(n).front();
  check_sparse_part(comm, g, algorithm, backend, all, SparseKeep{30.0, 0});
  check_sparse_part(comm, g, algorithm, backend, all, SparseKeep{std::nullopt, 5});
  check_sparse_part(comm, g, algorithm, backend, some, SparseKeep{40.0, 3});
}

}  // namespace

void check_parts_match_one_process(Communicator& comm, Backend backend, bool real) {
  const Graph g = part_graph();
  const std::string algorithm = backend == Backend::cuda ? "sssp" : "johnson";
  check_all(comm, g, algorithm, backend);
  if (real) check_all(comm, with_real_weights(g), algorithm, backend);
}

void check_part_errors(Communicator& comm) {
  const Graph g = part_graph();
  const auto n = static_cast<vertex_t>(g.n);
  const auto refused = [&](const DistributedOptions& o, bool fw, const std::string& message) {
    SCOPED_TRACE(message + ", rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()));
    PartRows sink;
    try {
      if (fw)
        solve_distributed(comm, g, o, sink);
      else
        solve_distributed_rows(comm, g, "johnson", o, sink);
      ADD_FAILURE() << "not refused";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_NE(dynamic_cast<const AgreedFailure*>(&e), nullptr) << "not agreed: " << e.what();
    }
    EXPECT_EQ(sink.begins, 0);
    EXPECT_EQ(sink.rows.size(), 0u);
  };
  DistributedOptions o;
  o.threads = 1;
  o.sources = {0, n + 3};
  refused(o, false, "source " + std::to_string(n + 3) + " (entry 1) is outside the graph's vertices");
  o.sources = {1};
  o.targets = {-1};
  refused(o, false, "target -1 (entry 0) is outside the graph's vertices");
  o.targets = {2};
  o.verify = true;
  refused(o, false, "verify without sources, targets or a cutoff");
  o.verify = false;
  refused(o, true, "the distributed Floyd-Warshall computes every row");
}

}  // namespace apsp::test
