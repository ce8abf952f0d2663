// Sparse-graph benchmark: fw (int32, int16) against the batched SSSP ladder
// (sssp-frontier, sssp-nearfar, the production sssp with a sweep of near-far delta scales) and what "auto"
// picks, on the issue's graph families, graph resident on the device, CUDA
// events, warm-up then medians. fw above --fw-max-n is not run: its time is
// estimated as n^3 / 14.8e12 s (int32) or n^3 / 28.1e12 s (int16), the rates
// measured at n = 32768 (docs/results/2026-11-22-h100), and the row says so.
// Every measured configuration checks sampled rows once, untimed, with the
// CPU verifier's row check (the O(m) certificate of a row).
//
//   apsp_bench_gpu_sparse_bench compare --csv sparse.csv
//   apsp_bench_gpu_sparse_bench compare --families grid --sizes 65536 --methods sssp,sssp-frontier
//   apsp_bench_gpu_sparse_bench compare --families rmat --sizes 16384 --methods sssp,sssp-f32,sssp-f64
//   apsp_bench_gpu_sparse_bench stream --family grid --n 100000 --out /scratch/d.bin --row-budget-gib 8 --csv sparse.csv
//   apsp_bench_gpu_sparse_bench split --graph rmat-65536.bin --consumers 2,4 --csv split.csv
//
// sssp-f32 / sssp-f64: sssp on the same graph with real weights w * 1.37 in
// float32 / float64, rows checked with the CPU verifier's real tolerance.
// compare: families rmat (m = 8n), uniform (m = 8n), grid, geometric (k = 4),
// dense-half (each ordered pair with probability 1/2); --sizes for the first
// two and dense-half (dense-half capped at --dense-max-n), --grid-sizes,
// --geometric-sizes. Columns: family, n, m, method, ms (median compute),
// speedup over fw int32 at that size, estimated (1: not run), note.
// stream: apsp::solve with sssp into a file sink (--out) and a null sink;
// wall time and its split (StageTimes) per run.
// split: the row split's one-GPU proxy (split_proxy below): sssp's compute
// in one go against the chunks of a split over C consumers, serial and
// pipelined; the speedup column is one go's compute over the row's.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/registry.hpp"
#include "apsp/row_split.hpp"
#include "apsp/sinks.hpp"
#include "apsp/verify.hpp"
#include "solve/auto_choice.hpp"
#include "core/verify_row.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/instance.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/sparse_solver.hpp"
#include "cuda/testing.hpp"
#include "families.hpp"

namespace {

using apsp::cuda::Event;
using apsp::cuda::Stream;

// fw's measured rates at n = 32768 on the H100 (docs/results/2026-11-22-h100).
constexpr double kFwInt32Rate = 14.8e12;
constexpr double kFwInt16Rate = 28.1e12;
// Rows checked per configuration (evenly spaced sources).
constexpr std::int64_t kCheckedRows = 8;
// Rows the sssp benchmark computes per launch into its rotating buffer: the
// compute is timed without holding the whole matrix.
constexpr std::int64_t kSsspBufferRows = 8192;

struct Row {
  std::string family;
  std::int64_t n = 0, m = 0;
  std::string method;
  double ms = 0;
  double speedup = 0;
  bool estimated = false;
  std::string note;
};

using apsp::bench::family_graph;

const apsp::cuda::GpuAlgorithm& gpu_algorithm(const std::string& name) {
  for (const apsp::cuda::GpuAlgorithm& a : apsp::cuda::gpu_algorithm_table())
    if (name == a.info.name) return a;
  throw apsp::UsageError("no GPU algorithm " + name, "methods");
}

// The GPU's production dense solver (the registry's production Work::cubic entry: fw).
const apsp::cuda::GpuAlgorithm& dense_solver() {
  const apsp::AlgorithmInfo* info = apsp::find_production(apsp::Backend::cuda, apsp::Work::cubic);
  if (info == nullptr) throw apsp::Error("the registry has no production dense GPU solver");
  return gpu_algorithm(info->name);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Sources whose rows are checked.
std::vector<std::int64_t> checked_sources(std::int64_t n) {
  std::vector<std::int64_t> s;
  for (std::int64_t k = 0; k < kCheckedRows; ++k) s.push_back(n * k / kCheckedRows);
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

// The CPU verifier's check of one row (real weights: within its rounding tolerance).
template <class W>
void check_row(const apsp::BasicGraph<W>& g, const std::vector<W>& row, std::int64_t source, const std::string& what) {
  std::string violation;
  if constexpr (std::is_same<W, apsp::weight_t>::value) {
    violation = apsp::first_violation_in_row(g, row.data(), source);
  } else {
    const apsp::VerifyReport report = apsp::BasicRowVerifier<W>(g).check(source, 1, row.data());
    if (!report.ok) violation = report.first_violation;
  }
  if (!violation.empty()) throw apsp::Error(what + ": row " + std::to_string(source) + ": " + violation);
}

// The family graph with real weights w * 1.37 in W (fractions that round,
// the same shortest paths): the sssp-f32 and sssp-f64 rows.
template <class W>
apsp::BasicGraph<W> with_real_weights(const apsp::Graph& g) {
  apsp::BasicGraph<W> real;
  real.n = g.n;
  real.edges.reserve(g.edges.size());
  for (const apsp::Edge& e : g.edges) real.edges.push_back({e.src, e.dst, static_cast<W>(1.37 * e.w)});
  return real;
}

// fw on a resident instance in `precision`; median seconds of the kernel.
double time_fw(const apsp::Graph& g, apsp::Precision precision, int warmup, int reps, std::string& used) {
  Stream stream;
  const apsp::cuda::GpuAlgorithm& fw = dense_solver();
  apsp::cuda::DeviceInstance instance(g, fw, false, stream.get(), /*keep_pristine=*/true);
  std::vector<double> seconds;
  for (int rep = 0; rep < warmup + reps; ++rep) {
    instance.restore();
    apsp::cuda::GpuProblem p = instance.problem();
    p.precision = precision;
    p.distance_estimate = precision == apsp::Precision::int16 ? 0 : std::int64_t{1} << 40;
    p.int16_result = nullptr;  // an int16 result widens into dist, so the check reads int32
    Event begin, end;
    begin.record(stream.get());
    fw.run(p);
    end.record(stream.get());
    const double s = apsp::cuda::elapsed_ms(begin, end) / 1e3;
    used = apsp::to_string(p.used_precision);
    if (rep >= warmup) seconds.push_back(s);
    if (rep == 0)
      for (const std::int64_t source : checked_sources(g.n)) {
        std::vector<apsp::dist_t> row(static_cast<std::size_t>(g.n));
        APSP_CUDA_CHECK(cudaMemcpy(row.data(), p.dist + source * p.n_pad, row.size() * sizeof(apsp::dist_t),
                                   cudaMemcpyDeviceToHost));
        check_row(g, row, source, "fw " + used);
      }
  }
  return median(seconds);
}

// The sssp ladder step `variant` with near-far delta scale `scale` on a
// graph of weight type W (int32, float, double): all n rows into a rotating
// buffer of kSsspBufferRows rows; median seconds.
template <class W>
double time_sssp(const apsp::BasicGraph<W>& g, apsp::cuda::SparseVariant variant, double scale, int warmup, int reps,
                 std::string& note) {
  Stream stream;
  std::vector<apsp::BasicEdge<W>> edges;
  std::vector<double> potentials;  // real weights: undone by the kernel
  W max_weight = 0;
  if constexpr (std::is_same<W, apsp::weight_t>::value) {
    apsp::cuda::Reweighted rw = apsp::cuda::reweight(g);
    edges = std::move(rw.edges);
    max_weight = rw.max_weight;
  } else {
    apsp::cuda::RealReweighted<W> rw = apsp::cuda::reweight_real(g);
    edges = std::move(rw.edges);
    potentials = std::move(rw.potential);
    max_weight = rw.max_weight;
  }
  apsp::cuda::BasicSparseInstance<W> instance(edges, g.n, max_weight, variant, false,
                                              apsp::cuda::near_far_delta(edges, scale), stream.get(), potentials);
  const std::int64_t buffer_rows = std::min(g.n, kSsspBufferRows);
  apsp::cuda::DeviceBuffer<W> rows(static_cast<std::size_t>(buffer_rows * g.n));
  std::vector<double> seconds;
  for (int rep = 0; rep < warmup + reps; ++rep) {
    Event begin, end;
    begin.record(stream.get());
    for (std::int64_t first = 0; first < g.n; first += buffer_rows)
      instance.run(first, std::min(buffer_rows, g.n - first), rows.get(), nullptr, g.n);
    end.record(stream.get());
    const double s = apsp::cuda::elapsed_ms(begin, end) / 1e3;
    if (rep >= warmup) seconds.push_back(s);
    if (rep == 0) {
      if (instance.range_escaped()) throw apsp::Error("sssp: distances beyond int32 on a benchmark graph");
      for (const std::int64_t source : checked_sources(g.n)) {
        instance.run(source, 1, rows.get(), nullptr, g.n);
        // The instance's stream does not synchronize with the legacy default
        // stream (cudaStreamNonBlocking): wait for the row before reading it.
        APSP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        std::vector<W> row(static_cast<std::size_t>(g.n));
        APSP_CUDA_CHECK(cudaMemcpy(row.data(), rows.get(), row.size() * sizeof(W), cudaMemcpyDeviceToHost));
        check_row(g, row, source,
                  std::string("sssp ") + apsp::cuda::to_string(variant) + " " +
                      apsp::to_string(apsp::weight_type_of<W>));
      }
    }
  }
  note = std::string(instance.shared_row() ? "row in shared memory" : "row in global memory") + ", " +
         std::to_string(instance.blocks()) + " blocks, delta " + std::to_string(instance.delta()) +
         (potentials.empty() ? "" : ", reweighted");
  return median(seconds);
}

void print_rows(const std::vector<Row>& rows, const std::string& csv) {
  std::printf("%-11s %8s %10s %-22s %12s %9s %4s  %s\n", "family", "n", "m", "method", "ms", "speedup", "est", "note");
  for (const Row& r : rows)
    std::printf("%-11s %8lld %10lld %-22s %12.3f %9.2f %4d  %s\n", r.family.c_str(), static_cast<long long>(r.n),
                static_cast<long long>(r.m), r.method.c_str(), r.ms, r.speedup, r.estimated ? 1 : 0, r.note.c_str());
  if (csv.empty()) return;
  std::ifstream exists(csv);
  const bool header = !exists.good() || exists.peek() == std::ifstream::traits_type::eof();
  std::ofstream out(csv, std::ios::app);
  if (!out) throw apsp::InputError("cannot write " + csv);
  if (header) out << "mode,family,n,m,method,ms,speedup_vs_fw_int32,estimated,note\n";
  for (const Row& r : rows)
    out << "sparse," << r.family << ',' << r.n << ',' << r.m << ',' << r.method << ',' << r.ms << ',' << r.speedup
        << ',' << (r.estimated ? 1 : 0) << ",\"" << r.note << "\"\n";
}

// The sparse ladder: the registry's GPU entries with a SparseVariant, in
// registry order (a new step is one registry line and appears here).
std::vector<const apsp::cuda::GpuAlgorithm*> sparse_ladder() {
  std::vector<const apsp::cuda::GpuAlgorithm*> ladder;
  for (const apsp::cuda::GpuAlgorithm& a : apsp::cuda::gpu_algorithm_table())
    if (a.sparse_variant >= 0) ladder.push_back(&a);
  return ladder;
}

// The ladder's production step (what "sssp" runs).
const apsp::cuda::GpuAlgorithm& production_step() {
  for (const apsp::cuda::GpuAlgorithm* a : sparse_ladder())
    if (a->info.role == apsp::Role::production) return *a;
  throw apsp::Error("the registry has no production step of the sparse ladder");
}

apsp::cuda::SparseVariant production_variant() {
  return static_cast<apsp::cuda::SparseVariant>(production_step().sparse_variant);
}

// The production step's runs on real weights, one method per real weight
// type of its registry entry: "sssp-f32", "sssp-f64".
std::vector<std::pair<std::string, apsp::WeightType>> real_weight_methods() {
  std::vector<std::pair<std::string, apsp::WeightType>> methods;
  for (const apsp::WeightType type : apsp::weight_types(production_step().info))
    if (type != apsp::WeightType::int32)
      methods.emplace_back(
          std::string(production_step().info.name) + (type == apsp::WeightType::float32 ? "-f32" : "-f64"), type);
  return methods;
}

// fw in int32 and int16, every step of the sparse ladder, and auto.

std::vector<std::string> default_methods() {
  std::vector<std::string> methods = {"fw-int32", "fw-int16"};
  for (const apsp::cuda::GpuAlgorithm* a : sparse_ladder()) methods.emplace_back(a->info.name);
  methods.emplace_back("auto");
  return methods;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

struct CompareArgs {
  std::vector<std::string> families = {"rmat", "uniform", "grid", "geometric", "dense-half"};
  std::vector<std::int64_t> sizes = {4096, 16384, 32768};
  std::vector<std::int64_t> grid_sizes = {4096, 16384, 65536};
  std::vector<std::int64_t> geometric_sizes = {16384, 126146};
  std::vector<std::string> methods = default_methods();
  std::vector<double> delta_scales = {apsp::cuda::kNearFarDeltaScale};
  std::vector<std::int64_t> max_blocks = {0};  // 0: as many blocks as stay resident
  std::int64_t fw_max_n = 32768;
  std::int64_t dense_max_n = 16384;
  double sssp_max_seconds = 60;  // sssp runs only where the auto model estimates less
  int warmup = 1, reps = 3;
  std::uint64_t seed = 1;
};

std::vector<Row> compare(const CompareArgs& a) {
  std::vector<Row> rows;
  auto wants = [&](const std::string& m) {
    return std::find(a.methods.begin(), a.methods.end(), m) != a.methods.end();
  };
  for (const std::string& family : a.families) {
    const std::vector<std::int64_t>& sizes = family == "grid"        ? a.grid_sizes
                                             : family == "geometric" ? a.geometric_sizes
                                                                     : a.sizes;
    for (const std::int64_t n : sizes) {
      if (family == "dense-half" && n > a.dense_max_n) continue;
      const apsp::Graph g = family_graph(family, n, a.seed);
      const auto m = static_cast<std::int64_t>(g.edges.size());
      const double cube = static_cast<double>(n) * n * n;
      std::map<std::string, double> ms;  // measured or estimated, by method
      std::vector<Row> here;
      auto add = [&](const std::string& method, double seconds, bool estimated, const std::string& note) {
        ms[method] = seconds * 1e3;
        here.push_back(Row{family, n, m, method, seconds * 1e3, 0, estimated, note});
      };
      const bool run_fw = n <= a.fw_max_n;
      // fw int32 is every row's reference, so it is always there (estimated when not run).
      if (run_fw) {
        std::string used;
        add("fw-int32", time_fw(g, apsp::Precision::int32, a.warmup, a.reps, used), false, used);
      } else {
        add("fw-int32", cube / kFwInt32Rate, true, "estimated as n^3 / 14.8e12 s");
      }
      if (wants("fw-int16")) {
        if (run_fw) {
          std::string used;
          const double s = time_fw(g, apsp::Precision::int16, a.warmup, a.reps, used);
          add("fw-int16", s, false, used == "int16" ? "int16" : "int16 certificate failed: ran " + used);
        } else {
          add("fw-int16", cube / kFwInt16Rate, true, "estimated as n^3 / 28.1e12 s (if the distances fit int16)");
        }
      }
      const apsp::choice::GpuChoice model = apsp::choice::choose_gpu_algorithm(apsp::core::probe_graph(g), {});
      for (const apsp::cuda::GpuAlgorithm* step : sparse_ladder()) {
        const std::string name = step->info.name;
        const auto variant = static_cast<apsp::cuda::SparseVariant>(step->sparse_variant);
        // The production step is the one the sweeps below vary.
        const bool production = step->info.role == apsp::Role::production;
        if (!wants(name)) continue;
        if (model.sssp_seconds > a.sssp_max_seconds) {
          // Dense graphs: n * m relaxations would take minutes to hours.
          add(name, model.sssp_seconds, true, "not run: the auto model's estimate (above --sssp-max-seconds)");
          continue;
        }
        // The sweep is of the production sssp (v3); the other steps run at the default scale.
        const std::vector<double> scales = production ? a.delta_scales
                                                      : std::vector<double>{apsp::cuda::kNearFarDeltaScale};
        const std::vector<std::int64_t> caps = production ? a.max_blocks : std::vector<std::int64_t>{0};
        for (const double scale : scales)
          for (const std::int64_t cap : caps) {
            std::string note;
            apsp::cuda::testing::hooks.sparse_max_blocks = cap;
            const double s = time_sssp(g, variant, scale, a.warmup, a.reps, note);
            apsp::cuda::testing::hooks.sparse_max_blocks = 0;
            const bool sweep = production && a.delta_scales.size() > 1;
            std::string method = sweep ? name + "@" + std::to_string(scale).substr(0, 5) : name;
            if (cap > 0) method += "#" + std::to_string(cap);
            add(method, s, false, note);
            // The default scale and block count are what "sssp" (and auto) runs.
            if (sweep && cap == 0 && scale == apsp::cuda::kNearFarDeltaScale) ms[name] = s * 1e3;
          }
      }
      // The production sssp (v3) on the same graph with real weights w * 1.37,
      // in float32 and float64 (not in the default methods: --methods sssp,sssp-f32,sssp-f64).
      for (const auto& [name, type] : real_weight_methods()) {
        if (!wants(name)) continue;
        if (model.sssp_seconds > a.sssp_max_seconds) {
          add(name, model.sssp_seconds, true, "not run: the auto model's int32 estimate (above --sssp-max-seconds)");
          continue;
        }
        std::string note;
        const double seconds = type == apsp::WeightType::float32
                                   ? time_sssp(with_real_weights<float>(g), production_variant(),
                                               apsp::cuda::kNearFarDeltaScale, a.warmup, a.reps, note)
                                   : time_sssp(with_real_weights<double>(g), production_variant(),
                                               apsp::cuda::kNearFarDeltaScale, a.warmup, a.reps, note);
        add(name, seconds, false, note);
      }
      if (wants("auto")) {
        const auto start = std::chrono::steady_clock::now();
        const apsp::choice::GpuChoice choice =
            apsp::choice::choose_gpu_algorithm(apsp::core::probe_graph(g), {});  // timed again
        const double probe_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // fw under auto is fw with --precision auto: int16 when it certifies.
        const std::string ran = choice.algorithm == dense_solver().info.name
                                    ? (ms.count("fw-int16") ? "fw-int16" : "fw-int32")
                                    : choice.algorithm;
        if (ms.count(ran)) {
          here.push_back(
              Row{family, n, m, "auto", ms[ran], 0, ran.rfind("fw", 0) == 0 && !run_fw,
                  "ran " + ran + " (host probe " + std::to_string(probe_s * 1e3).substr(0, 6) + " ms); " + choice.why});
        }
      }
      for (Row& r : here) r.speedup = ms["fw-int32"] / r.ms;
      print_rows(here, "");
      rows.insert(rows.end(), here.begin(), here.end());
    }
  }
  return rows;
}

struct StreamArgs {
  std::string family = "grid";
  std::int64_t n = 100000;
  std::string out;            // empty: the null sink only
  double row_budget_gib = 0;  // > 0: device memory for result rows, so they stream in chunks
  std::uint64_t seed = 1;
};

std::vector<Row> stream(const StreamArgs& a) {
  const apsp::Graph g = family_graph(a.family, a.n, a.seed);
  apsp::cuda::testing::hooks.sparse_row_budget = static_cast<std::int64_t>(a.row_budget_gib * 1073741824.0);
  std::vector<Row> rows;
  auto run = [&](apsp::Sink& sink, const std::string& method) {
    apsp::SolveOptions o;
    o.backend = apsp::Backend::cuda;
    o.algorithm = "sssp";
    const auto start = std::chrono::steady_clock::now();
    const apsp::SolveSummary s = apsp::solve(g, o, sink);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string split;
    for (const apsp::Stage& stage : s.times.stages)
      split += (split.empty() ? "" : "; ") + stage.name + " " + std::to_string(stage.seconds).substr(0, 7) + " s";
    rows.push_back(Row{a.family, a.n, static_cast<std::int64_t>(g.edges.size()), method, wall * 1e3, 0, false,
                       "wall " + std::to_string(wall).substr(0, 7) + " s: " + split});
  };
  apsp::NullSink nothing;
  run(nothing, "stream-null");
  if (!a.out.empty()) {
    apsp::FileSink file(apsp::MatrixFileTarget{a.out});
    run(file, "stream-file");
  }
  return rows;
}

// The one-GPU proxy of the row split (issue 22): sssp through apsp::solve
// into a null sink, once in one go (every row this solve's) and then with
// the chunks of a split over C consumers (kGpuChunkPolicy, as GPU ranks cut
// it), all drawn by this one process, serially (each chunk waited for,
// certified and downloaded before the next: the former way) and pipelined
// (the next chunk queued beside the one computing). The split's chunks come
// one after another on one device, so compute (the solver's compute stage)
// chunked against in one go is what C ranks lose to chunking: if pipelined
// is about one go, a rank's compute scales as 1/C.
struct SplitArgs {
  std::string graph;  // a graph file (apsp gen ...); empty: --family / --n
  std::string family = "rmat";
  std::int64_t n = 65536;
  std::vector<std::int64_t> consumers{2, 4};
  int reps = 3;
  std::uint64_t seed = 1;
};

std::vector<Row> split_proxy(const SplitArgs& a) {
  const apsp::Graph g = a.graph.empty() ? family_graph(a.family, a.n, a.seed)
                                        : apsp::normalize(apsp::io::read_graph(a.graph));
  const std::string family = a.graph.empty() ? a.family : a.graph.substr(a.graph.find_last_of('/') + 1);
  std::vector<Row> rows;
  double one_go_s = 0;
  auto run = [&](const std::string& method, std::int64_t consumers, bool serial) {
    std::vector<double> compute, d2h, total;
    std::int64_t chunks = 0, pieces = 0;
    for (int rep = 0; rep < a.reps; ++rep) {
      apsp::SolveOptions o;
      o.backend = apsp::Backend::cuda;
      o.algorithm = "sssp";
      apsp::AtomicCounter counter;
      std::optional<apsp::RowSplit> split;
      if (consumers > 0) {
        split.emplace(0, g.n, consumers, std::min<std::int64_t>(std::max<std::int64_t>(g.n, 1), apsp::kGpuMinChunk),
                      std::max<std::int64_t>(g.n, 1), counter, apsp::kGpuChunkPolicy);
        chunks = split->chunks();
        o.row_split = &*split;
        o.row_split_per_chunk_download = true;  // the distributed default
        o.row_split_serial = serial;
      }
      const std::int64_t pieces_before = apsp::cuda::testing::hooks.row_split_pipelined_pieces;
      apsp::NullSink nothing;
      const auto start = std::chrono::steady_clock::now();
      const apsp::SolveSummary s = apsp::solve(g, o, nothing);
      total.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      pieces = apsp::cuda::testing::hooks.row_split_pipelined_pieces - pieces_before;
      double c = 0, d = 0;
      for (const apsp::Stage& stage : s.times.stages) {
        if (stage.name == "compute") c += stage.seconds;
        if (stage.name.find("device-to-host") != std::string::npos) d += stage.seconds;
      }
      compute.push_back(c);
      d2h.push_back(d);
    }
    const double c = median(compute);
    if (consumers == 0) one_go_s = c;
    rows.push_back(
        Row{family, g.n, static_cast<std::int64_t>(g.edges.size()), method, c * 1e3, c > 0 ? one_go_s / c : 0, false,
            "one go / this compute in the speedup column; " + std::to_string(chunks) + " chunks, " +
                std::to_string(pieces) + " pipelined pieces; device-to-host " +
                std::to_string(median(d2h)).substr(0, 6) + " s; solve " + std::to_string(median(total)).substr(0, 6) +
                " s (medians of " + std::to_string(a.reps) + ")"});
    print_rows({rows.back()}, "");
  };
  run("one-go", 0, false);
  for (const std::int64_t c : a.consumers) {
    run("split" + std::to_string(c) + "-serial", c, true);
    run("split" + std::to_string(c) + "-pipelined", c, false);
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sparse graphs: fw against the batched SSSP ladder and auto"};
  app.require_subcommand(1);
  CompareArgs c;
  StreamArgs s;
  std::string csv;
  CLI::App* cmp = app.add_subcommand("compare", "methods x families x sizes, graph resident");
  cmp->add_option("--families", c.families)->delimiter(',');
  cmp->add_option("--sizes", c.sizes, "n for rmat, uniform, dense-half")->delimiter(',');
  cmp->add_option("--grid-sizes", c.grid_sizes)->delimiter(',');
  cmp->add_option("--geometric-sizes", c.geometric_sizes)->delimiter(',');
  std::vector<std::string> real_names;
  for (const auto& method : real_weight_methods()) real_names.push_back(method.first);
  cmp->add_option("--methods", c.methods, joined(default_methods()) + "; " + joined(real_names) + " (real weights)")
      ->delimiter(',');
  cmp->add_option("--delta-scales", c.delta_scales, "near-far delta = scale x mean weight; a sweep")->delimiter(',');
  cmp->add_option("--max-blocks", c.max_blocks, "sssp's resident blocks at most (0: all that fit); a sweep")
      ->delimiter(',');
  cmp->add_option("--fw-max-n", c.fw_max_n, "above this n fw is estimated, not run");
  cmp->add_option("--dense-max-n", c.dense_max_n, "largest dense-half graph");
  cmp->add_option("--sssp-max-seconds", c.sssp_max_seconds,
                  "sssp and sssp-frontier run only where the auto model estimates fewer seconds (else estimated)");
  cmp->add_option("--warmup", c.warmup);
  cmp->add_option("--reps", c.reps);
  cmp->add_option("--seed", c.seed);
  cmp->add_option("--csv", csv, "append rows to this CSV file");
  CLI::App* str = app.add_subcommand("stream", "sssp through apsp::solve into a null sink and a file sink");
  str->add_option("--family", s.family);
  str->add_option("--n", s.n);
  str->add_option("--out", s.out, "the file sink's path (n^2 x 4 bytes); empty: null sink only");
  str->add_option("--row-budget-gib", s.row_budget_gib,
                  "device memory for result rows (default: all that is free; the rows then stream only when "
                  "the matrix does not fit)");
  str->add_option("--seed", s.seed);
  str->add_option("--csv", csv, "append rows to this CSV file");
  SplitArgs sp;
  CLI::App* spl = app.add_subcommand("split", "the row split's chunks on one GPU: serial and pipelined against one go");
  spl->add_option("--graph", sp.graph, "a graph file (apsp gen ...); default: --family and --n");
  spl->add_option("--family", sp.family);
  spl->add_option("--n", sp.n);
  spl->add_option("--consumers", sp.consumers, "the split's consumers (ranks) C; a sweep")->delimiter(',');
  spl->add_option("--reps", sp.reps);
  spl->add_option("--seed", sp.seed);
  spl->add_option("--csv", csv, "append rows to this CSV file");
  CLI11_PARSE(app, argc, argv);
  try {
    if (apsp::cuda::devices().empty()) throw apsp::ResourceError("no CUDA device found");
    const auto dev = apsp::cuda::devices().front();
    std::printf("device: %s, %d SMs, %.1f GiB\n", dev.name.c_str(), dev.multiprocessors,
                dev.total_memory / 1073741824.0);
    const std::vector<Row> rows = cmp->parsed() ? compare(c) : spl->parsed() ? split_proxy(sp) : stream(s);
    print_rows(rows, csv);
  } catch (const apsp::Error& e) {
    std::fprintf(stderr, "apsp_bench_gpu_sparse_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
