// The device-resident result as the download (download.hpp) and the GPU
// certificate (verify.hpp) read it: an n x n block of a padded row-major
// matrix in the element type the solver left it in, plus the Johnson
// potentials that turn its values back into the graph's own distances.
// Host-only (no device code).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda {

// How the device matrix stores one entry.
enum class Stored {
  int32,    // dist_t with kInf for unreachable (and vertex_t for predecessors)
  int16,    // the int16 mode's matrix: values >= int16_infinity are unreachable
  float32,  // real-valued distances, +inf for unreachable (no potentials)
  float64,
};

// Rows 0..n-1, columns 0..n-1 of a device matrix with leading dimension ld
// (elements): entry (i, j) is at data + i * ld + j. With `width` > 0 each
// row holds that many values instead of n (columns gathered on the device,
// SolveOptions::targets): a plain int32 or real matrix, for the download only.
struct DeviceRows {
  const void* data = nullptr;
  Stored stored = Stored::int32;
  std::int64_t n = 0;
  std::int64_t ld = 0;              // >= n: n_pad, or the int16 matrix's own padding
  std::int32_t int16_infinity = 0;  // Stored::int16 only; 0 < it <= 32767
  std::int64_t width = 0;           // values a row holds; 0: n

  static DeviceRows of_int32(const std::int32_t* data, std::int64_t n, std::int64_t ld) {
    return DeviceRows{data, Stored::int32, n, ld, 0};
  }
  static DeviceRows of_int16(const std::int16_t* data, std::int64_t n, std::int64_t ld, std::int32_t infinity) {
    return DeviceRows{data, Stored::int16, n, ld, infinity};
  }
  static DeviceRows of_real(const float* data, std::int64_t n, std::int64_t ld) {
    return DeviceRows{data, Stored::float32, n, ld, 0};
  }
  static DeviceRows of_real(const double* data, std::int64_t n, std::int64_t ld) {
    return DeviceRows{data, Stored::float64, n, ld, 0};
  }
  std::int64_t columns() const { return width > 0 ? width : n; }
  bool real() const { return stored == Stored::float32 || stored == Stored::float64; }
  std::size_t element_bytes() const { return stored == Stored::int16 ? 2 : stored == Stored::float64 ? 8 : 4; }
};

// Throws UsageError (naming `who`) when `m` is not a readable matrix
// description: ld < n, no data for n > 0, an int16 infinity out of range.
void check_device_rows(const DeviceRows& m, const char* who);

// Johnson potentials h (int64), uploaded once per solve and shared by the
// download and the certificate: a stored finite value v at (i, j) is the
// graph's distance v - h[i] + h[j]. Empty when no reweighting took place.
class DevicePotentials {
 public:
  DevicePotentials() = default;
  // h is empty or holds one entry per vertex. The copy is ordered on `stream`.
  DevicePotentials(const std::vector<std::int64_t>& h, cudaStream_t stream);

  bool empty() const { return host_.empty(); }
  std::int64_t size() const { return static_cast<std::int64_t>(host_.size()); }
  const std::int64_t* device() const { return device_.get(); }     // nullptr when empty
  const std::vector<std::int64_t>& host() const { return host_; }  // the same values

 private:
  std::vector<std::int64_t> host_;
  DeviceBuffer<std::int64_t> device_;
};

// Where the production solver leaves a certified int16 result for the
// download to fetch as int16 (half the bytes over the link) instead of
// widening it into GpuProblem::dist (algorithm.hpp).
struct Int16Result {
  DeviceBuffer<std::int16_t> cells;  // n valid columns per row, leading dimension ld; kInf16 and above = unreachable
  std::int64_t ld = 0;
  std::int32_t infinity = 0;  // the int16 infinity the solver used
};

}  // namespace apsp::cuda
