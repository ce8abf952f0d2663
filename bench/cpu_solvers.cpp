// Google Benchmark timings of the CPU algorithms on seeded graphs.
//
//   apsp_bench_cpu_solvers [benchmark flags]
//   apsp_bench_cpu_solvers --export KIND N PATH   writes the benchmark graph as
//                                                NTHU .bin (bench/compare_scipy.py)
//
// KIND is dense (each pair an edge with probability 1/4, the Floyd-Warshall
// graph), rmat (m = 8n) or random-D (m = D*n, D edges per vertex). Weights are
// 1..100 and the seed is fixed, so both sides of a comparison see one graph.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "apsp/generate.hpp"
#include "apsp/graph.hpp"
#include "apsp/solver.hpp"

namespace {

apsp::Graph make_graph(const std::string& kind, std::int64_t n) {
  apsp::GenerateOptions o;
  o.n = n;
  o.w_lo = 1;
  o.w_hi = 100;
  o.seed = 2024;
  if (kind == "dense") {
    o.kind = apsp::GraphKind::dense;
    o.density = 0.25;
  } else if (kind == "rmat") {
    o.kind = apsp::GraphKind::rmat;
    o.m = 8 * n;
  } else if (kind.rfind("random-", 0) == 0) {
    o.kind = apsp::GraphKind::random;
    o.m = std::stoll(kind.substr(7)) * n;
  } else {
    throw std::invalid_argument("unknown benchmark graph kind '" + kind + "' (dense, rmat, random-D)");
  }
  return apsp::normalize(apsp::generate(o));
}

// Graphs are generated once per (kind, n) and reused across repetitions.
const apsp::Graph& cached_graph(const std::string& kind, std::int64_t n) {
  static std::map<std::pair<std::string, std::int64_t>, apsp::Graph> cache;
  auto key = std::make_pair(kind, n);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make_graph(kind, n)).first;
  return it->second;
}

// NTHU .bin: int32 n, int32 m, then m int32 triples (src, dst, w).
void export_graph(const std::string& kind, std::int64_t n, const std::string& path) {
  const apsp::Graph g = make_graph(kind, n);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot open " + path + " for writing");
  const std::int32_t header[2] = {static_cast<std::int32_t>(g.n), static_cast<std::int32_t>(g.edges.size())};
  bool ok = std::fwrite(header, sizeof header, 1, f) == 1;
  for (const apsp::Edge& e : g.edges) {
    const std::int32_t triple[3] = {e.src, e.dst, e.w};
    ok = ok && std::fwrite(triple, sizeof triple, 1, f) == 1;
  }
  ok = std::fclose(f) == 0 && ok;
  if (!ok) throw std::runtime_error("cannot write " + path);
}

// One solve per iteration; items are the n^3 relaxations of Floyd-Warshall
// so that every algorithm reports comparable "updates per second". A "+pred"
// suffix on the algorithm also asks for predecessors.
void solve_benchmark(benchmark::State& state, const std::string& algorithm, const std::string& kind) {
  const std::int64_t n = state.range(0);
  const apsp::Graph& g = cached_graph(kind, n);
  const std::string suffix = "+pred";
  const bool predecessors = algorithm.size() > suffix.size() &&
                            algorithm.compare(algorithm.size() - suffix.size(), suffix.size(), suffix) == 0;
  apsp::SolveOptions o;
  o.backend = apsp::Backend::cpu;
  o.algorithm = predecessors ? algorithm.substr(0, algorithm.size() - suffix.size()) : algorithm;
  o.predecessors = predecessors;
  for (auto _ : state) {
    apsp::SolveResult r = apsp::solve(g, o);
    benchmark::DoNotOptimize(r.dist.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n * n * n);
  state.counters["edges"] = static_cast<double>(g.edges.size());
}

void register_benchmarks() {
  const char* kinds[] = {"dense",     "rmat",      "random-2",  "random-3",   "random-4",   "random-6",
                         "random-8",  "random-12", "random-16", "random-24",  "random-32",  "random-48",
                         "random-64", "random-96", "random-128", "random-256"};
  const char* algorithms[] = {"fw-seq",        "fw-blocked",    "dijkstra",      "johnson", "bellman-ford",
                              "fw-blocked+pred", "dijkstra+pred", "johnson+pred"};
  for (const char* kind : kinds)
    for (const char* algorithm : algorithms) {
      const std::string name = std::string(algorithm) + "/" + kind;
      auto* b = benchmark::RegisterBenchmark(name.c_str(), [algorithm, kind](benchmark::State& s) {
        solve_benchmark(s, algorithm, kind);
      });
      b->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
      for (const std::int64_t n : {512, 1024, 2048, 4096, 8192}) b->Arg(n);
    }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--export") == 0) {
    try {
      export_graph(argv[2], std::stoll(argv[3]), argv[4]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "apsp_bench_cpu_solvers: %s\n", e.what());
      return 1;
    }
    return 0;
  }
  register_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
