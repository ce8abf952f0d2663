#include "dist/checks/gpu_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/distributed.hpp"
#include "apsp/solver.hpp"
#include "dist/checks/row_collector.hpp"

#ifdef APSP_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace apsp::test {
namespace {

int device_of(const Communicator& comm) { return comm.device() >= 0 ? comm.device() : 0; }

// Every delivered row equals `expected` (n x n) and every row arrives once.
void expect_rows(Communicator& comm, const RowCollector& sink, const HostVector<dist_t>& expected, std::int64_t n) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n), 0);
  std::string mismatch;
  for (const auto& [row, values] : sink.distances) {
    if (row < 0 || row >= n) continue;
    ++counts[static_cast<std::size_t>(row)];
    for (std::int64_t j = 0; j < n && mismatch.empty(); ++j)
      if (values[static_cast<std::size_t>(j)] != expected[static_cast<std::size_t>(row * n + j)])
        mismatch = "d[" + std::to_string(row) + "][" + std::to_string(j) + "] = " +
                   std::to_string(values[static_cast<std::size_t>(j)]) + ", expected " +
                   std::to_string(expected[static_cast<std::size_t>(row * n + j)]);
  }
  EXPECT_EQ(mismatch, "");
  EXPECT_EQ(sink.problem, "");
  comm.all_reduce(counts.data(), counts.data(), counts.size(), ReduceOp::sum);
  EXPECT_EQ(std::count(counts.begin(), counts.end(), 1), n) << "some row did not arrive exactly once";
}

DistributedResult solve_on_gpu(Communicator& comm, const Graph& g, const DistConfig& config, RowCollector& sink) {
  DistributedOptions o = config.options();
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
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "fw-blocked";
  o.threads = 1;
  const SolveResult expected = solve(c.graph, o);
  RowCollector sink;
  const DistributedResult r = solve_on_gpu(comm, c.graph, config, sink);
  EXPECT_EQ(r.backend, Backend::cuda);
  EXPECT_EQ(sink.commits, 1);
  expect_rows(comm, sink, expected.dist, c.graph.n);
}

void check_gpu_matches_single_gpu(Communicator& comm, std::int64_t n, const DistConfig& config) {
  SCOPED_TRACE("n = " + std::to_string(n) + " on the GPU, " + config.name() + ", rank " + std::to_string(comm.rank()));
  const Graph g = generated(GraphKind::rmat, n, 8 * n, -5, 100, static_cast<std::uint64_t>(n));
  SolveOptions o;
  o.backend = Backend::cuda;
  o.algorithm = "fw";
  o.precision = Precision::int32;
  o.device = device_of(comm);
  const SolveResult expected = solve(g, o);
  RowCollector sink;
  const DistributedResult r = solve_on_gpu(comm, g, config, sink);
  EXPECT_EQ(sink.commits, 1);
  expect_rows(comm, sink, expected.dist, n);
  if (comm.rank() == 0)
    std::printf("[ timing ] n=%lld %s P=%d: single-GPU fw compute %.3f s, distributed rounds %.3f s\n",
                static_cast<long long>(n), config.name().c_str(), comm.size(), expected.times.seconds("compute"), r.rounds_seconds);
}

}  // namespace apsp::test
