// Fixtures for tests of the CUDA backend's internal modules (download,
// GPU verify): device matrices built from host values, and a sink that
// records what reaches it. Tests that use them skip without a device.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/sink.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/device_rows.hpp"
#include "cuda/instance.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::test {

#define SKIP_WITHOUT_GPU() \
  if (cuda::devices().empty()) GTEST_SKIP() << "no CUDA device"

inline std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

// A device copy of the n x n row-major `host` with leading dimension ld;
// the padding (columns and rows n..ld-1) holds `pad`, which no check may read.
template <typename T>
cuda::DeviceBuffer<T> upload_padded(const std::vector<T>& host, std::int64_t n, std::int64_t ld, T pad) {
  std::vector<T> padded(static_cast<std::size_t>(ld * ld), pad);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      padded[static_cast<std::size_t>(i * ld + j)] = host[static_cast<std::size_t>(i * n + j)];
  cuda::DeviceBuffer<T> device(padded.size());
  if (!padded.empty())
    APSP_CUDA_CHECK(cudaMemcpy(device.get(), padded.data(), padded.size() * sizeof(T), cudaMemcpyHostToDevice));
  // A small copy from pageable memory may return before its DMA lands, and
  // the tests' streams do not wait for the legacy default stream.
  APSP_CUDA_CHECK(cudaDeviceSynchronize());
  return device;
}

// The production solver's ("fw") int32 result for a normalized graph with
// n >= 1, left on the device as the dispatcher holds it before the download:
// reweighted by the instance's potentials when the graph has negative weights.
class SolvedOnDevice {
 public:
  explicit SolvedOnDevice(const Graph& normalized)
      : instance_(normalized, fw(), false, stream_.get()), problem_(instance_.problem()) {
    problem_.precision = Precision::int32;
    fw().run(problem_);
  }
  cudaStream_t stream() const { return stream_.get(); }
  const cuda::Reweighted& reweighted() const { return instance_.reweighted(); }
  cuda::DeviceRows rows() const { return cuda::DeviceRows::of_int32(problem_.dist, problem_.n, problem_.n_pad); }
  // Entry (i, j) of the device matrix (in the matrix's terms).
  dist_t* cell(std::int64_t i, std::int64_t j) const { return problem_.dist + i * problem_.n_pad + j; }

 private:
  static const cuda::GpuAlgorithm& fw() {
    for (const cuda::GpuAlgorithm& a : cuda::gpu_algorithm_table())
      if (std::string(a.info.name) == "fw") return a;
    throw UsageError("no fw in the GPU algorithm table");
  }
  cuda::Stream stream_;
  cuda::DeviceInstance instance_;
  cuda::GpuProblem problem_;
};

// The overflow case shared by the download and verify tests: potentials
// h[77] = kInf - 10 (0 elsewhere), so a finite stored v at (i, 77) is the
// distance v + kInf - 10, beyond int32 from v = 10 on.
inline std::vector<std::int64_t> overflow_potentials(std::int64_t n) {
  std::vector<std::int64_t> h(static_cast<std::size_t>(n), 0);
  h[77] = kInf - 10;
  return h;
}

// Runs f, which must throw the OverflowError for the stored value 12 at (61, 77).
template <class F>
void expect_overflow_at_61_77(F f) {
  try {
    f();
    ADD_FAILURE() << "no OverflowError";
  } catch (const OverflowError& e) {
    EXPECT_EQ(std::string(e.what()),
              "distance 61->77 = " + std::to_string(std::int64_t{12} + kInf - 10) + " does not fit the int32 output");
  }
}

// Keeps every int32 row it receives, per plane, and counts how often each row
// arrived. With expose_memory, row_address() hands out its own storage, so a
// producer may write there and put() that same pointer (which is then not copied).
class RecordingSink final : public Sink {
 public:
  explicit RecordingSink(bool expose_memory = false) : expose_memory_(expose_memory) {}

  void begin(const SinkLayout& layout) override {
    layout_ = layout;
    const auto cells = static_cast<std::size_t>(layout.n * layout.n);
    for (int p = 0; p < 2; ++p) {
      values_[p].assign(cells, kUnwritten);
      deliveries_[p].assign(static_cast<std::size_t>(layout.n), 0);
    }
  }

  void put(const RowBlock& b) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    const int p = static_cast<int>(b.plane);
    const std::int64_t n = layout_.n;
    if (b.element != Element::int32 || b.row_stride < n || b.first_row < 0 || b.rows < 1 || b.first_row + b.rows > n) {
      if (problem_.empty())
        problem_ = "bad block: rows " + std::to_string(b.first_row) + "+" + std::to_string(b.rows) + " stride " +
                   std::to_string(b.row_stride);
      return;
    }
    const bool own = b.data == row_address(b.plane, b.first_row);
    if (own) ++own_memory_puts_;
    for (std::int64_t r = 0; r < b.rows; ++r) {
      ++deliveries_[p][static_cast<std::size_t>(b.first_row + r)];
      if (own) continue;
      const auto* row = static_cast<const std::int32_t*>(b.data) + r * b.row_stride;
      std::copy(row, row + n, values_[p].begin() + (b.first_row + r) * n);
    }
  }

  void commit() override {}

  void* row_address(Plane plane, std::int64_t row) override {
    if (!expose_memory_) return nullptr;
    return values_[static_cast<int>(plane)].data() + row * layout_.n;
  }

  const std::vector<std::int32_t>& values(Plane plane) const { return values_[static_cast<int>(plane)]; }
  std::int64_t own_memory_puts() const { return own_memory_puts_; }

  // Empty when rows [first, first + rows) of `plane` arrived exactly once
  // each, no other row arrived and every block was well formed.
  std::string delivery_problem(Plane plane, std::int64_t first, std::int64_t rows) const {
    if (!problem_.empty()) return problem_;
    const std::vector<int>& d = deliveries_[static_cast<int>(plane)];
    for (std::int64_t r = 0; r < layout_.n; ++r) {
      const int expected = r >= first && r < first + rows ? 1 : 0;
      if (d[static_cast<std::size_t>(r)] != expected)
        return "row " + std::to_string(r) + " arrived " + std::to_string(d[static_cast<std::size_t>(r)]) +
               " times, expected " + std::to_string(expected);
    }
    return {};
  }

  // What the storage holds before any row arrives (no real distance or predecessor).
  static constexpr std::int32_t kUnwritten = -123456789;

 private:
  bool expose_memory_;
  SinkLayout layout_;
  std::vector<std::int32_t> values_[2];
  std::vector<int> deliveries_[2];
  std::mutex mutex_;
  std::int64_t own_memory_puts_ = 0;
  std::string problem_;
};

}  // namespace apsp::test
