// Benchmark of the result path after the compute (issue 7): the streaming
// download into sinks (int32; int16 widened on the host or on the device;
// with Johnson potentials undone on the device) and the GPU certificate,
// against the raw pinned copy rate and the int32 compute time.
//
//   apsp_bench_gpu_download_bench --sizes 32768 [--reps 5] [--csv FILE]
//
// Wall-clock medians after a warm-up (the download and the certificate
// return synchronized). The graph is random with m = degree * n, weights
// 1..100, as in the issue; the matrices are the production solver's result.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/registry.hpp"
#include "apsp/sink.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/download.hpp"
#include "cuda/gpu_verify.hpp"
#include "cuda/instance.hpp"
#include "cuda/kernels/dense/int16_conversion.cuh"
#include "cuda/launch.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/staging.hpp"

namespace {

using apsp::cuda::DevicePotentials;
using apsp::cuda::DeviceRows;
using apsp::cuda::DownloadOptions;
using apsp::cuda::Int16Widening;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Drops every row: the download's own rate.
class NullSink final : public apsp::Sink {
 public:
  void begin(const apsp::SinkLayout&) override {}
  void put(const apsp::RowBlock&) override {}
  void commit() override {}
};

// What a host-matrix sink does: one n x n int32 matrix allocated without
// zero-filling (so the puts also first-touch its pages), filled by memcpy;
// optionally exposing its memory through row_address().
class HostMatrixSink final : public apsp::Sink {
 public:
  explicit HostMatrixSink(bool expose) : expose_(expose) {}
  void begin(const apsp::SinkLayout& layout) override {
    n_ = layout.n;
    data_.reset(new std::int32_t[static_cast<std::size_t>(n_ * n_)]);
  }
  void put(const apsp::RowBlock& b) override {
    std::int32_t* target = data_.get() + b.first_row * n_;
    if (b.data == target) return;
    const auto* source = static_cast<const std::int32_t*>(b.data);
    if (b.row_stride == n_) {
      std::memcpy(target, source, static_cast<std::size_t>(b.rows * n_) * sizeof(std::int32_t));
      return;
    }
    for (std::int64_t r = 0; r < b.rows; ++r)
      std::memcpy(target + r * n_, source + r * b.row_stride, static_cast<std::size_t>(n_) * sizeof(std::int32_t));
  }
  void commit() override {}
  void* row_address(apsp::Plane, std::int64_t row) override { return expose_ ? data_.get() + row * n_ : nullptr; }

 private:
  bool expose_;
  std::int64_t n_ = 0;
  std::unique_ptr<std::int32_t[]> data_;
};

struct Row {
  std::string what;
  std::int64_t n = 0;
  double seconds = 0;
  double gb_per_s = 0;  // result bytes (n^2 x 4) per second, or 0
  std::string note;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds of `run` over reps after warm-up runs; `prepare` runs
// untimed before each.
double timed(int warmup, int reps, const std::function<void()>& prepare, const std::function<void()>& run) {
  std::vector<double> seconds;
  for (int rep = 0; rep < warmup + reps; ++rep) {
    prepare();
    const auto start = Clock::now();
    run();
    if (rep >= warmup) seconds.push_back(seconds_since(start));
  }
  return median(seconds);
}

// The host link's own rate: one cudaMemcpy of `bytes` into pinned memory.
double raw_pinned_copy_rate(std::size_t bytes, int reps) {
  apsp::cuda::DeviceBuffer<std::byte> device(bytes);
  apsp::cuda::PinnedBuffer<std::byte> host(bytes);
  APSP_CUDA_CHECK(cudaMemset(device.get(), 1, bytes));
  const double s = timed(
      1, reps, [] {}, [&] { APSP_CUDA_CHECK(cudaMemcpy(host.get(), device.get(), bytes, cudaMemcpyDeviceToHost)); });
  return static_cast<double>(bytes) / s / 1e9;
}

void print_rows(const std::vector<Row>& rows, const std::string& csv) {
  std::printf("\n%-52s %7s %11s %9s  %s\n", "stage", "n", "time_ms", "GB/s", "note");
  for (const Row& r : rows)
    std::printf("%-52s %7lld %11.2f %9.2f  %s\n", r.what.c_str(), static_cast<long long>(r.n), r.seconds * 1e3,
                r.gb_per_s, r.note.c_str());
  if (csv.empty()) return;
  std::ofstream out(csv, std::ios::app);
  if (!out) throw apsp::InputError("cannot write " + csv);
  out.seekp(0, std::ios::end);
  if (out.tellp() == 0) out << "stage,n,seconds,gb_per_s,note\n";
  for (const Row& r : rows)
    out << '"' << r.what << "\"," << r.n << ',' << r.seconds << ',' << r.gb_per_s << ",\"" << r.note << "\"\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"apsp GPU result-path benchmark: download into sinks and the GPU certificate"};
  std::vector<std::int64_t> sizes{32768};
  int warmup = 1, reps = 5, degree = 8;
  std::uint64_t seed = 1;
  std::string csv;
  app.add_option("--sizes", sizes, "vertex counts")->delimiter(',');
  app.add_option("--warmup", warmup, "untimed runs first");
  app.add_option("--reps", reps, "timed runs (median reported)");
  app.add_option("--degree", degree, "edges per vertex (m = degree * n)");
  app.add_option("--seed", seed, "graph seed");
  app.add_option("--csv", csv, "append rows to this CSV file");
  CLI11_PARSE(app, argc, argv);

  try {
    if (apsp::cuda::devices().empty()) throw apsp::ResourceError("no CUDA device found");
    const auto dev = apsp::cuda::devices().front();
    std::printf("device: %s, %d SMs, %.1f GiB\n", dev.name.c_str(), dev.multiprocessors,
                dev.total_memory / 1073741824.0);
    // The production dense solver (fw), found by its registry traits.
    const apsp::AlgorithmInfo* dense = apsp::find_production(apsp::Backend::cuda, apsp::Work::cubic);
    const apsp::cuda::GpuAlgorithm* fw = nullptr;
    for (const apsp::cuda::GpuAlgorithm& a : apsp::cuda::gpu_algorithm_table())
      if (dense != nullptr && std::string(a.info.name) == dense->name) fw = &a;
    if (fw == nullptr) throw apsp::Error("the registry has no production dense GPU solver");
    std::vector<Row> rows;
    const double raw = raw_pinned_copy_rate(std::size_t{1} << 30, reps);
    rows.push_back(Row{"raw cudaMemcpy D2H into pinned (1 GiB)", 0, (1 << 30) / raw / 1e9, raw, "link reference"});
    apsp::cuda::release_staging();
    auto pool_start = Clock::now();
    apsp::cuda::prepare_staging();
    rows.push_back(Row{"first use: allocate the pinned staging set", 0, seconds_since(pool_start), 0,
                       std::to_string(apsp::cuda::StagingTraits::kBuffers) + " x " +
                           std::to_string(apsp::cuda::StagingTraits::kBufferBytes >> 20) + " MiB"});

    for (const std::int64_t n : sizes) {
      apsp::GenerateOptions o;
      o.kind = apsp::GraphKind::random;
      o.n = n;
      o.m = degree * n;
      o.w_lo = 1;
      o.w_hi = 100;
      o.seed = seed;
      const apsp::Graph g = apsp::normalize(apsp::generate(o));
      const double bytes32 = static_cast<double>(n) * static_cast<double>(n) * 4;
      apsp::cuda::Stream stream;

      // The production solver's int32 result, resident on the device.
      apsp::cuda::DeviceInstance instance(g, *fw, false, stream.get());
      apsp::cuda::GpuProblem problem = instance.problem();
      problem.precision = apsp::Precision::int32;
      apsp::cuda::Event compute_begin, compute_end;
      compute_begin.record(stream.get());
      fw->run(problem);
      compute_end.record(stream.get());
      const double compute_s = apsp::cuda::elapsed_ms(compute_begin, compute_end) / 1e3;
      char compute_note[64];
      std::snprintf(compute_note, sizeof compute_note, "%.2f T updates/s",
                    static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / compute_s / 1e12);
      rows.push_back(Row{"compute: fw int32 (reference for verify)", n, compute_s, 0, compute_note});
      const DeviceRows rows32 = DeviceRows::of_int32(problem.dist, n, problem.n_pad);

      // The same distances as the int16 mode leaves them (n_pad16 x n_pad16).
      const std::int64_t n_pad16 = (problem.n_pad + 255) / 256 * 256;
      apsp::cuda::DeviceBuffer<std::int16_t> narrow(static_cast<std::size_t>(n_pad16 * n_pad16));
      apsp::cuda::kernels::narrow_to_int16<<<apsp::cuda::grid_for(n_pad16 * n_pad16, 256), 256, 0, stream.get()>>>(
          problem.dist, problem.n_pad, narrow.get(), n_pad16);
      APSP_CUDA_CHECK_LAUNCH("narrow_to_int16");
      stream.synchronize();
      const DeviceRows rows16 = DeviceRows::of_int16(narrow.get(), n, n_pad16, apsp::cuda::kernels::kInf16);

      // Potentials of a magnitude Johnson gives, to time the device un-reweighting.
      std::vector<std::int64_t> h(static_cast<std::size_t>(n));
      for (std::int64_t v = 0; v < n; ++v) h[static_cast<std::size_t>(v)] = -(v * 7919 % 1000);
      const DevicePotentials potentials(h, stream.get());
      const DevicePotentials none;

      struct Variant {
        const char* name;
        const DeviceRows* matrix;
        const DevicePotentials* potentials;
        Int16Widening widening;
        int sink;  // 0 null, 1 host matrix (put copies), 2 host matrix exposing row_address
        bool register_memory;
      };
      const Variant variants[] = {
          {"int32 -> null sink", &rows32, &none, Int16Widening::host, 0, false},
          {"int32 -> host matrix (memcpy in put)", &rows32, &none, Int16Widening::host, 1, false},
          {"int32 -> host matrix, registered, direct copy", &rows32, &none, Int16Widening::host, 2, true},
          {"int32 + potentials (device) -> null sink", &rows32, &potentials, Int16Widening::host, 0, false},
          {"int32 + potentials (device) -> host matrix", &rows32, &potentials, Int16Widening::host, 1, false},
          {"int16 host widen -> null sink", &rows16, &none, Int16Widening::host, 0, false},
          {"int16 host widen -> host matrix (into it)", &rows16, &none, Int16Widening::host, 2, false},
          {"int16 host widen -> host matrix (memcpy in put)", &rows16, &none, Int16Widening::host, 1, false},
          {"int16 device widen -> null sink", &rows16, &none, Int16Widening::device, 0, false},
          {"int16 device widen -> host matrix (memcpy in put)", &rows16, &none, Int16Widening::device, 1, false},
      };
      for (const Variant& v : variants) {
        std::unique_ptr<apsp::Sink> sink;
        apsp::cuda::DownloadStats stats;
        DownloadOptions options;
        options.int16_widening = v.widening;
        options.register_sink_memory = v.register_memory;
        const double s = timed(
            warmup, reps,
            [&] {
              sink.reset();  // frees the previous matrix, untimed
              if (v.sink == 0)
                sink = std::make_unique<NullSink>();
              else
                sink = std::make_unique<HostMatrixSink>(v.sink == 2);
              apsp::SinkLayout layout;
              layout.n = n;
              sink->begin(layout);
            },
            [&] {
              stats = apsp::cuda::download_to_sink(*v.matrix, apsp::Plane::distances, *v.potentials, *sink, options,
                                                   stream.get());
            });
        char link[96];
        std::snprintf(link, sizeof link, "%lld MiB over the link at %.2f GB/s",
                      static_cast<long long>(stats.link_bytes >> 20), static_cast<double>(stats.link_bytes) / s / 1e9);
        std::string note = link;
        if (v.register_memory) note += stats.registered_sink ? ", registered" : ", registration failed: staged";
        rows.push_back(Row{std::string("download: ") + v.name, n, s, bytes32 / s / 1e9, note});
      }

      // The GPU certificate on the same result.
      const auto build_start = Clock::now();
      const apsp::cuda::DeviceVerifier verifier(g, instance.reweighted().edges, stream.get());
      stream.synchronize();
      rows.push_back(Row{"verify: build the device graph (once per solve)", n, seconds_since(build_start), 0,
                         "m = " + std::to_string(g.edges.size()) +
                             (verifier.has_zero_weight_cycle() ? ", zero-weight cycles" : "")});
      const double nm = static_cast<double>(n) * static_cast<double>(g.edges.size());
      const struct {
        const char* name;
        const DeviceRows* matrix;
      } checks[] = {{"verify: certificate kernel, int32", &rows32}, {"verify: certificate kernel, int16", &rows16}};
      for (const auto& check : checks) {
        std::int64_t failing = 0;
        const double s = timed(
            warmup, reps, [] {}, [&] { failing = verifier.lowest_failing_row(*check.matrix, none, stream.get()); });
        char note[200];
        std::snprintf(note, sizeof note, "%.1f%% of int32 compute, %.2f G edge checks/s%s", 100 * s / compute_s,
                      nm / s / 1e9, failing < 0 ? "" : " (REJECTED the solver's result)");
        rows.push_back(Row{check.name, n, s, 0, note});
      }
    }
    print_rows(rows, csv);
  } catch (const apsp::Error& e) {
    std::fprintf(stderr, "apsp_bench: %s\n", e.what());
    return static_cast<int>(e.exit_code());
  }
  return 0;
}
