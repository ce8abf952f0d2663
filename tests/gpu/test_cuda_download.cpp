// The streaming download (src/cuda/download.hpp): device matrices of known
// values, int32 and int16, with and without potentials, into a recording
// sink. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "cuda/download.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/staging.hpp"
#include "gpu/device_fixtures.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

using cuda::DevicePotentials;
using cuda::DeviceRows;
using cuda::DownloadOptions;
using cuda::Int16Widening;
using test::RecordingSink;
using test::round_up;

// The production solver's int16 infinity (kernels/fw_production.cuh); the
// download takes any int16 infinity from the matrix description.
constexpr std::int16_t kInf16 = 16383;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// n x n int32: 0 on the diagonal, about one entry in six kInf, else in [-500, 1500).
std::vector<dist_t> synthetic_int32(std::int64_t n, std::uint64_t seed) {
  std::vector<dist_t> m(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::uint64_t r = mix(seed * 1000003 + static_cast<std::uint64_t>(i * n + j));
      m[static_cast<std::size_t>(i * n + j)] = i == j ? 0 : r % 6 == 0 ? kInf : static_cast<dist_t>(r % 2000) - 500;
    }
  return m;
}

// n x n int16 storage: 0 on the diagonal, about one entry in six kInf16 and
// one in twelve above it (both mean unreachable), else in [0, kInf16).
std::vector<std::int16_t> synthetic_int16(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int16_t> m(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::uint64_t r = mix(seed * 1000003 + static_cast<std::uint64_t>(i * n + j));
      std::int16_t v = static_cast<std::int16_t>(r % kInf16);
      if (r % 6 == 0) v = kInf16;
      if (r % 12 == 1) v = static_cast<std::int16_t>(kInf16 + 1 + r % 1000);
      m[static_cast<std::size_t>(i * n + j)] = i == j ? 0 : v;
    }
  return m;
}

// A synthetic matrix on the host and, padded, on the device (the padding
// holds a value no download may deliver).
struct Int32Matrix {
  Int32Matrix(std::int64_t order, std::uint64_t seed)
      : n(order),
        ld(round_up(order, 128)),
        host(synthetic_int32(order, seed)),
        device(test::upload_padded<dist_t>(host, n, ld, -7)) {}
  DeviceRows rows() const { return DeviceRows::of_int32(device.get(), n, ld); }
  std::int64_t n, ld;
  std::vector<dist_t> host;
  cuda::DeviceBuffer<dist_t> device;
};

struct Int16Matrix {
  Int16Matrix(std::int64_t order, std::uint64_t seed)
      : n(order),
        ld(round_up(order, 256)),
        host(synthetic_int16(order, seed)),
        device(test::upload_padded<std::int16_t>(host, n, ld, 5)) {}
  DeviceRows rows() const { return DeviceRows::of_int16(device.get(), n, ld, kInf16); }
  std::int64_t n, ld;
  std::vector<std::int16_t> host;
  cuda::DeviceBuffer<std::int16_t> device;
};

// What the sink must receive for a stored matrix and potentials h (empty: none).
template <typename S>
std::vector<dist_t> expected_distances(const std::vector<S>& stored, std::int64_t n,
                                       const std::vector<std::int64_t>& h) {
  std::vector<dist_t> d(stored.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int32_t v = stored[static_cast<std::size_t>(i * n + j)];
      const bool unreachable = sizeof(S) == 2 ? v >= kInf16 : v == kInf;
      d[static_cast<std::size_t>(i * n + j)] = unreachable ? kInf
                                                           : static_cast<dist_t>(v - (h.empty() ? 0 : h[i] - h[j]));
    }
  return d;
}

std::vector<std::int64_t> small_potentials(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> h(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v)
    h[static_cast<std::size_t>(v)] = static_cast<std::int64_t>(mix(seed + v) % 2001) - 1000;
  return h;
}

// Downloads the distances of `rows` into a fresh sink and checks every value
// and that each row arrived once.
void expect_download(const DeviceRows& rows, const std::vector<dist_t>& expected, const DevicePotentials& h,
                     const DownloadOptions& options, bool expose_memory, cudaStream_t stream) {
  RecordingSink sink(expose_memory);
  SinkLayout layout;
  layout.n = rows.n;
  sink.begin(layout);
  const cuda::DownloadStats stats = cuda::download_to_sink(rows, Plane::distances, h, sink, options, stream);
  EXPECT_EQ(sink.delivery_problem(Plane::distances, 0, rows.n), "");
  EXPECT_EQ(test::first_difference(expected, sink.values(Plane::distances), rows.n), "");
  const std::int64_t link_element =
      rows.stored == cuda::Stored::int16 && h.empty() && options.int16_widening == Int16Widening::host ? 2 : 4;
  EXPECT_EQ(stats.link_bytes, rows.n * rows.n * link_element);
}

TEST(CudaDownload, Int32RowsAroundTileSizes) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  for (std::int64_t n : {0, 1, 2, 127, 128, 129, 255, 257, 1000}) {
    const Int32Matrix m(n, 1);
    for (bool expose : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (expose ? " into the sink's memory" : ""));
      expect_download(m.rows(), m.host, {}, {}, expose, stream.get());
    }
  }
}

// More row blocks than staging buffers: the ring wraps around, and the
// progress reaches 1 in order.
TEST(CudaDownload, ManyBlocksWrapTheStagingRing) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  const Int32Matrix m(8200, 2);
  std::vector<double> fractions;
  DownloadOptions options;
  options.progress = [&](double f) { fractions.push_back(f); };
  expect_download(m.rows(), m.host, {}, options, false, stream.get());
  EXPECT_GT(fractions.size(), static_cast<std::size_t>(cuda::StagingTraits::kBuffers));
  EXPECT_EQ(test::check_progress(fractions), "");
}

// A staging set prepared for a small result (one buffer, as HostWarmup
// prepares it for a part of a few MiB) page-locks the other buffers on their
// first use: a later download that wraps the ring is still exact.
TEST(CudaDownload, StagingPreparedForASmallResultGrowsOnFirstUse) {
  SKIP_WITHOUT_GPU();
  EXPECT_EQ(cuda::staging_buffers_for(0), 1);
  EXPECT_EQ(cuda::staging_buffers_for(4u << 20), 1);
  EXPECT_EQ(cuda::staging_buffers_for(cuda::StagingTraits::kBufferBytes + 1), 2);
  EXPECT_EQ(cuda::staging_buffers_for(std::uint64_t{1} << 40), cuda::StagingTraits::kBuffers);
  cuda::release_staging();
  cuda::prepare_staging(std::uint64_t{4} << 20);
  cuda::Stream stream;
  const Int32Matrix small(100, 5);
  expect_download(small.rows(), small.host, {}, {}, false, stream.get());
  const Int32Matrix m(8200, 6);
  expect_download(m.rows(), m.host, {}, {}, false, stream.get());
}

TEST(CudaDownload, Int16WidensWithInfinityBothWays) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  for (std::int64_t n : {1, 129, 300, 12000}) {  // 12000: more blocks than buffers either way
    const Int16Matrix m(n, 3);
    const std::vector<dist_t> expected = expected_distances(m.host, n, {});
    EXPECT_TRUE(std::find(expected.begin(), expected.end(), kInf) != expected.end() || n == 1);
    for (Int16Widening widening : {Int16Widening::host, Int16Widening::device})
      for (bool expose : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + (widening == Int16Widening::host ? " host" : " device") +
                     (expose ? " into the sink's memory" : ""));
        DownloadOptions options;
        options.int16_widening = widening;
        expect_download(m.rows(), expected, {}, options, expose, stream.get());
      }
  }
}

TEST(CudaDownload, PotentialsAreUndoneOnTheDevice) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  for (std::int64_t n : {1, 65, 300, 8200}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::vector<std::int64_t> h = small_potentials(n, 4);
    const DevicePotentials potentials(h, stream.get());
    const Int32Matrix m32(n, 5);
    expect_download(m32.rows(), expected_distances(m32.host, n, h), potentials, {}, false, stream.get());
    const Int16Matrix m16(n, 6);
    expect_download(m16.rows(), expected_distances(m16.host, n, h), potentials, {}, true, stream.get());
  }
}

// Entries (i, 77) hold 5 for i < 61 and 12 from row 61 on, with the
// potentials of test::overflow_potentials: the error names the first entry
// beyond int32 in row-major order, (61, 77), whatever the block.
TEST(CudaDownload, OverflowNamesTheFirstEntry) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  for (std::int64_t n : {300, 8200}) {
    for (bool int16 : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (int16 ? " int16" : " int32"));
      const DevicePotentials potentials(test::overflow_potentials(n), stream.get());
      std::vector<std::int32_t> values(static_cast<std::size_t>(n * n), 3);
      for (std::int64_t i = 0; i < n; ++i) {
        values[static_cast<std::size_t>(i * n + i)] = 0;
        values[static_cast<std::size_t>(i * n + 77)] = i == 77 ? 0 : i < 61 ? 5 : 12;
      }
      values[static_cast<std::size_t>(60 * n + 77)] = int16 ? kInf16 : kInf;  // unreachable: never an overflow
      RecordingSink sink;
      SinkLayout layout;
      layout.n = n;
      sink.begin(layout);
      if (int16) {
        const std::int64_t ld = round_up(n, 256);
        const cuda::DeviceBuffer<std::int16_t> device =
            test::upload_padded<std::int16_t>(std::vector<std::int16_t>(values.begin(), values.end()), n, ld, 0);
        test::expect_overflow_at_61_77([&] {
          cuda::download_to_sink(DeviceRows::of_int16(device.get(), n, ld, kInf16), Plane::distances, potentials, sink,
                                 {}, stream.get());
        });
      } else {
        const std::int64_t ld = round_up(n, 128);
        const cuda::DeviceBuffer<dist_t> device = test::upload_padded<dist_t>(values, n, ld, 0);
        test::expect_overflow_at_61_77([&] {
          cuda::download_to_sink(DeviceRows::of_int32(device.get(), n, ld), Plane::distances, potentials, sink, {},
                                 stream.get());
        });
      }
    }
  }
}

// Predecessor rows take the same path; the patch hook rewrites a row before
// the sink sees it, and both planes land in one sink.
TEST(CudaDownload, PredecessorsThroughTheSinkWithPatch) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  for (std::int64_t n : {3, 129, 8200}) {
    for (bool expose : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (expose ? " into the sink's memory" : ""));
      const std::int64_t ld = round_up(n, 128);
      std::vector<vertex_t> pred(static_cast<std::size_t>(n * n));
      for (std::size_t x = 0; x < pred.size(); ++x)
        pred[x] = static_cast<vertex_t>(mix(x) % static_cast<std::uint64_t>(n + 1)) - 1;  // -1 .. n-1
      const Int32Matrix dist(n, 7);
      const cuda::DeviceBuffer<vertex_t> device_pred = test::upload_padded<vertex_t>(pred, n, ld, -9);
      const std::int64_t patched_row = n / 2;
      std::vector<vertex_t> expected = pred;
      for (std::int64_t j = 0; j < n; ++j)
        expected[static_cast<std::size_t>(patched_row * n + j)] = static_cast<vertex_t>(j);
      RecordingSink sink(expose);
      SinkLayout layout;
      layout.n = n;
      layout.predecessors = true;
      sink.begin(layout);
      cuda::download_to_sink(dist.rows(), Plane::distances, {}, sink, {}, stream.get());
      DownloadOptions options;
      options.patch = [&](std::int64_t first, std::int64_t rows, std::int32_t* data, std::int64_t stride) {
        if (patched_row < first || patched_row >= first + rows) return;
        for (std::int64_t j = 0; j < n; ++j) data[(patched_row - first) * stride + j] = static_cast<std::int32_t>(j);
      };
      cuda::download_to_sink(DeviceRows::of_int32(device_pred.get(), n, ld), Plane::predecessors, {}, sink, options,
                             stream.get());
      EXPECT_EQ(sink.delivery_problem(Plane::distances, 0, n), "");
      EXPECT_EQ(sink.delivery_problem(Plane::predecessors, 0, n), "");
      EXPECT_EQ(test::first_difference(dist.host, sink.values(Plane::distances), n), "");
      EXPECT_EQ(test::first_difference(expected, sink.values(Plane::predecessors), n), "");
    }
  }
}

// With register_sink_memory the copies land in the sink's own memory (page-
// locked for the download), through device staging too when potentials apply.
TEST(CudaDownload, CopiesStraightIntoRegisteredSinkMemory) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  const Int32Matrix m(8200, 8);
  const std::int64_t n = m.n;
  const std::vector<std::int64_t> h = small_potentials(n, 9);
  for (bool with_potentials : {false, true}) {
    SCOPED_TRACE(with_potentials ? "with potentials" : "plain");
    const DevicePotentials potentials(with_potentials ? h : std::vector<std::int64_t>{}, stream.get());
    RecordingSink sink(true);
    SinkLayout layout;
    layout.n = n;
    sink.begin(layout);
    DownloadOptions options;
    options.register_sink_memory = true;
    const cuda::DownloadStats stats =
        cuda::download_to_sink(m.rows(), Plane::distances, potentials, sink, options, stream.get());
    EXPECT_TRUE(stats.registered_sink);
    EXPECT_EQ(sink.own_memory_puts(), stats.blocks);
    EXPECT_EQ(sink.delivery_problem(Plane::distances, 0, n), "");
    EXPECT_EQ(test::first_difference(expected_distances(m.host, n, with_potentials ? h : std::vector<std::int64_t>{}),
                                     sink.values(Plane::distances), n),
              "");
  }
}

TEST(CudaDownload, RowRangeDeliversOnlyThoseRows) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  const Int32Matrix m(300, 10);
  const std::int64_t n = m.n;
  RecordingSink sink;
  SinkLayout layout;
  layout.n = n;
  sink.begin(layout);
  DownloadOptions options;
  options.first_row = 100;
  options.rows = 37;
  cuda::download_to_sink(m.rows(), Plane::distances, {}, sink, options, stream.get());
  EXPECT_EQ(sink.delivery_problem(Plane::distances, 100, 37), "");
  for (std::int64_t x = 100 * n; x < 137 * n; ++x)
    ASSERT_EQ(sink.values(Plane::distances)[static_cast<std::size_t>(x)], m.host[static_cast<std::size_t>(x)]) << x;
  EXPECT_EQ(cuda::download_distance_row(m.rows(), {}, 299, stream.get()),
            std::vector<dist_t>(m.host.end() - n, m.host.end()));
  options.rows = 201;
  EXPECT_THROW(cuda::download_to_sink(m.rows(), Plane::distances, {}, sink, options, stream.get()), UsageError);
}

// The solver's own result: negative weights (Johnson potentials), sizes around
// the production tile, downloaded with the potentials undone on the device.
TEST(CudaDownload, ProductionSolverResultMatchesReference) {
  SKIP_WITHOUT_GPU();
  std::vector<test::Case> cases = test::tile_cases();
  for (const test::Case& c : test::standard_cases())
    if (c.name.find("_neg_") != std::string::npos) cases.push_back(c);
  for (const test::Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Graph g = normalize(c.graph);
    if (g.n == 0) continue;  // the dispatcher returns before building an instance
    const test::SolvedOnDevice solved(g);
    const DevicePotentials potentials(solved.reweighted().potential, solved.stream());
    RecordingSink sink;
    SinkLayout layout;
    layout.n = g.n;
    sink.begin(layout);
    cuda::download_to_sink(solved.rows(), Plane::distances, potentials, sink, {}, solved.stream());
    EXPECT_EQ(sink.delivery_problem(Plane::distances, 0, g.n), "");
    EXPECT_EQ(test::first_difference(test::reference_distances(g), sink.values(Plane::distances), g.n), "");
  }
}

}  // namespace
}  // namespace apsp
