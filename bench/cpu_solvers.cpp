// Google Benchmark timings of the CPU algorithms on seeded graphs.
//
//   apsp_bench_cpu_solvers [benchmark flags]
//   apsp_bench_cpu_solvers --export KIND N PATH   writes the benchmark graph as
//                                                NTHU .bin (bench/compare_scipy.py)
//   apsp_bench_cpu_solvers --export-real KIND N PATH   writes its real-valued
//       version: float64 n, m, then m float64 triples (src, dst, w)
//
// KIND is dense (each pair an edge with probability 1/4, the Floyd-Warshall
// graph), rmat (m = 8n), random-D (m = D*n, D edges per vertex), grid (a
// near-square 2D grid, both directions: road-like, separators ~ sqrt(n)) or
// geometric (nearest neighbours of random points in the unit square: planar-like). Weights are
// 1..100 and the seed is fixed, so both sides of a comparison see one graph.
// An algorithm suffix "+f64" or "+f32" solves the real-valued version of the
// graph (real_graph) in that type.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

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
  } else if (kind == "grid") {
    o.kind = apsp::GraphKind::grid;
  } else if (kind == "geometric") {
    o.kind = apsp::GraphKind::geometric;
  } else if (kind.rfind("random-", 0) == 0) {
    o.kind = apsp::GraphKind::random;
    o.m = std::stoll(kind.substr(7)) * n;
  } else {
    throw std::invalid_argument("unknown benchmark graph kind '" + kind + "' (dense, rmat, random-D, grid, geometric)");
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

// The real-valued version of a benchmark graph: weight w becomes w plus a
// fraction in [0, 1) that depends on the edge (w + ((31 src + dst) mod 1000)
// / 1000), so weights are no integers and sums round.
apsp::GraphF64 real_graph(const apsp::Graph& g) {
  apsp::GraphF64 out;
  out.n = g.n;
  for (const apsp::Edge& e : g.edges)
    out.edges.push_back({e.src, e.dst, e.w + static_cast<double>((31 * std::int64_t{e.src} + e.dst) % 1000) / 1000.0});
  return out;
}

const apsp::GraphF64& cached_real_graph(const std::string& kind, std::int64_t n) {
  static std::map<std::pair<std::string, std::int64_t>, apsp::GraphF64> cache;
  auto key = std::make_pair(kind, n);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, real_graph(cached_graph(kind, n))).first;
  return it->second;
}

// float64 n, m, then m float64 triples (src, dst, w): read with numpy.fromfile.
void export_real_graph(const std::string& kind, std::int64_t n, const std::string& path) {
  const apsp::GraphF64 g = real_graph(make_graph(kind, n));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot open " + path + " for writing");
  const double header[2] = {static_cast<double>(g.n), static_cast<double>(g.edges.size())};
  bool ok = std::fwrite(header, sizeof header, 1, f) == 1;
  for (const apsp::EdgeF64& e : g.edges) {
    const double triple[3] = {static_cast<double>(e.src), static_cast<double>(e.dst), e.w};
    ok = ok && std::fwrite(triple, sizeof triple, 1, f) == 1;
  }
  ok = std::fclose(f) == 0 && ok;
  if (!ok) throw std::runtime_error("cannot write " + path);
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

// Removes `suffix` from the end of `name`; whether it was there.
bool take_suffix(std::string& name, const std::string& suffix) {
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  name.resize(name.size() - suffix.size());
  return true;
}

template <class G>
void time_solves(benchmark::State& state, const G& g, const apsp::SolveOptions& o) {
  for (auto _ : state) {
    auto r = apsp::solve(g, o);
    benchmark::DoNotOptimize(r.dist.data());
    benchmark::ClobberMemory();
  }
  state.counters["edges"] = static_cast<double>(g.edges.size());
}

// One solve per iteration; items are the n^3 relaxations of Floyd-Warshall
// so that every algorithm reports comparable "updates per second". Suffixes
// on the algorithm: "+pred" also asks for predecessors, "+f64" / "+f32"
// solve the real-valued graph in that type.
void solve_benchmark(benchmark::State& state, const std::string& algorithm, const std::string& kind) {
  const std::int64_t n = state.range(0);
  std::string name = algorithm;
  const bool f64 = take_suffix(name, "+f64");
  const bool f32 = take_suffix(name, "+f32");
  const bool predecessors = take_suffix(name, "+pred");
  apsp::SolveOptions o;
  o.backend = apsp::Backend::cpu;
  o.algorithm = name;
  o.predecessors = predecessors;
  if (f64)
    time_solves(state, cached_real_graph(kind, n), o);
  else if (f32)
    time_solves(state,
                apsp::GraphF32(std::get<apsp::GraphF32>(
                    apsp::convert_weights(cached_real_graph(kind, n), apsp::WeightType::float32))),
                o);
  else
    time_solves(state, cached_graph(kind, n), o);
  state.SetItemsProcessed(state.iterations() * n * n * n);
}

void register_benchmarks() {
  const char* kinds[] = {"dense",     "rmat",      "random-2",   "random-3",   "random-4",  "random-6",
                         "random-8",  "random-12", "random-16",  "random-24",  "random-32", "random-48",
                         "random-64", "random-96", "random-128", "random-256", "grid",      "geometric"};
  const char* algorithms[] = {
      "fw-seq",        "fw-blocked",   "dijkstra",       "johnson",        "bellman-ford",        "fw-blocked+pred",
      "dijkstra+pred", "johnson+pred", "fw-blocked+f64", "fw-blocked+f32", "fw-blocked+pred+f64", "dijkstra+f64",
      "dijkstra+f32",  "johnson+f64",  "johnson+f32",    "supernodal",     "supernodal+pred",     "supernodal+f64",
      "auto"};
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
  if (argc == 5 && (std::strcmp(argv[1], "--export") == 0 || std::strcmp(argv[1], "--export-real") == 0)) {
    try {
      if (std::strcmp(argv[1], "--export") == 0)
        export_graph(argv[2], std::stoll(argv[3]), argv[4]);
      else
        export_real_graph(argv[2], std::stoll(argv[3]), argv[4]);
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
