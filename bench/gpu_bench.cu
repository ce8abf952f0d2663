// GPU benchmark: the seeds' tables and throughput against a peak measured in
// the same run. Times with CUDA events around device-resident runs (warm-up
// first, medians of repeats); end-to-end rows go through apsp::solve. Every
// device-resident configuration checks its result once, untimed: the range
// certificate, then apsp::verify (and verify_predecessors). Algorithms and
// their traits come from the registry; internal headers through the
// apsp::internal CMake target.
//
//   apsp_bench_gpu_bench peak
//   apsp_bench_gpu_bench throughput --sizes 8192,16384,32768 --algos fw,blocked-64 [--precision int16]
//   apsp_bench_gpu_bench seeds --sizes 1200,2400,4800
//   apsp_bench_gpu_bench end-to-end --sizes 32768
// Every mode takes --csv FILE to append its rows.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/registry.hpp"
#include "core/algorithm_checks.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/certificate.hpp"
#include "core/cuda_check.hpp"
#include "cuda/instance.hpp"
#include "core/cuda_memory.hpp"
#include "gpu_peak.cuh"

namespace {

using apsp::cuda::DeviceInstance;
using apsp::cuda::Event;
using apsp::cuda::GpuAlgorithm;
using apsp::cuda::Stream;

struct Peak {
  double int32 = 0;              // updates/s
  double packed16_measured = 0;  // updates/s (two per instruction)
  // The int16 reference for % of peak: the larger of the measured packed rate
  // and twice the int32 rate (the instruction-issue bound). The packed
  // microbenchmark runs below that bound on the H100 (docs/perf.md), and a
  // reference the solver can beat would flatter it.
  double packed16() const { return std::max(packed16_measured, 2 * int32); }
};

template <bool kPacked>
double measure_peak_kind() {
  constexpr int kChains = 16, kThreads = 256;
  const int blocks = apsp::bench::peak_blocks();
  const int steps = 1 << 16;
  apsp::cuda::DeviceBuffer<int> sink(kThreads);
  return apsp::bench::median_peak_rate(
      [&](cudaStream_t stream, int rep) {
        apsp::bench::peak_chains<kChains, kPacked><<<blocks, kThreads, 0, stream>>>(rep + 3, steps, sink.get());
      },
      double(blocks) * kThreads * kChains * steps * (kPacked ? 2 : 1));
}

Peak measure_peak() { return Peak{measure_peak_kind<false>(), measure_peak_kind<true>()}; }

const GpuAlgorithm& algorithm(const std::string& name) {
  for (const GpuAlgorithm& a : apsp::cuda::gpu_algorithm_table())
    if (name == a.info.name) {
      if (a.sparse_variant >= 0) throw apsp::UsageError(name + " is timed by apsp_bench_gpu_sparse_bench", "algos");
      if (a.out_of_core) throw apsp::UsageError(name + " is timed by apsp_bench_gpu_ooc_bench", "algos");
      return a;
    }
  throw apsp::UsageError("unknown GPU algorithm " + name, "algos");
}

apsp::Graph bench_graph(std::int64_t n, std::uint64_t seed) {
  apsp::GenerateOptions o;
  o.kind = apsp::GraphKind::rmat;
  o.n = n;
  o.m = 8 * n;
  o.w_lo = 1;
  o.w_hi = 100;
  o.seed = seed;
  return apsp::normalize(apsp::generate(o));
}

struct Timing {
  double median_s = 0;
  double min_s = 0;
  apsp::Precision precision = apsp::Precision::int32;
};

// The top-left n x n block of an n_pad x n_pad device matrix, on the host.
template <typename T>
std::vector<T> download(const T* device, std::int64_t n, std::int64_t n_pad) {
  std::vector<T> host(static_cast<std::size_t>(n * n));
  APSP_CUDA_CHECK(
      cudaMemcpy2D(host.data(), sizeof(T) * n, device, sizeof(T) * n_pad, sizeof(T) * n, n, cudaMemcpyDeviceToHost));
  return host;
}

// Checks the result a run left on the device: the range certificate (as the
// dispatcher runs it), then the O(n m) certificate of apsp::verify on the
// host, and the predecessors. Throws apsp::Error naming the configuration.
void check_result(const apsp::Graph& g, DeviceInstance& instance, const apsp::cuda::GpuProblem& p,
                  const std::string& configuration) {
  if (!instance.certificate().holds(apsp::cuda::RangeView<apsp::dist_t>{p.dist, p.n, p.n_pad, 0, apsp::kInf}))
    throw apsp::Error(configuration + ": the range certificate fails");
  const std::vector<apsp::dist_t> dist = download(p.dist, p.n, p.n_pad);
  apsp::VerifyReport report = apsp::verify(g, dist);
  if (report.ok && p.pred) report = apsp::verify_predecessors(g, dist, download(p.pred, p.n, p.n_pad));
  if (!report.ok) throw apsp::Error(configuration + ": verify fails: " + report.first_violation);
}

Timing time_device(const apsp::Graph& g, const GpuAlgorithm& algo, const apsp::SolveOptions& opts, int warmup,
                   int reps) {
  Stream stream;
  DeviceInstance instance(g, algo, opts.predecessors, stream.get(), /*keep_pristine=*/true);
  std::vector<double> seconds;
  Timing t;
  for (int rep = 0; rep < warmup + reps; ++rep) {
    instance.restore();
    apsp::cuda::GpuProblem p = instance.problem();
    p.block = opts.block;
    p.precision = opts.precision;
    p.distance_estimate = opts.precision == apsp::Precision::int16 ? 0 : std::int64_t{1} << 40;
    Event begin, end;
    begin.record(stream.get());
    algo.run(p);
    end.record(stream.get());
    const double s = apsp::cuda::elapsed_ms(begin, end) / 1e3;
    t.precision = p.used_precision;
    if (rep >= warmup) seconds.push_back(s);
    if (rep == 0)
      check_result(g, instance, p,
                   std::string(algo.info.name) + " at n = " + std::to_string(g.n) + " in " +
                       apsp::to_string(p.used_precision) + (opts.predecessors ? " with predecessors" : ""));
  }
  std::sort(seconds.begin(), seconds.end());
  t.median_s = seconds[seconds.size() / 2];
  t.min_s = seconds.front();
  return t;
}

double cube(std::int64_t n) { return double(n) * double(n) * double(n); }

// Work in "updates" for the rate column: n^3 for every algorithm, so the rows
// compare as solvers; the registry's work class notes the ones that do other
// work (min-plus squaring log2(n) times more, per-source searches O(n m)).
struct Row {
  std::string mode, algo, note;
  std::int64_t n = 0;
  std::string precision;
  double seconds = 0;
  double rate = 0;
  double pct_peak = 0;
  double speedup = 0;
};

void print_rows(const std::vector<Row>& rows, const std::string& csv) {
  std::printf("%-11s %-17s %7s %6s %12s %12s %8s %9s  %s\n", "mode", "algorithm", "n", "prec", "time_ms", "T_upd/s",
              "%peak", "speedup", "note");
  for (const Row& r : rows)
    std::printf("%-11s %-17s %7lld %6s %12.3f %12.4f %8.1f %9.1f  %s\n", r.mode.c_str(), r.algo.c_str(),
                static_cast<long long>(r.n), r.precision.c_str(), r.seconds * 1e3, r.rate / 1e12, r.pct_peak, r.speedup,
                r.note.c_str());
  if (csv.empty()) return;
  std::ofstream out(csv, std::ios::app);
  if (!out) throw apsp::InputError("cannot write " + csv);
  out.seekp(0, std::ios::end);
  if (out.tellp() == 0) out << "mode,algorithm,n,precision,seconds,updates_per_s,pct_peak,speedup,note\n";
  for (const Row& r : rows)
    out << r.mode << ',' << r.algo << ',' << r.n << ',' << r.precision << ',' << r.seconds << ',' << r.rate << ','
        << r.pct_peak << ',' << r.speedup << ",\"" << r.note << "\"\n";  // notes hold commas
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"apsp GPU benchmark"};
  app.require_subcommand(1);
  std::string csv;
  std::vector<std::int64_t> sizes;
  std::vector<std::string> algos;
  std::string precision = "auto";
  int warmup = 1, reps = 5;
  double cap_seconds = 60;
  std::uint64_t seed = 1;
  bool predecessors = false;
  auto common = [&](CLI::App* sub) {
    sub->add_flag("--predecessors", predecessors, "also compute predecessors");
    sub->add_option("--csv", csv, "append rows to this CSV file");
    sub->add_option("--sizes", sizes, "vertex counts")->delimiter(',');
    sub->add_option("--algos", algos, "GPU algorithms (default: all)")->delimiter(',');
    sub->add_option("--precision", precision, "auto|int32|int16");
    sub->add_option("--warmup", warmup, "untimed runs first");
    sub->add_option("--reps", reps, "timed runs (median reported)");
    sub->add_option("--cap", cap_seconds, "skip runs predicted to take longer (seconds), reporting the estimate");
    sub->add_option("--seed", seed, "graph seed");
  };
  CLI::App* peak_cmd = app.add_subcommand("peak", "measure the min-plus peak");
  CLI::App* throughput_cmd = app.add_subcommand("throughput", "updates/s and % of peak per algorithm and size");
  CLI::App* seeds_cmd = app.add_subcommand("seeds", "the seeds' time and speedup tables, and the naive block sweep");
  CLI::App* e2e_cmd = app.add_subcommand("end-to-end", "apsp::solve on the GPU with its time split");
  CLI::App* crossover_cmd = app.add_subcommand(
      "crossover", "apsp::solve end to end on the CPU and on the GPU, to place the small-graph threshold");
  for (CLI::App* sub : {peak_cmd, throughput_cmd, seeds_cmd, e2e_cmd, crossover_cmd}) common(sub);
  CLI11_PARSE(app, argc, argv);

  try {
    if (apsp::cuda::devices().empty()) throw apsp::ResourceError("no CUDA device found");
    const auto dev = apsp::cuda::devices().front();
    std::printf("device: %s, %d SMs, %.1f GiB\n", dev.name.c_str(), dev.multiprocessors,
                dev.total_memory / 1073741824.0);
    const Peak peak = measure_peak();
    std::printf("peak: int32 add-min %.2f T/s, packed int16x2 %.2f T/s measured (reference for int16: %.2f T/s)\n",
                peak.int32 / 1e12, peak.packed16_measured / 1e12, peak.packed16() / 1e12);
    std::vector<Row> rows;
    rows.push_back(Row{"peak", "viaddmin_s32", "measured", 0, "int32", 0, peak.int32, 100, 0});
    rows.push_back(Row{"peak", "viaddmin_s16x2", "measured", 0, "int16", 0, peak.packed16_measured,
                       100 * peak.packed16_measured / peak.packed16(), 0});
    if (algos.empty())
      for (const GpuAlgorithm& a : apsp::cuda::gpu_algorithm_table())
        // The batched SSSP ladder and fw-ooc have their own benchmarks
        // (gpu_sparse_bench.cu, gpu_ooc_bench.cu).
        if ((!predecessors || a.info.takes_predecessors) && a.sparse_variant < 0 && !a.out_of_core)
          algos.emplace_back(a.info.name);
    apsp::SolveOptions opts;
    opts.precision = apsp::parse_precision(precision);
    opts.predecessors = predecessors;

    auto rate_row = [&](const std::string& mode, const std::string& name, std::int64_t n, const Timing& t) {
      std::string note = predecessors ? "with predecessors" : "";
      // The rate column is n^3 / t for every row; these do other work.
      const apsp::Work work = algorithm(name).info.work;
      if (work == apsp::Work::per_source) note += std::string(note.empty() ? "" : "; ") + "O(n*m) work, not n^3";
      if (work == apsp::Work::cubic_log) note += std::string(note.empty() ? "" : "; ") + "O(n^3 log n) work";
      Row r{mode, name, note, n, apsp::to_string(t.precision), t.median_s, cube(n) / t.median_s, 0, 0};
      r.pct_peak = 100 * r.rate / (t.precision == apsp::Precision::int16 ? peak.packed16() : peak.int32);
      return r;
    };
    // Measures at a small size first and skips the full size when the
    // estimate exceeds the cap; such rows carry the estimate, marked.
    auto measured = [&](const std::string& mode, const std::string& name, std::int64_t n) {
      const GpuAlgorithm& a = algorithm(name);
      apsp::require_options_honoured(name, apsp::Backend::cuda, opts, apsp::algorithm_registry());
      const std::int64_t probe_n = std::min<std::int64_t>(n, 2048);
      const Timing probe = time_device(bench_graph(probe_n, seed), a, opts, 1, 1);
      const double predicted = probe.median_s * cube(n) / cube(probe_n);
      if (probe_n < n && predicted * (warmup + reps) > cap_seconds) {
        Row r = rate_row(mode, name, probe_n, probe);  // the rate measured at probe_n
        r.n = n;
        r.seconds = predicted;
        r.note += (r.note.empty() ? "" : "; ") + std::string("capped: estimated from n=") + std::to_string(probe_n);
        return r;
      }
      return rate_row(mode, name, n, time_device(bench_graph(n, seed), a, opts, warmup, reps));
    };

    if (throughput_cmd->parsed()) {
      if (sizes.empty()) sizes = {8192, 16384, 32768};
      for (std::int64_t n : sizes)
        for (const std::string& name : algos) rows.push_back(measured("throughput", name, n));
    }
    if (seeds_cmd->parsed()) {
      if (sizes.empty()) sizes = {1200, 2400, 4800};
      // fw-seq on the CPU: measured at the smallest size, extrapolated by n^3.
      const std::int64_t n0 = sizes.front();
      apsp::SolveOptions cpu;
      cpu.backend = apsp::Backend::cpu;
      cpu.algorithm = "fw-seq";
      const auto start = std::chrono::steady_clock::now();
      apsp::solve(bench_graph(n0, seed), cpu);
      const double seq_n0 = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (std::int64_t n : sizes) {
        const double seq = seq_n0 * cube(n) / cube(n0);
        rows.push_back(Row{"seeds", "fw-seq(cpu)",
                           n == n0 ? "measured" : "extrapolated n^3 from n=" + std::to_string(n0), n, "int32", seq,
                           cube(n) / seq, 0, 1});
        for (const std::string& name : algos) {
          Row r = measured("seeds", name, n);
          r.speedup = seq / r.seconds;
          rows.push_back(r);
        }
      }
      for (const char* shape : {"4x4", "8x8", "16x16", "32x32"}) {
        apsp::SolveOptions o = opts;
        o.block.x = o.block.y = std::atoi(shape);
        const std::int64_t n = sizes.back();
        const Timing t = time_device(bench_graph(n, seed), algorithm("naive"), o, warmup, reps);
        Row r = rate_row("block-sweep", std::string("naive ") + shape, n, t);
        rows.push_back(r);
      }
    }
    if (e2e_cmd->parsed()) {
      if (sizes.empty()) sizes = {8192};
      for (std::int64_t n : sizes) {
        const apsp::Graph g = bench_graph(n, seed);
        apsp::SolveOptions o = opts;
        o.backend = apsp::Backend::cuda;
        o.algorithm = "fw";
        apsp::solve(g, o);  // warm-up
        const auto start = std::chrono::steady_clock::now();
        const apsp::SolveResult res = apsp::solve(g, o);
        const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const auto& t = res.times;
        Row r{"end-to-end", "fw", "", n, apsp::to_string(res.precision), total, cube(n) / total, 0, 0};
        char note[160];
        const double compute = t.seconds("compute");
        std::snprintf(note, sizeof note, "h2d %.1f ms, compute %.1f ms (%.2f T/s), d2h %.1f ms",
                      t.seconds("host-to-device") * 1e3, compute * 1e3, cube(n) / compute / 1e12,
                      t.seconds("device-to-host") * 1e3);
        r.note = note;
        rows.push_back(r);
      }
    }
    if (crossover_cmd->parsed()) {
      if (sizes.empty()) sizes = {64, 128, 256, 384, 512, 768, 1024, 1536, 2048};
      // Wall time of apsp::solve (graph in memory, result in host memory),
      // median of reps after a warm-up; the CUDA context already exists.
      auto wall = [&](const apsp::Graph& g, apsp::Backend backend) {
        apsp::SolveOptions o;
        o.backend = backend;
        std::vector<double> seconds;
        std::string algo;
        for (int rep = 0; rep < warmup + reps; ++rep) {
          const auto start = std::chrono::steady_clock::now();
          algo = apsp::solve(g, o).algorithm;
          const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (rep >= warmup) seconds.push_back(s);
        }
        std::sort(seconds.begin(), seconds.end());
        return std::make_pair(seconds[seconds.size() / 2], algo);
      };
      for (std::int64_t n : sizes) {
        for (const double density : {8.0, -1.0}) {  // average degree 8, or dense (half of all pairs)
          apsp::GenerateOptions o;
          o.kind = density > 0 ? apsp::GraphKind::rmat : apsp::GraphKind::dense;
          o.n = n;
          o.m = 8 * n;
          o.density = 0.5;
          o.seed = seed;
          const apsp::Graph g = apsp::normalize(apsp::generate(o));
          const auto [cpu_s, cpu_algo] = wall(g, apsp::Backend::cpu);
          const auto [gpu_s, gpu_algo] = wall(g, apsp::Backend::cuda);
          const std::string kind = density > 0 ? "rmat deg 8" : "dense 50%";
          rows.push_back(Row{"crossover", "cpu " + cpu_algo, kind, n, "int32", cpu_s, cube(n) / cpu_s, 0, 1});
          rows.push_back(
              Row{"crossover", "cuda " + gpu_algo, kind, n, "int32", gpu_s, cube(n) / gpu_s, 0, cpu_s / gpu_s});
        }
      }
    }
    print_rows(rows, csv);
  } catch (const apsp::Error& e) {
    std::fprintf(stderr, "apsp_bench: %s\n", e.what());
    return static_cast<int>(e.exit_code());
  }
  return 0;
}
