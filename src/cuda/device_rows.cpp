#include "device_rows.hpp"

#include <string>

#include "apsp/error.hpp"
#include "core/cuda_check.hpp"

namespace apsp::cuda {

void check_device_rows(const DeviceRows& m, const char* who) {
  const std::string at = std::string(who) + ": ";
  if (m.n < 0 || (m.width == 0 && m.ld < m.n))
    throw UsageError(at + "a device matrix of " + std::to_string(m.n) + " rows needs a leading dimension >= n, got " +
                     std::to_string(m.ld));
  if (m.width < 0 || m.ld < m.columns())
    throw UsageError(at + "rows of " + std::to_string(m.columns()) + " values need a leading dimension >= that, got " +
                     std::to_string(m.ld));
  if (m.n > 0 && m.data == nullptr) throw UsageError(at + "no device matrix");
  if (m.stored == Stored::int16 && (m.int16_infinity <= 0 || m.int16_infinity > 32767))
    throw UsageError(at + "int16 infinity " + std::to_string(m.int16_infinity) + " is not in 1..32767");
}

DevicePotentials::DevicePotentials(const std::vector<std::int64_t>& h, cudaStream_t stream) : host_(h) {
  if (host_.empty()) return;
  device_ = DeviceBuffer<std::int64_t>(host_.size());
  APSP_CUDA_CHECK(cudaMemcpyAsync(device_.get(), host_.data(), host_.size() * sizeof(std::int64_t),
                                  cudaMemcpyHostToDevice, stream));
}

}  // namespace apsp::cuda
