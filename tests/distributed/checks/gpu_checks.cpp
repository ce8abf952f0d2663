#include "distributed/checks/gpu_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/distributed.hpp"
#include "apsp/solver.hpp"
#include "distributed/checks/row_collector.hpp"

#ifdef APSP_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace apsp::test {
namespace {

int device_of(const Communicator& comm) { return comm.device() >= 0 ? comm.device() : 0; }

// The single-process fw-blocked (distances only) on one thread.
SolveResult fw_blocked(const Graph& g) {
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "fw-blocked";
  o.threads = 1;
  return solve(g, o);
}

// Every delivered row equals `expected` (n x n) and every row arrives once;
// with want_both, finite and unreachable off-diagonal entries both appear.
void expect_rows(Communicator& comm, const RowCollector& sink, const HostVector<dist_t>& expected, std::int64_t n,
                 bool want_both = false) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n) + 2, 0);  // rows, then finite and unreachable
  std::string mismatch;
  for (const auto& [row, values] : sink.distances) {
    if (row < 0 || row >= n) continue;
    ++counts[static_cast<std::size_t>(row)];
    for (std::int64_t j = 0; j < n; ++j)
      if (j != row) ++counts[static_cast<std::size_t>(n) + (values[static_cast<std::size_t>(j)] == kInf ? 1 : 0)];
    for (std::int64_t j = 0; j < n && mismatch.empty(); ++j)
      if (values[static_cast<std::size_t>(j)] != expected[static_cast<std::size_t>(row * n + j)])
        mismatch = "d[" + std::to_string(row) + "][" + std::to_string(j) +
                   "] = " + std::to_string(values[static_cast<std::size_t>(j)]) + ", expected " +
                   std::to_string(expected[static_cast<std::size_t>(row * n + j)]);
  }
  EXPECT_EQ(mismatch, "");
  EXPECT_EQ(sink.problem, "");
  comm.all_reduce(counts.data(), counts.data(), counts.size(), ReduceOp::sum);
  EXPECT_EQ(std::count(counts.begin(), counts.begin() + n, 1), n) << "some row did not arrive exactly once";
  if (want_both) {
    EXPECT_GT(counts[static_cast<std::size_t>(n)], 0) << "no finite entry off the diagonal";
    EXPECT_GT(counts[static_cast<std::size_t>(n) + 1], 0) << "no unreachable entry";
  }
}

DistributedResult solve_on_gpu(Communicator& comm, const Graph& g, const DistConfig& config, RowCollector& sink,
                               Precision precision = Precision::automatic, bool predecessors = false) {
  DistributedOptions o = config.options();
  o.precision = precision;
  o.predecessors = predecessors;
  o.backend = Backend::cuda;
  o.device = device_of(comm);
  o.verify = true;
  DistributedResult r;
  try {
    r = solve_distributed(comm, g, o, sink);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "solve_distributed threw: " << e.what();
  }
  return r;
}

#ifdef APSP_WITH_CUDA
#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

template <class T>
void device_round_trip(Communicator& comm) {
  const int p = comm.size(), r = comm.rank();
  constexpr std::size_t kCount = 1000;
  std::vector<T> host(kCount);
  T* device = nullptr;
  CUDA_OK(cudaSetDevice(device_of(comm)));
  CUDA_OK(cudaMalloc(&device, kCount * sizeof(T)));
  for (int root = 0; root < p; ++root) {
    for (std::size_t i = 0; i < kCount; ++i) host[i] = static_cast<T>(r * 1000 + static_cast<int>(i % 97));
    CUDA_OK(cudaMemcpy(device, host.data(), kCount * sizeof(T), cudaMemcpyHostToDevice));
    comm.broadcast(device, kCount, root, Memory::device);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(host.data(), device, kCount * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < kCount; ++i)
      if (host[i] != static_cast<T>(root * 1000 + static_cast<int>(i % 97))) {
        ADD_FAILURE() << "device broadcast from " << root << " differs at " << i << " on rank " << r;
        break;
      }
  }
  for (ReduceOp op : {ReduceOp::min, ReduceOp::sum}) {
    for (std::size_t i = 0; i < kCount; ++i) host[i] = static_cast<T>(r + static_cast<int>(i % 5));
    CUDA_OK(cudaMemcpy(device, host.data(), kCount * sizeof(T), cudaMemcpyHostToDevice));
    comm.all_reduce(device, device, kCount, op, Memory::device);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(host.data(), device, kCount * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < kCount; ++i) {
      const int base = static_cast<int>(i % 5);
      const T expected = op == ReduceOp::min ? static_cast<T>(base) : static_cast<T>(p * base + p * (p - 1) / 2);
      if (host[i] != expected) {
        ADD_FAILURE() << "device all_reduce differs at " << i << " on rank " << r;
        break;
      }
    }
  }
  // A chain r -> r + 1.
  if (r > 0) {
    comm.receive(device, kCount, r - 1, Memory::device);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(host.data(), device, kCount * sizeof(T), cudaMemcpyDeviceToHost));
    EXPECT_EQ(host[7], static_cast<T>((r - 1) * 3 + 7));
  }
  if (r + 1 < p) {
    for (std::size_t i = 0; i < kCount; ++i) host[i] = static_cast<T>(r * 3 + static_cast<int>(i));
    CUDA_OK(cudaMemcpy(device, host.data(), kCount * sizeof(T), cudaMemcpyHostToDevice));
    comm.send(device, kCount, r + 1, Memory::device);
    CUDA_OK(cudaDeviceSynchronize());
  }
  CUDA_OK(cudaFree(device));
}
#endif

}  // namespace

bool gpu_available() { return cuda::compiled_in() && !cuda::devices().empty(); }

void check_device_collectives(Communicator& comm) {
#ifdef APSP_WITH_CUDA
  device_round_trip<std::int32_t>(comm);
  device_round_trip<std::int64_t>(comm);
  device_round_trip<double>(comm);
  comm.barrier();
#else
  (void)comm;
#endif
}

void check_gpu_matches_fw_blocked(Communicator& comm, const Case& c, const DistConfig& config) {
  SCOPED_TRACE(c.name + " on the GPU, " + config.name() + ", rank " + std::to_string(comm.rank()));
  const SolveResult expected = fw_blocked(c.graph);
  RowCollector sink;
  const DistributedResult r = solve_on_gpu(comm, c.graph, config, sink);
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(sink.commits, 1);
  expect_rows(comm, sink, expected.dist, c.graph.n);
}

void check_gpu_output_range(Communicator& comm, const DistConfig& config) {
  for (const weight_t w : {20000000, -20000000}) {
    Graph chain{130, {}};
    for (vertex_t v = 0; v + 1 < 130; ++v) chain.edges.push_back(Edge{v, v + 1, w});
    SCOPED_TRACE("a chain of 129 edges of " + std::to_string(w) + " on the GPU, " + config.name() + ", rank " +
                 std::to_string(comm.rank()));
    DistributedOptions o = config.options();
    o.backend = Backend::cuda;
    o.precision = Precision::int32;
    o.device = device_of(comm);
    RowCollector sink;
    const auto [message, origin] = expect_agreed<OverflowError>([&] { solve_distributed(comm, chain, o, sink); });
    EXPECT_NE(message.find(w > 0 ? "beyond the GPU's int32 range" : "does not fit the int32 output"), std::string::npos)
        << message;
    EXPECT_GE(origin, -1);
    EXPECT_EQ(sink.commits, 0);
    EXPECT_EQ(sink.discards, 1);
  }
}

namespace {

// The single-GPU fw in int32 on `g` (every rank computes it itself).
SolveResult single_gpu_fw(const Communicator& comm, const Graph& g) {
  SolveOptions o;
  o.backend = Backend::cuda;
  o.algorithm = "fw";
  o.precision = Precision::int32;
  o.device = device_of(comm);
  return solve(g, o);
}

}  // namespace

Graph int16_friendly_graph(std::int64_t n) {
  Graph g = generated(GraphKind::rmat, n, 6 * n, 0, 30, static_cast<std::uint64_t>(n));
  g.n += 37;
  return g;
}

Graph int16_overflowing_graph(std::int64_t n) {
  // A chain 0 -> 1 -> ... -> n-1 of weights 100..299 (about 200 n in all,
  // far past 16383) with some random shortcuts that still weigh more.
  Graph g = generated(GraphKind::random, n, 2 * n, 3000, 4000, static_cast<std::uint64_t>(n) + 1);
  for (std::int64_t v = 0; v + 1 < n; ++v)
    g.edges.push_back(
        Edge{static_cast<vertex_t>(v), static_cast<vertex_t>(v + 1), static_cast<weight_t>(100 + (v * 37) % 200)});
  g.n += 37;
  return g;
}

void check_gpu_precision(Communicator& comm, const std::string& name, const Graph& g, const DistConfig& config,
                         Precision asked, Precision expected_used) {
  SCOPED_TRACE(name + " asking " + to_string(asked) + " on the GPU, " + config.name() + ", rank " +
               std::to_string(comm.rank()));
  const SolveResult expected = single_gpu_fw(comm, g);
  RowCollector sink;
  const DistributedResult r = solve_on_gpu(comm, g, config, sink, asked);
  EXPECT_EQ(r.precision, expected_used);
  EXPECT_EQ(sink.commits, 1);
  expect_rows(comm, sink, expected.dist, g.n, true);
}

void check_gpu_predecessors(Communicator& comm, const Case& c, const DistConfig& config, Precision precision) {
  SCOPED_TRACE(c.name + " with predecessors on the GPU, " + config.name() + ", rank " + std::to_string(comm.rank()));
  const SolveResult expected = fw_blocked(c.graph);
  RowCollector sink;
  const DistributedResult r = solve_on_gpu(comm, c.graph, config, sink, precision, true);
  EXPECT_EQ(sink.commits, 1);
  EXPECT_TRUE(sink.layout.predecessors);
  EXPECT_GE(r.verify_seconds, 0.0);
  expect_rows(comm, sink, expected.dist, c.graph.n);
  EXPECT_EQ(sink.predecessors.size(), sink.distances.size());
  for (const auto& [row, pred] : sink.predecessors) {
    const auto d = sink.distances.find(row);
    if (d == sink.distances.end()) continue;
    for (std::size_t j = 0; j < pred.size(); ++j)
      if ((pred[j] >= 0) != (d->second[j] != kInf && static_cast<std::int64_t>(j) != row)) {
        ADD_FAILURE() << "pred[" << row << "][" << j << "] = " << pred[j] << " with d = " << d->second[j];
        break;
      }
  }
}

void check_gpu_matches_single_gpu(Communicator& comm, std::int64_t n, const DistConfig& config) {
  SCOPED_TRACE("n = " + std::to_string(n) + " on the GPU, " + config.name() + ", rank " + std::to_string(comm.rank()));
  const Graph g = generated(GraphKind::rmat, n, 8 * n, -5, 100, static_cast<std::uint64_t>(n));
  const SolveResult expected = single_gpu_fw(comm, g);
  RowCollector sink;
  const DistributedResult r = solve_on_gpu(comm, g, config, sink);
  EXPECT_EQ(sink.commits, 1);
  expect_rows(comm, sink, expected.dist, n);
  if (comm.rank() == 0)
    std::printf("[ timing ] n=%lld %s P=%d: single-GPU fw compute %.3f s, distributed rounds %.3f s\n",
                static_cast<long long>(n), config.name().c_str(), comm.size(), expected.times.seconds("compute"),
                r.rounds_seconds);
}

}  // namespace apsp::test
