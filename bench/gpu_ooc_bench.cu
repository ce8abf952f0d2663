// Benchmark of out-of-core fw (issue 24; cuda/fw_out_of_core.hpp) against
// the in-core production rounds.
//
//   apsp_bench_gpu_ooc_bench compare --n 32768 --width 8192 [--precision int32|int16] [--reps 3]
//       in-core and out-of-core at the same n, the out-of-core one forced to
//       width-wide super-tiles; the results compared bit for bit.
//   apsp_bench_gpu_ooc_bench large --n 150000 [--precision int32|int16] [--in-core-n 65536]
//       out-of-core at an n whose matrix only the host holds (its shape from
//       the measured link and kernel rates and the free device memory), rows
//       of --samples sampled sources (16) checked against Dijkstra on the
//       host, one per thread; the in-core rate measured in the same run at
//       --in-core-n. Every stage prints a line stamped with the seconds since
//       the start, and every super-round one with the rounds' projected total,
//       so a run cut short by its call's time limit still says how far it got.
//   [--csv FILE] appends one row per configuration.
//
// Rates are n^3 / seconds (n the vertex count, padding not counted), so a
// padded shape pays for its padding. In-core times: CUDA events around the
// rounds, after a warm-up run; out-of-core: wall clock around the whole
// out-of-core call (copies included). Medians over --reps. The graph: a
// seeded random digraph with 4n edges, weights 1..1000 (int32) or 1..20
// (int16), and the last n/64 vertices reachable from nowhere else.
#include <CLI/CLI.hpp>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/fw_out_of_core.hpp"
#include "cuda/fw_real.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }
const Clock::time_point kProcessStart = Clock::now();
// The seconds since the process started, for each stage line of `large`.
double stamp() { return seconds_since(kProcessStart); }

constexpr std::int32_t kInf32 = apsp::kInf;
constexpr std::int32_t kInf16 = 16383;  // kernels/common/words.cuh

struct Edges {
  std::int64_t n = 0;
  std::vector<std::int32_t> src, dst, w;
};

Edges random_edges(std::int64_t n, std::int32_t max_weight, std::uint64_t seed) {
  Edges e;
  e.n = n;
  std::mt19937_64 random(seed);
  const std::int64_t closed_from = n - n / 64;
  for (std::int64_t k = 0; k < 4 * n; ++k) {
    const auto u = static_cast<std::int32_t>(random() % static_cast<std::uint64_t>(n));
    auto v = static_cast<std::int32_t>(random() % static_cast<std::uint64_t>(n));
    if (v >= closed_from && u < closed_from) v = static_cast<std::int32_t>(v % closed_from);
    if (u == v) continue;
    e.src.push_back(u);
    e.dst.push_back(v);
    e.w.push_back(1 + static_cast<std::int32_t>(random() % static_cast<std::uint64_t>(max_weight)));
  }
  return e;
}

// Runs body(first, last) over [0, count) on every hardware thread.
void parallel_rows(std::int64_t count, const std::function<void(std::int64_t, std::int64_t)>& body) {
  const std::int64_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (std::int64_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { body(count * t / threads, count * (t + 1) / threads); });
  for (auto& thread : pool) thread.join();
}

// The order x order matrix of the edges in `m` (row-major).
template <class T>
void fill_matrix(T* m, std::int64_t order, const Edges& e, std::int32_t infinity) {
  parallel_rows(order, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t i = first; i < last; ++i) {
      std::fill(m + i * order, m + (i + 1) * order, static_cast<T>(infinity));
      m[i * order + i] = 0;
    }
  });
  for (std::size_t k = 0; k < e.src.size(); ++k) {
    T& cell = m[std::int64_t{e.src[k]} * order + e.dst[k]];
    cell = std::min<T>(cell, static_cast<T>(e.w[k]));
  }
}

std::vector<std::int64_t> dijkstra(const Edges& e, std::int32_t source) {
  std::vector<std::vector<std::pair<std::int32_t, std::int32_t>>> out(static_cast<std::size_t>(e.n));
  for (std::size_t k = 0; k < e.src.size(); ++k) out[e.src[k]].push_back({e.dst[k], e.w[k]});
  std::vector<std::int64_t> d(static_cast<std::size_t>(e.n), -1);
  using Item = std::pair<std::int64_t, std::int32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  heap.push({0, source});
  while (!heap.empty()) {
    const auto [du, u] = heap.top();
    heap.pop();
    if (d[u] >= 0) continue;
    d[u] = du;
    for (const auto& [v, w] : out[u])
      if (d[v] < 0) heap.push({du + w, v});
  }
  return d;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// In-core rounds on a device copy of `m` (order x order): seconds by CUDA
// events around the rounds; the result back into `result` when given.
template <class T>
double in_core_seconds(const T* m, std::int64_t order, T* result) {
  const auto cells = static_cast<std::size_t>(order) * static_cast<std::size_t>(order);
  apsp::cuda::DeviceBuffer<T> d(cells);
  apsp::cuda::Stream stream;
  APSP_CUDA_CHECK(cudaMemcpy(d.get(), m, cells * sizeof(T), cudaMemcpyHostToDevice));
  apsp::cuda::Event begin, end;
  begin.record(stream.get());
  if constexpr (sizeof(T) == 4)
    apsp::cuda::fw_rounds_int32(d.get(), order, stream.get(), apsp::ProgressSpan{});
  else
    apsp::cuda::fw_rounds_int16(d.get(), order, stream.get(), apsp::ProgressSpan{});
  end.record(stream.get());
  const double seconds = apsp::cuda::elapsed_ms(begin, end) * 1e-3;
  if (result) APSP_CUDA_CHECK(cudaMemcpy(result, d.get(), cells * sizeof(T), cudaMemcpyDeviceToHost));
  return seconds;
}

double cube(std::int64_t n) { return static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n); }

struct Row {
  std::string mode, precision;
  std::int64_t n = 0, order = 0, width = 0, blocks = 0;
  double seconds = 0, rate = 0, in_core_n = 0, in_core_rate = 0;
  std::string check;
};

void report(const Row& r, const std::string& csv) {
  const double percent = r.in_core_rate > 0 ? 100.0 * r.rate / r.in_core_rate : 0;
  std::printf("%s %s n=%lld order=%lld width=%lld blocks=%lld: %.2f s, %.3f T updates/s; in-core at n=%.0f %.3f T/s "
              "-> %.1f%%; %s\n",
              r.mode.c_str(), r.precision.c_str(), static_cast<long long>(r.n), static_cast<long long>(r.order),
              static_cast<long long>(r.width), static_cast<long long>(r.blocks), r.seconds, r.rate * 1e-12, r.in_core_n,
              r.in_core_rate * 1e-12, percent, r.check.c_str());
  std::fflush(stdout);
  if (csv.empty()) return;
  const bool fresh = !std::ifstream(csv).good();
  std::ofstream out(csv, std::ios::app);
  if (fresh)
    out << "mode,precision,n,order,width,blocks,seconds,updates_per_s,in_core_n,in_core_updates_per_s,percent,check\n";
  out << r.mode << ',' << r.precision << ',' << r.n << ',' << r.order << ',' << r.width << ',' << r.blocks << ','
      << r.seconds << ',' << r.rate << ',' << r.in_core_n << ',' << r.in_core_rate << ',' << percent << ',' << r.check
      << '\n';
}

// The in-core rate at n (median of reps after a warm-up at 4096).
template <class T>
double in_core_rate(std::int64_t n, std::int32_t infinity, std::int32_t max_weight, int reps) {
  const std::int64_t granule = sizeof(T) == 2 ? 256 : 128;
  const std::int64_t order = (n + granule - 1) / granule * granule;
  {
    std::vector<T> warm(static_cast<std::size_t>(4096 * 4096));
    fill_matrix(warm.data(), 4096, random_edges(4096, max_weight, 1), infinity);
    in_core_seconds(warm.data(), 4096, static_cast<T*>(nullptr));
  }
  apsp::cuda::PinnedBuffer<T> m(static_cast<std::size_t>(order * order));
  fill_matrix(m.get(), order, random_edges(n, max_weight, 2), infinity);
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) times.push_back(in_core_seconds(m.get(), order, static_cast<T*>(nullptr)));
  return cube(n) / median(times);
}

template <class T>
void compare(std::int64_t n, std::int64_t width, const std::string& precision, std::int32_t infinity,
             std::int32_t max_weight, int reps, const std::string& csv) {
  const apsp::Precision p = sizeof(T) == 2 ? apsp::Precision::int16 : apsp::Precision::int32;
  const apsp::core::SuperShape shape = apsp::cuda::out_of_core_shape(n, p, 0, width, nullptr);
  const std::int64_t order = shape.order();
  const auto cells = static_cast<std::size_t>(order) * static_cast<std::size_t>(order);
  const Edges edges = random_edges(n, max_weight, 3);
  apsp::cuda::PinnedBuffer<T> input(cells), host(cells), in_core(cells);
  fill_matrix(input.get(), order, edges, infinity);
  // Warm-up: both paths once on a two-block problem.
  {
    const apsp::core::SuperShape small{width, 2};
    std::vector<T> warm(static_cast<std::size_t>(small.order() * small.order()));
    fill_matrix(warm.data(), small.order(), random_edges(small.order(), max_weight, 4), infinity);
    std::vector<T> copy = warm;
    in_core_seconds(warm.data(), small.order(), static_cast<T*>(nullptr));
    apsp::cuda::fw_out_of_core(copy.data(), small);
  }
  std::vector<double> in_core_times, ooc_times;
  bool identical = true;
  for (int r = 0; r < reps; ++r) {
    in_core_times.push_back(in_core_seconds(input.get(), order, r == 0 ? in_core.get() : nullptr));
    std::memcpy(host.get(), input.get(), cells * sizeof(T));
    const auto start = Clock::now();
    apsp::cuda::fw_out_of_core(host.get(), shape);
    ooc_times.push_back(seconds_since(start));
    identical = identical && std::memcmp(host.get(), in_core.get(), cells * sizeof(T)) == 0;
  }
  Row row{"compare", precision, n, order, shape.width, shape.blocks};
  row.seconds = median(ooc_times);
  row.rate = cube(n) / row.seconds;
  row.in_core_n = static_cast<double>(n);
  row.in_core_rate = cube(n) / median(in_core_times);
  row.check = identical ? "bit-identical" : "DIFFERS";
  report(row, csv);
  if (!identical) throw apsp::Error("out-of-core and in-core results differ at n = " + std::to_string(n));
}

template <class T>
void large(std::int64_t n, std::int64_t in_core_n, const std::string& precision, std::int32_t infinity,
           std::int32_t max_weight, int samples, const std::string& csv) {
  const apsp::Precision p = sizeof(T) == 2 ? apsp::Precision::int16 : apsp::Precision::int32;
  const double in_rate = in_core_n > 0 ? in_core_rate<T>(in_core_n, infinity, max_weight, 1) : 0;
  std::printf("[%6.1f s] in-core rate at n = %lld: %.3f T updates/s\n", stamp(), static_cast<long long>(in_core_n),
              in_rate * 1e-12);
  const apsp::cuda::OutOfCoreRates rates = apsp::cuda::measure_out_of_core_rates(p);
  std::printf("[%6.1f s] link %.1f GB/s, phase-3 kernel %.3f T updates/s\n", stamp(),
              rates.link_bytes_per_second * 1e-9, rates.updates_per_second * 1e-12);
  const apsp::core::SuperShape shape = apsp::cuda::out_of_core_shape(n, p, 0, 0, &rates);
  std::printf("[%6.1f s] shape %lld x %lld super-tiles of width %lld; rounds predicted at the kernel rate: %.0f s\n",
              stamp(), static_cast<long long>(shape.blocks), static_cast<long long>(shape.blocks),
              static_cast<long long>(shape.width), cube(shape.order()) / rates.updates_per_second);
  const std::int64_t order = shape.order();
  const auto cells = static_cast<std::size_t>(order) * static_cast<std::size_t>(order);
  const Edges edges = random_edges(n, max_weight, 5);
  auto start = Clock::now();
  // Pageable and not zeroed (the fill writes every cell on all threads),
  // in 2 MiB-aligned memory asked for transparent huge pages: the first
  // touch and the registration below then handle 512 times fewer pages.
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const std::size_t bytes = (cells * sizeof(T) + kHugePage - 1) / kHugePage * kHugePage;
  const std::unique_ptr<T, decltype(&std::free)> host(static_cast<T*>(std::aligned_alloc(kHugePage, bytes)),
                                                      &std::free);
  if (!host) throw apsp::ResourceError("the " + std::to_string(bytes) + "-byte host matrix");
  madvise(host.get(), bytes, MADV_HUGEPAGE);  // advice: without THP the fill still works, only slower
  fill_matrix(host.get(), order, edges, infinity);
  std::printf("[%6.1f s] host matrix: %.1f GiB, filled in %.1f s on %u threads\n", stamp(),
              static_cast<double>(cells * sizeof(T)) / (1 << 30), seconds_since(start),
              std::max(1u, std::thread::hardware_concurrency()));
  // Page-locked here, outside the timed run (fw_out_of_core would register
  // it itself, inside): pinning 84 GiB takes tens of seconds.
  start = Clock::now();
  APSP_CUDA_CHECK(cudaHostRegister(host.get(), cells * sizeof(T), cudaHostRegisterDefault));
  std::printf("[%6.1f s] registered with CUDA in %.1f s\n", stamp(), seconds_since(start));
  start = Clock::now();
  apsp::cuda::OutOfCoreRun run;
  run.at_boundary = [&](std::int64_t done, std::int64_t rounds) {
    const double seconds = seconds_since(start);
    std::printf("[%6.1f s] super-round %lld/%lld done: %.1f s of rounds, projected %.0f s\n", stamp(),
                static_cast<long long>(done), static_cast<long long>(rounds), seconds,
                seconds * static_cast<double>(rounds) / static_cast<double>(done));
  };
  apsp::cuda::fw_out_of_core(host.get(), shape, run);
  Row row{"large", precision, n, order, shape.width, shape.blocks};
  row.seconds = seconds_since(start);
  APSP_CUDA_CHECK(cudaHostUnregister(host.get()));
  row.rate = cube(n) / row.seconds;
  row.in_core_n = static_cast<double>(in_core_n);
  row.in_core_rate = in_rate;
  std::printf("[%6.1f s] rounds done in %.1f s\n", stamp(), row.seconds);
  // The sampled rows, one source per thread.
  std::vector<std::int32_t> sources(static_cast<std::size_t>(samples));
  std::mt19937_64 random(6);
  for (std::int32_t& source : sources) source = static_cast<std::int32_t>(random() % static_cast<std::uint64_t>(n));
  std::vector<std::int64_t> wrong_in(sources.size(), 0);
  std::vector<std::thread> checkers;
  for (std::size_t s = 0; s < sources.size(); ++s)
    checkers.emplace_back([&, s] {
      const std::vector<std::int64_t> d = dijkstra(edges, sources[s]);
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t got = host.get()[static_cast<std::size_t>(std::int64_t{sources[s]} * order + j)];
        const std::int64_t want = d[j] < 0 || d[j] >= infinity ? infinity : d[j];
        wrong_in[s] += got != want;
      }
    });
  for (std::thread& checker : checkers) checker.join();
  std::int64_t wrong = 0;
  for (const std::int64_t w : wrong_in) wrong += w;
  row.check = wrong == 0 ? std::to_string(samples) + " sampled rows match Dijkstra"
                         : std::to_string(wrong) + " ENTRIES DIFFER from Dijkstra";
  report(row, csv);
  if (wrong) throw apsp::Error("sampled rows differ from Dijkstra");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Out-of-core fw against in-core fw"};
  app.require_subcommand(1);
  std::int64_t n = 0, width = 8192, in_core_n = 65536;
  std::string precision = "int32", csv;
  int reps = 3, samples = 16;
  auto* cmp = app.add_subcommand("compare", "in-core and out-of-core at the same n, bit for bit");
  auto* big = app.add_subcommand("large", "out-of-core at an n only the host holds");
  for (auto* sub : {cmp, big}) {
    sub->add_option("--n", n, "vertices")->required();
    sub->add_option("--precision", precision, "int32 or int16")->check(CLI::IsMember({"int32", "int16"}));
    sub->add_option("--csv", csv, "append a CSV row here");
  }
  cmp->add_option("--width", width, "super-tile width (a multiple of 128; 256 for int16)");
  cmp->add_option("--reps", reps, "repetitions (median)");
  big->add_option("--in-core-n", in_core_n, "n of the in-core rate measured alongside (0: none)");
  big->add_option("--samples", samples, "sources whose rows are checked against Dijkstra");
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it comes (a run cut short still says how far it got)
  try {
    const bool narrow = precision == "int16";
    if (*cmp) {
      if (narrow)
        compare<std::int16_t>(n, width, precision, kInf16, 20, reps, csv);
      else
        compare<std::int32_t>(n, width, precision, kInf32, 1000, reps, csv);
    } else {
      if (narrow)
        large<std::int16_t>(n, in_core_n, precision, kInf16, 20, samples, csv);
      else
        large<std::int32_t>(n, in_core_n, precision, kInf32, 1000, samples, csv);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_ooc_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
