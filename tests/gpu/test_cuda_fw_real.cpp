// The float32 phase-3 variants of the kernel ladder (cuda::fw_rounds_real,
// an internal module of the CUDA backend) against the production one, on the
// device. Exists only in CUDA builds; skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "apsp/cuda.hpp"
#include "core/cuda_check.hpp"
#include "cuda/fw_real.hpp"
#include "core/cuda_memory.hpp"
#include "gpu/device_fixtures.hpp"

namespace apsp {
namespace {

using test::round_up;

// Every float32 phase 3 of the kernel ladder (cuda::RealFwVariant) computes
// the same sums and takes the same minima, only in another order or with
// another register budget, so each must give the production result exactly
// (compared with ==: +0 and -0 are one distance). The matrix: n = 300 in a
// 384 x 384 padded one (three tiles, the last one partly padding), weights in
// [0, 50) with some zeros, about 97% of pairs without an edge, and vertices
// 250..299 reachable from nowhere else, so the result has finite and
// unreachable entries.
TEST(CudaFwReal, Float32PhaseThreeVariantsGiveTheProductionResultSanitize) {
  SKIP_WITHOUT_GPU();
  constexpr std::int64_t n = 300;
  const std::int64_t n_pad = round_up(n, cuda::real_fw_pad<float>());
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> input(static_cast<std::size_t>(n_pad * n_pad), inf);
  std::mt19937_64 random(20261125);
  std::uniform_real_distribution<float> weight(0.0f, 50.0f);
  std::uniform_int_distribution<int> percent(0, 99);
  for (std::int64_t i = 0; i < n_pad; ++i) input[static_cast<std::size_t>(i * n_pad + i)] = 0.0f;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j || (j >= 250 && i < 250) || percent(random) >= 3) continue;
      input[static_cast<std::size_t>(i * n_pad + j)] = percent(random) < 10 ? 0.0f : weight(random);
    }
  const auto solved = [&](cuda::RealFwVariant variant) {
    cuda::DeviceBuffer<float> d(input.size());
    cuda::Stream stream;
    APSP_CUDA_CHECK(cudaMemcpy(d.get(), input.data(), input.size() * sizeof(float), cudaMemcpyHostToDevice));
    cuda::fw_rounds_real(d.get(), n_pad, stream.get(), ProgressSpan{}, variant);
    stream.synchronize();
    std::vector<float> out(input.size());
    APSP_CUDA_CHECK(cudaMemcpy(out.data(), d.get(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return out;
  };
  const std::vector<float> production = solved(cuda::RealFwVariant::production);
  std::int64_t finite = 0, unreachable = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      (std::isinf(production[static_cast<std::size_t>(i * n_pad + j)]) ? unreachable : finite)++;
  EXPECT_GT(finite, n);
  EXPECT_GT(unreachable, n);
  for (const cuda::RealFwVariant variant : {cuda::RealFwVariant::load_c_first, cuda::RealFwVariant::one_block_per_sm,
                                            cuda::RealFwVariant::fold_c, cuda::RealFwVariant::fold_c_l1}) {
    SCOPED_TRACE(static_cast<int>(variant));
    const std::vector<float> got = solved(variant);
    std::int64_t differing = 0;
    for (std::size_t x = 0; x < got.size(); ++x) differing += got[x] == production[x] ? 0 : 1;
    EXPECT_EQ(differing, 0);
  }
}

}  // namespace
}  // namespace apsp
