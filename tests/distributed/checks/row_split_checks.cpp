#include "distributed/checks/row_split_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "apsp/distributed.hpp"
#include "apsp/error.hpp"
#include "apsp/solver.hpp"
#include "distributed/checks/dist_checks.hpp"
#include "support/cases.hpp"

namespace apsp::test {
namespace {

// A Sink that keeps the rows one rank is given, of any element type, as
// bytes by row index, and counts begin, commit and discard.
class ByteRows final : public Sink {
 public:
  void begin(const SinkLayout& l) override {
    layout = l;
    ++begins;
  }
  void put(const RowBlock& block) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t row_bytes = static_cast<std::size_t>(layout.n) * element_bytes(block.element);
    auto& plane = block.plane == Plane::distances ? distances : predecessors;
    for (std::int64_t r = 0; r < block.rows; ++r) {
      const auto* from = static_cast<const unsigned char*>(block.data) +
                         static_cast<std::size_t>(r * block.row_stride) * element_bytes(block.element);
      if (!plane.emplace(block.first_row + r, std::vector<unsigned char>(from, from + row_bytes)).second) twice = true;
    }
  }
  void commit() override { ++commits; }
  void discard() noexcept override { ++discards; }

  SinkLayout layout;
  int begins = 0, commits = 0, discards = 0;
  bool twice = false;
  std::map<std::int64_t, std::vector<unsigned char>> distances, predecessors;

 private:
  std::mutex mutex_;
};

// Distances of the distributed row and one process's row agree: bit for bit
// for int32 and for the CPU's searches; real distances within n * epsilon
// relative where the sums may associate otherwise (`rounding`): supernodal,
// whose rows are min-plus products over a block of sources (the split's
// chunks are other blocks than one process's), and the GPU's
// label-correcting kernels.
template <class W>
bool same_distance(W got, W want, bool rounding, std::int64_t n) {
  if (got == want) return true;
  if constexpr (std::is_floating_point<W>::value) {
    if (!rounding || got == kUnreachable<W> || want == kUnreachable<W>) return false;
    const double scale = std::max(1.0, std::abs(static_cast<double>(want)));
    return std::abs(static_cast<double>(got) - static_cast<double>(want)) <=
           static_cast<double>(n) * std::numeric_limits<W>::epsilon() * scale;
  }
  return false;
}

// solve_distributed_rows of `algorithm` on `backend` (cuda: each rank on its
// communicator's device) against one process's solve of the same algorithm.
// Predecessors (asked only of the CPU) equal one process's bit for bit
// where the distances are exact (integers, the CPU's searches).
template <class W>
void check_one(Communicator& comm, const std::string& name, const BasicGraph<W>& g, const std::string& algorithm,
               bool predecessors, Backend backend = Backend::cpu, bool per_chunk_download = false) {
  SCOPED_TRACE(name + " with " + algorithm + (predecessors ? " and predecessors" : "") + " on " + to_string(backend) +
               ", rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()));
  const int device = std::max(0, comm.device());
  SolveOptions one;
  one.backend = backend;
  one.algorithm = algorithm;
  one.predecessors = predecessors;
  one.threads = 1;
  one.device = device;
  const BasicSolveResult<W> expected = solve(g, one);
  const std::int64_t n = expected.n;
  const bool rounding = backend == Backend::cuda || algorithm == "supernodal";

  ByteRows sink;
  DistributedOptions o;
  o.backend = backend;
  o.device = device;
  o.threads = 2;
  o.predecessors = predecessors;
  o.verify = true;
  o.row_download_per_chunk = per_chunk_download;
  const DistributedResult r = solve_distributed_rows(comm, g, algorithm, o, sink);
  EXPECT_EQ(r.algorithm, algorithm);
  EXPECT_EQ(r.n, n);
  EXPECT_EQ(r.grid_rows, comm.size());
  EXPECT_EQ(sink.begins, 1);
  EXPECT_EQ(sink.commits, 1);
  EXPECT_EQ(sink.discards, 0);
  EXPECT_FALSE(sink.twice);
  if (predecessors) EXPECT_EQ(sink.predecessors.size(), sink.distances.size());

  // Every row on exactly one rank, equal to one process's row.
  std::vector<std::int64_t> count(static_cast<std::size_t>(n), 0);
  std::int64_t entries[2] = {0, 0};  // finite off-diagonal, unreachable
  for (const auto& [row, bytes] : sink.distances) {
    ++count[static_cast<std::size_t>(row)];
    const W* want = expected.dist.data() + row * n;
    const W* got = reinterpret_cast<const W*>(bytes.data());
    for (std::int64_t j = 0; j < n; ++j) {
      if (!same_distance(got[j], want[j], rounding, n)) {
        ADD_FAILURE() << "distance [" << row << "][" << j << "] = " << got[j] << ", one process gives " << want[j];
        break;
      }
      if (j != row && got[j] != kUnreachable<W>) ++entries[0];
      if (got[j] == kUnreachable<W>) ++entries[1];
    }
    if (predecessors && (std::is_integral<W>::value || !rounding)) {
      const auto p = sink.predecessors.find(row);
      if (p == sink.predecessors.end())
        ADD_FAILURE() << "no predecessor row " << row;
      else
        EXPECT_EQ(std::memcmp(p->second.data(), expected.pred.data() + row * n, p->second.size()), 0)
            << "predecessor row " << row;
    }
  }
  comm.all_reduce(count.data(), count.data(), count.size(), ReduceOp::sum);
  for (std::int64_t row = 0; row < n; ++row)
    EXPECT_EQ(count[static_cast<std::size_t>(row)], 1) << "row " << row << " reached that many ranks";
  comm.all_reduce(entries, entries, 2, ReduceOp::sum);
  // verify checked every row's predecessors with its distances, on some rank.
  for (const RankTimes& t : r.ranks) {
    EXPECT_GE(t.download, 0.0);
    if (backend == Backend::cpu) EXPECT_EQ(t.download, 0.0) << "a CPU rank downloads nothing";
  }
  std::int64_t checked = r.verified_predecessor_rows;
  comm.all_reduce(&checked, &checked, 1, ReduceOp::sum);
  EXPECT_EQ(checked, predecessors ? n : 0) << "rows whose predecessors verify checked";
  if (n >= 2) {
    EXPECT_GT(entries[0], 0) << "no finite off-diagonal entry";
    EXPECT_GT(entries[1], 0) << "no unreachable entry";
  }
}

bool has_negative_edge(const Graph& g) {
  for (const Edge& e : g.edges)
    if (e.w < 0) return true;
  return false;
}

}  // namespace

void check_shared_counter(Communicator& comm) {
  constexpr int kThreads = 4;
  constexpr std::int64_t kDraws = 1000;
  const std::unique_ptr<SharedCounter> counter = comm.make_counter();
  std::vector<std::vector<std::int64_t>> drawn(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (std::int64_t i = 0; i < kDraws; ++i) drawn[static_cast<std::size_t>(t)].push_back(counter->fetch_add(1));
    });
  for (std::thread& t : threads) t.join();
  const std::int64_t total = kThreads * kDraws * comm.size();
  std::vector<std::int64_t> hits(static_cast<std::size_t>(total), 0);
  std::int64_t outside = 0;
  for (const auto& values : drawn)
    for (std::int64_t v : values) {
      if (v < 0 || v >= total)
        ++outside;
      else
        ++hits[static_cast<std::size_t>(v)];
    }
  comm.all_reduce(hits.data(), hits.data(), hits.size(), ReduceOp::sum);
  EXPECT_EQ(comm.all_reduce(outside, ReduceOp::sum), 0);
  for (std::int64_t v = 0; v < total; ++v) ASSERT_EQ(hits[static_cast<std::size_t>(v)], 1) << "value " << v;
}

void check_rows_match_one_process(Communicator& comm, const std::string& algorithm, std::size_t stride) {
  const std::vector<Case> cases = standard_cases();
  for (std::size_t i = 0; i < cases.size(); i += stride) {
    const Case& c = cases[i];
    if (algorithm == "dijkstra" && has_negative_edge(c.graph)) continue;
    const bool predecessors = (i / stride) % 2 == 0;
    check_one(comm, c.name, c.graph, algorithm, predecessors);
    if ((i / stride) % 4 == 0) {
      const GraphF64 real = with_real_weights(c.graph);
      check_one(comm, c.name + " (float64)", real, algorithm, predecessors);
      check_one(comm, c.name + " (float32)", to_float32(real), algorithm, !predecessors);
    }
  }
}

namespace {

// The last rank of `comm` fails halfway through its rows of `algorithm`:
// every rank throws the agreed error naming it, every sink is discarded.
void check_failing_rank(Communicator& comm, const Graph& g, const std::string& algorithm, Backend backend) {
  const int failing = comm.size() - 1;
  SCOPED_TRACE(algorithm + " on " + to_string(backend) + ", rank " + std::to_string(comm.rank()));
  ByteRows sink;
  DistributedOptions o;
  o.threads = 2;
  o.backend = backend;
  if (backend == Backend::cuda) o.device = std::max(0, comm.device());
  if (comm.rank() == failing)
    o.progress = [](double fraction) {
      if (fraction >= 0.5) throw ResourceError("lost its device");
    };
  const auto [message, origin] =
      expect_agreed<ResourceError>([&] { solve_distributed_rows(comm, g, algorithm, o, sink); });
  EXPECT_EQ(origin, comm.size() == 1 ? -1 : failing);  // -1: it happened on every rank
  EXPECT_NE(message.find("lost its device"), std::string::npos) << message;
  EXPECT_EQ(sink.discards, 1);
  EXPECT_EQ(sink.commits, 0);
}

}  // namespace

void check_gpu_row_split_failure(Communicator& comm) {
  check_failing_rank(comm, generated(GraphKind::geometric, 1500, -1, 1, 100, 5), "sssp", Backend::cuda);
}

void check_row_split_failures(Communicator& comm) {
  const Case c{"random_n600", generated(GraphKind::random, 600, 3000, 1, 50, 17)};
  for (const char* algorithm : {"dijkstra", "supernodal"}) check_failing_rank(comm, c.graph, algorithm, Backend::cpu);
  const Case cycle = negative_cycle_case(40, 3);
  for (const char* algorithm : {"johnson", "bellman-ford"}) {
    ByteRows sink;
    DistributedOptions o;
    o.threads = 2;
    expect_agreed<NegativeCycleError>([&] { solve_distributed_rows(comm, cycle.graph, algorithm, o, sink); });
    EXPECT_EQ(sink.discards, 1);
  }
  ByteRows sink;
  const auto [message, origin] = expect_agreed<UsageError>(
      [&] { solve_distributed_rows(comm, c.graph, "fw-blocked", DistributedOptions{}, sink); });
  EXPECT_EQ(origin, -1);
  EXPECT_NE(message.find("whole matrix"), std::string::npos) << message;
}

void check_gpu_rows_match_one_gpu(Communicator& comm, const std::string& algorithm) {
  std::vector<Case> cases = {
      Case{"geometric_n3000", generated(GraphKind::geometric, 3000, -1, 1, 100, 3)},
      Case{"rmat_n2048_zero_weights", generated(GraphKind::rmat, 2048, -1, 0, 100, 4)},
  };
  // Unreachable pairs too: a vertex nothing reaches.
  for (Case& c : cases) {
    c.graph.n += 1;
    c.graph.edges.push_back(Edge{static_cast<vertex_t>(c.graph.n - 1), 0, 7});
  }
  const std::vector<Case> standard = standard_cases();
  for (std::size_t i = 0; i < standard.size(); i += 8) cases.push_back(standard[i]);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    check_one(comm, c.name, c.graph, algorithm, false, Backend::cuda);
    if (i % 2 == 0) {
      const GraphF64 real = with_real_weights(c.graph);
      check_one(comm, c.name + " (float64)", real, algorithm, false, Backend::cuda);
      check_one(comm, c.name + " (float32)", to_float32(real), algorithm, false, Backend::cuda);
    }
  }
}

void check_gpu_rows_with_predecessors(Communicator& comm, bool per_chunk_download) {
  Case c{"geometric_n1500", generated(GraphKind::geometric, 1500, -1, 1, 100, 5)};
  c.graph.n += 1;  // unreachable pairs too
  c.graph.edges.push_back(Edge{static_cast<vertex_t>(c.graph.n - 1), 0, 7});
  check_one(comm, c.name, c.graph, "sssp", true, Backend::cuda, per_chunk_download);
  check_one(comm, c.name + " (float32)", to_float32(with_real_weights(c.graph)), "sssp", true, Backend::cuda,
            per_chunk_download);
}

}  // namespace apsp::test
