// Real-valued fw on the GPU: device-resident rounds of cuda::fw_rounds_real
// in float32 and float64 against the add+min peak of each type measured in
// the same run (bench/gpu_peak.cuh), with CUDA events around each run, a
// warm-up first and the median of the repeats. The graph is R-MAT with
// m = 8n and weights uniform in [1, 100) with fractional parts; the first run
// of every size is checked against Dijkstra in double on the host from a few
// sources (relative tolerance from the type's epsilon and the hop count).
// The int32 baseline of the same run comes from apsp_bench_gpu_bench
// (scripts/gpu-bench runs both).
//
//   apsp_bench_gpu_real_bench --sizes 8192,16384,32768 [--types float32,float32-loadc,float32-1blk,float32-foldc,float64] [--csv FILE]
// float32 is the production phase 3 (C folded in after the k-chunks, the old
// tile prefetched into L2 and L1); float32-loadc the int32 kernel as is (C
// loaded first), float32-1blk that with one block per SM and the register
// cap lifted, float32-foldc the fold without the L1 prefetch
// (cuda::RealFwVariant, the ladder in docs/perf.md).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "cuda/fw_real.hpp"
#include "core/cuda_memory.hpp"
#include "gpu_peak.cuh"

namespace {

using apsp::cuda::Event;
using apsp::cuda::Stream;

template <class T>
double measure_peak() {
  constexpr int kChains = 16, kThreads = 256;
  const int blocks = apsp::bench::peak_blocks();
  const int steps = 1 << 14;
  apsp::cuda::DeviceBuffer<int> sink(kThreads);
  return apsp::bench::median_peak_rate(
      [&](cudaStream_t stream, int rep) {
        apsp::bench::peak_chains_real<kChains, T><<<blocks, kThreads, 0, stream>>>(rep + 3, steps, sink.get());
      },
      double(blocks) * kThreads * kChains * steps);
}

struct WeightedEdge {
  std::int32_t src, dst;
  double w;
};

// R-MAT topology with m = 8n from apsp::generate, real weights in [1, 100).
std::vector<WeightedEdge> bench_edges(std::int64_t n, std::uint64_t seed) {
  apsp::GenerateOptions o;
  o.kind = apsp::GraphKind::rmat;
  o.n = n;
  o.m = 8 * n;
  o.w_lo = 1;
  o.w_hi = 100;
  o.seed = seed;
  const apsp::Graph g = apsp::normalize(apsp::generate(o));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> fraction(0, 1);
  std::vector<WeightedEdge> edges;
  edges.reserve(g.edges.size());
  for (const auto& e : g.edges) edges.push_back({e.src, e.dst, std::min(99.999, e.w + fraction(rng))});
  return edges;
}

template <class D>
std::vector<D> dense_matrix(const std::vector<WeightedEdge>& edges, std::int64_t n_pad) {
  std::vector<D> m(static_cast<std::size_t>(n_pad * n_pad), std::numeric_limits<D>::infinity());
  for (std::int64_t i = 0; i < n_pad; ++i) m[static_cast<std::size_t>(i * n_pad + i)] = 0;
  for (const WeightedEdge& e : edges)
    m[static_cast<std::size_t>(std::int64_t{e.src} * n_pad + e.dst)] = static_cast<D>(e.w);
  return m;
}

// Dijkstra in double from `source` over the (src, dst)-sorted edges.
std::vector<double> dijkstra(const std::vector<WeightedEdge>& edges, std::int64_t n, std::int32_t source,
                             std::vector<int>& hops) {
  std::vector<std::int64_t> start(static_cast<std::size_t>(n + 1), 0);
  for (const WeightedEdge& e : edges) ++start[static_cast<std::size_t>(e.src) + 1];
  for (std::int64_t v = 0; v < n; ++v) start[v + 1] += start[v];
  std::vector<double> dist(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
  hops.assign(static_cast<std::size_t>(n), 0);
  using Item = std::pair<double, std::int32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  dist[source] = 0;
  queue.push({0, source});
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d > dist[u]) continue;
    for (std::int64_t k = start[u]; k < start[u + 1]; ++k) {
      const WeightedEdge& e = edges[static_cast<std::size_t>(k)];
      if (d + e.w < dist[e.dst]) {
        dist[e.dst] = d + e.w;
        hops[e.dst] = hops[u] + 1;
        queue.push({dist[e.dst], e.dst});
      }
    }
  }
  return dist;
}

template <class D>
void check_rows(const D* device, std::int64_t n, std::int64_t n_pad, const std::vector<WeightedEdge>& edges) {
  std::vector<D> row(static_cast<std::size_t>(n));
  std::vector<int> hops;
  for (std::int32_t source : {0, static_cast<std::int32_t>(n / 3), static_cast<std::int32_t>(n - 1)}) {
    APSP_CUDA_CHECK(cudaMemcpy(row.data(), device + source * n_pad, sizeof(D) * n, cudaMemcpyDeviceToHost));
    const std::vector<double> want = dijkstra(edges, n, source, hops);
    for (std::int64_t j = 0; j < n; ++j) {
      const double got = row[j];
      const bool ok = std::isinf(want[j])
                          ? std::isinf(got)
                          : std::abs(got - want[j]) <=
                                4.0 * (hops[j] + 1) * std::numeric_limits<D>::epsilon() * want[j] + 1e-12;
      if (!ok)
        throw apsp::Error("fw " + std::string(sizeof(D) == 4 ? "float32" : "float64") + " at n = " + std::to_string(n) +
                          ": distance " + std::to_string(source) + "->" + std::to_string(j) + " = " +
                          std::to_string(got) + ", Dijkstra says " + std::to_string(want[j]));
    }
  }
}

struct Row {
  std::string type;
  std::int64_t n;
  double seconds, rate, pct_peak;
};

template <class D>
Row time_fw(std::int64_t n, std::uint64_t seed, int warmup, int reps, double peak, const std::string& type,
            apsp::cuda::RealFwVariant variant = apsp::cuda::RealFwVariant::production) {
  const std::vector<WeightedEdge> edges = bench_edges(n, seed);
  const std::int64_t n_pad = apsp::round_up(n, apsp::cuda::real_fw_pad<D>());
  const std::vector<D> host = dense_matrix<D>(edges, n_pad);
  apsp::cuda::DeviceBuffer<D> pristine(host.size()), work(host.size());
  APSP_CUDA_CHECK(cudaMemcpy(pristine.get(), host.data(), sizeof(D) * host.size(), cudaMemcpyHostToDevice));
  Stream stream;
  std::vector<double> seconds;
  for (int rep = 0; rep < warmup + reps; ++rep) {
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(work.get(), pristine.get(), sizeof(D) * host.size(), cudaMemcpyDeviceToDevice, stream.get()));
    Event begin, end;
    begin.record(stream.get());
    if constexpr (sizeof(D) == 4)
      apsp::cuda::fw_rounds_real(work.get(), n_pad, stream.get(), apsp::ProgressSpan{}, variant);
    else
      apsp::cuda::fw_rounds_real(work.get(), n_pad, stream.get(), apsp::ProgressSpan{});
    end.record(stream.get());
    const double s = apsp::cuda::elapsed_ms(begin, end) / 1e3;
    if (rep == 0) check_rows(work.get(), n, n_pad, edges);
    if (rep >= warmup) seconds.push_back(s);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  const double rate = double(n) * double(n) * double(n) / median;
  return Row{type, n, median, rate, 100 * rate / peak};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"apsp GPU real-valued fw benchmark"};
  std::vector<std::int64_t> sizes{8192, 16384, 32768};
  std::vector<std::string> types{"float32", "float64"};
  std::string csv;
  int warmup = 1, reps = 5;
  std::uint64_t seed = 1;
  app.add_option("--sizes", sizes, "vertex counts")->delimiter(',');
  app.add_option("--types", types, "float32,float32-loadc,float32-1blk,float32-foldc,float64")->delimiter(',');
  app.add_option("--csv", csv, "append rows to this CSV file");
  app.add_option("--warmup", warmup, "untimed runs first");
  app.add_option("--reps", reps, "timed runs (median reported)");
  app.add_option("--seed", seed, "graph seed");
  CLI11_PARSE(app, argc, argv);
  try {
    if (apsp::cuda::devices().empty()) throw apsp::ResourceError("no CUDA device found");
    const auto dev = apsp::cuda::devices().front();
    std::printf("device: %s, %d SMs\n", dev.name.c_str(), dev.multiprocessors);
    const double peak32 = measure_peak<float>(), peak64 = measure_peak<double>();
    std::printf("peak: float32 add+min %.2f T/s, float64 add+min %.2f T/s\n", peak32 / 1e12, peak64 / 1e12);
    std::vector<Row> rows{{"peak-float32", 0, 0, peak32, 100}, {"peak-float64", 0, 0, peak64, 100}};
    for (std::int64_t n : sizes)
      for (const std::string& t : types) {
        if (t == "float32")
          rows.push_back(time_fw<float>(n, seed, warmup, reps, peak32, t));
        else if (t == "float32-loadc")
          rows.push_back(time_fw<float>(n, seed, warmup, reps, peak32, t, apsp::cuda::RealFwVariant::load_c_first));
        else if (t == "float32-1blk")
          rows.push_back(time_fw<float>(n, seed, warmup, reps, peak32, t, apsp::cuda::RealFwVariant::one_block_per_sm));
        else if (t == "float32-foldc")
          rows.push_back(time_fw<float>(n, seed, warmup, reps, peak32, t, apsp::cuda::RealFwVariant::fold_c));
        else if (t == "float64")
          rows.push_back(time_fw<double>(n, seed, warmup, reps, peak64, t));
        else
          throw apsp::UsageError("unknown type " + t +
                                     " (expected float32, float32-loadc, float32-1blk, float32-foldc or float64)",
                                 "types");
        const Row& r = rows.back();
        std::printf("fw %-8s n=%6lld  %10.2f ms  %6.2f T/s  %5.1f%% of peak\n", r.type.c_str(),
                    static_cast<long long>(r.n), r.seconds * 1e3, r.rate / 1e12, r.pct_peak);
        std::fflush(stdout);
      }
    if (!csv.empty()) {
      std::ofstream out(csv, std::ios::app);
      if (!out) throw apsp::InputError("cannot write " + csv);
      if (out.tellp() == 0) out << "type,n,seconds,updates_per_s,pct_peak\n";
      for (const Row& r : rows)
        out << r.type << ',' << r.n << ',' << r.seconds << ',' << r.rate << ',' << r.pct_peak << '\n';
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apsp_bench_gpu_real_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
