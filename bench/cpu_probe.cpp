// Google Benchmark timings of auto's graph probe (core/graph_probe.hpp) on
// the benchmark families: the whole probe (degree pass and hop-depth
// search), and the hop-depth search alone with and without its early stop.
//
//   apsp_bench_cpu_probe [benchmark flags]
//
// Counters: edges_scanned by the search, depth, and m. "dense-half" is
// every ordered pair with probability 1/2 (issue 21's dense family, where the
// unbounded search scanned every edge three times: 60-90 ms at n = 4096).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../bench/families.hpp"
#include "core/graph_probe.hpp"

namespace {

const apsp::Graph& cached(const std::string& family, std::int64_t n) {
  static std::map<std::pair<std::string, std::int64_t>, apsp::Graph> cache;
  auto it = cache.find({family, n});
  if (it == cache.end()) it = cache.emplace(std::pair{family, n}, apsp::bench::family_graph(family, n, 7)).first;
  return it->second;
}

void counters(benchmark::State& state, const apsp::Graph& g, std::int64_t scanned, std::int64_t depth) {
  state.counters["m"] = static_cast<double>(g.edges.size());
  state.counters["edges_scanned"] = static_cast<double>(scanned);
  state.counters["depth"] = static_cast<double>(depth);
}

// The probe as auto runs it.
void probe(benchmark::State& state, const std::string& family) {
  const apsp::Graph& g = cached(family, state.range(0));
  apsp::core::GraphProbe p;
  for (auto _ : state) {
    p = apsp::core::probe_graph(g);
    benchmark::DoNotOptimize(p);
  }
  counters(state, g, p.hop_edges_scanned, p.hop_depth);
}

// The plain breadth-first search of every level from the probe's sources, as
// the probe ran before its early stop (the reference cost).
void plain_bfs(benchmark::State& state, const std::string& family) {
  const apsp::Graph& g = cached(family, state.range(0));
  const std::int64_t n = g.n;
  std::vector<std::int64_t> start(static_cast<std::size_t>(n) + 1, 0);
  for (const apsp::Edge& e : g.edges) ++start[static_cast<std::size_t>(e.src) + 1];
  for (std::int64_t v = 0; v < n; ++v) start[v + 1] += start[v];
  std::int64_t depth = 0, scanned = 0;
  for (auto _ : state) {
    depth = scanned = 0;
    for (const std::int64_t s : {std::int64_t{0}, n / 3, 2 * n / 3}) {
      std::vector<std::int32_t> hops(static_cast<std::size_t>(n), -1);
      std::vector<apsp::vertex_t> queue{static_cast<apsp::vertex_t>(s)};
      hops[static_cast<std::size_t>(s)] = 0;
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const apsp::vertex_t u = queue[head];
        scanned += start[u + 1] - start[u];
        for (std::int64_t e = start[u]; e < start[u + 1]; ++e) {
          const apsp::vertex_t v = g.edges[static_cast<std::size_t>(e)].dst;
          if (hops[v] < 0) {
            hops[v] = hops[u] + 1;
            depth = std::max<std::int64_t>(depth, hops[v]);
            queue.push_back(v);
          }
        }
      }
    }
    benchmark::DoNotOptimize(depth);
  }
  counters(state, g, scanned, depth);
}

void args(benchmark::internal::Benchmark* b, std::vector<std::int64_t> sizes) {
  for (const std::int64_t n : sizes) b->Arg(n);
  b->Unit(benchmark::kMillisecond);
}

void dense_sizes(benchmark::internal::Benchmark* b) { args(b, {4096, 8192}); }
void n32768(benchmark::internal::Benchmark* b) { args(b, {32768}); }
void n65536(benchmark::internal::Benchmark* b) { args(b, {65536}); }
void n126146(benchmark::internal::Benchmark* b) { args(b, {126146}); }

BENCHMARK_CAPTURE(probe, dense_half, std::string("dense-half"))->Apply(dense_sizes);
BENCHMARK_CAPTURE(plain_bfs, dense_half, std::string("dense-half"))->Apply(dense_sizes);
BENCHMARK_CAPTURE(probe, rmat, std::string("rmat"))->Apply(n32768);
BENCHMARK_CAPTURE(plain_bfs, rmat, std::string("rmat"))->Apply(n32768);
BENCHMARK_CAPTURE(probe, uniform, std::string("uniform"))->Apply(n32768);
BENCHMARK_CAPTURE(probe, grid3d, std::string("grid3d"))->Apply(n32768);
BENCHMARK_CAPTURE(probe, grid, std::string("grid"))->Apply(n65536);
BENCHMARK_CAPTURE(plain_bfs, grid, std::string("grid"))->Apply(n65536);
BENCHMARK_CAPTURE(probe, geometric, std::string("geometric"))->Apply(n126146);

}  // namespace

BENCHMARK_MAIN();
