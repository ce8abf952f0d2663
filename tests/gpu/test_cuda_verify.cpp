// The GPU certificate (src/cuda/gpu_verify.hpp) against the CPU verify: the
// same verdict and the same first-violation message on correct matrices and
// on corrupted ones, stored as int32 and int16, reweighted or not, with the
// row in shared or in global memory. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "cuda/gpu_verify.hpp"
#include "cuda/instance.hpp"
#include "core/cuda_memory.hpp"
#include "gpu/device_fixtures.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

using cuda::DevicePotentials;
using cuda::DeviceRows;
using cuda::RowPlacement;
using test::round_up;

// The production solver's int16 infinity (kernels/fw_production.cuh); the
// certificate takes any int16 infinity from the matrix description.
constexpr std::int16_t kInf16 = 16383;

// Checks the GPU verdict on `x` (a matrix in the graph's terms, as the CPU
// verify reads it) equals apsp::verify's: stored reweighted as the solver
// leaves it (finite x + h[i] - h[j]), in int32 and, when every stored value
// fits below kInf16, in int16, with both row placements.
void expect_same_verdict(const Graph& g, const std::vector<dist_t>& x, const std::string& what, cudaStream_t stream) {
  SCOPED_TRACE(what);
  const VerifyReport cpu = verify(g, x);
  const cuda::Reweighted rw = cuda::reweight(g);
  const std::vector<std::int64_t>& h = rw.potential;
  const DevicePotentials potentials(h, stream);
  const cuda::DeviceVerifier verifier(g, rw.edges, stream);
  const std::int64_t n = g.n;
  std::vector<std::int32_t> stored32(x.size());
  std::vector<std::int16_t> stored16(x.size());
  bool fits16 = true;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const auto at = static_cast<std::size_t>(i * n + j);
      if (x[at] == kInf) {
        stored32[at] = kInf;
        stored16[at] = kInf16;
        continue;
      }
      const std::int64_t m = std::int64_t{x[at]} + (h.empty() ? 0 : h[i] - h[j]);
      ASSERT_TRUE(m >= INT32_MIN && m <= INT32_MAX) << "a stored value must fit int32";
      stored32[at] = static_cast<std::int32_t>(m);
      fits16 = fits16 && m >= INT16_MIN && m < kInf16;
      stored16[at] = static_cast<std::int16_t>(fits16 ? m : 0);
    }
  const std::int64_t ld = round_up(n, 128);
  const cuda::DeviceBuffer<std::int32_t> device32 = test::upload_padded<std::int32_t>(stored32, n, ld, -3);
  const cuda::DeviceBuffer<std::int16_t> device16 = test::upload_padded<std::int16_t>(stored16, n, ld, -3);
  for (RowPlacement placement : {RowPlacement::automatic, RowPlacement::global_memory}) {
    const char* where = placement == RowPlacement::automatic ? "row in shared memory" : "row in global memory";
    const VerifyReport gpu32 =
        verifier.verify(DeviceRows::of_int32(device32.get(), n, ld), potentials, stream, placement);
    EXPECT_EQ(gpu32.ok, cpu.ok) << "int32, " << where;
    EXPECT_EQ(gpu32.first_violation, cpu.first_violation) << "int32, " << where;
    if (!fits16) continue;
    const VerifyReport gpu16 =
        verifier.verify(DeviceRows::of_int16(device16.get(), n, ld, kInf16), potentials, stream, placement);
    EXPECT_EQ(gpu16.ok, cpu.ok) << "int16, " << where;
    EXPECT_EQ(gpu16.first_violation, cpu.first_violation) << "int16, " << where;
  }
}

// The first entry (i, j), rows scanned from n / 2 on and then from 0, that
// satisfies `wanted`; {-1, -1} if none. Starting mid-matrix makes the
// lowest failing row one that many blocks race past.
std::pair<std::int64_t, std::int64_t> find_entry(
    const std::vector<dist_t>& x, std::int64_t n,
    const std::function<bool(std::int64_t, std::int64_t, dist_t)>& wanted) {
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t i = (n / 2 + k) % n;
    for (std::int64_t j = 0; j < n; ++j)
      if (wanted(i, j, x[static_cast<std::size_t>(i * n + j)])) return {i, j};
  }
  return {-1, -1};
}

struct Corruption {
  const char* name;
  // Changes x (exact distances) so that the CPU verify must reject it;
  // false when the matrix has no entry to corrupt this way.
  std::function<bool(std::vector<dist_t>&, std::int64_t)> apply;
};

bool finite_off_diagonal(std::int64_t i, std::int64_t j, dist_t v) { return i != j && v != kInf; }

const std::vector<Corruption>& corruptions() {
  static const std::vector<Corruption> all = {
      {"a raised entry",
       [](std::vector<dist_t>& x, std::int64_t n) {
         const auto [i, j] = find_entry(x, n, finite_off_diagonal);
         if (i < 0) return false;
         x[static_cast<std::size_t>(i * n + j)] += 1;
         return true;
       }},
      {"a lowered entry",
       [](std::vector<dist_t>& x, std::int64_t n) {
         const auto [i, j] = find_entry(x, n, finite_off_diagonal);
         if (i < 0) return false;
         x[static_cast<std::size_t>(i * n + j)] -= 1;
         return true;
       }},
      {"a nonzero diagonal",
       [](std::vector<dist_t>& x, std::int64_t n) {
         x[static_cast<std::size_t>(n / 2 * n + n / 2)] = 1;
         return true;
       }},
      {"a finite entry where no path exists",
       [](std::vector<dist_t>& x, std::int64_t n) {
         const auto [i, j] = find_entry(x, n, [](std::int64_t, std::int64_t, dist_t v) { return v == kInf; });
         if (i < 0) return false;
         x[static_cast<std::size_t>(i * n + j)] = 5;
         return true;
       }},
      {"INF where a path exists",
       [](std::vector<dist_t>& x, std::int64_t n) {
         const auto [i, j] = find_entry(x, n, finite_off_diagonal);
         if (i < 0) return false;
         x[static_cast<std::size_t>(i * n + j)] = kInf;
         return true;
       }},
      // Every finite entry of row i from d[i][j] up (but d[i][i]) lowered by
      // one: relaxation still holds, but no tight edge enters that set, so
      // none of it is reached; on a zero-weight cycle its members still
      // prop each other up with tight in-edges.
      {"values propped up without a path",
       [](std::vector<dist_t>& x, std::int64_t n) {
         const auto [i, j] = find_entry(x, n, finite_off_diagonal);
         if (i < 0) return false;
         const dist_t from = x[static_cast<std::size_t>(i * n + j)];
         for (std::int64_t v = 0; v < n; ++v) {
           dist_t& e = x[static_cast<std::size_t>(i * n + v)];
           if (v != i && e != kInf && e >= from) e -= 1;
         }
         return true;
       }},
  };
  return all;
}

std::vector<test::Case> zero_weight_cycle_cases() {
  std::vector<test::Case> cases;
  for (std::uint64_t seed : {21, 22, 23}) {
    GenerateOptions o;
    o.kind = GraphKind::random;
    o.n = 150 + static_cast<std::int64_t>(seed);
    o.m = 6 * o.n;
    o.w_lo = seed == 23 ? -2 : 0;  // with negative weights: zero-weight cycles after reweighting
    o.w_hi = 1;
    o.seed = seed;
    cases.push_back(test::Case{"zero-one_seed" + std::to_string(seed), generate(o)});
  }
  return cases;
}

TEST(CudaVerify, StandardCasesPass) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  for (const test::Case& c : test::standard_cases()) {
    const Graph g = normalize(c.graph);
    const std::vector<dist_t> x = test::reference_distances(g);
    ASSERT_TRUE(verify(g, x).ok) << c.name;
    expect_same_verdict(g, x, c.name, stream.get());
  }
}

TEST(CudaVerify, CorruptionsGetTheCpuVerdictAndMessage) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  std::vector<test::Case> cases = test::standard_cases();
  for (test::Case& c : zero_weight_cycle_cases()) cases.push_back(std::move(c));
  for (const test::Case& c : cases) {
    const Graph g = normalize(c.graph);
    if (g.n < 2) continue;
    const std::vector<dist_t> exact = test::reference_distances(g);
    for (const Corruption& k : corruptions()) {
      std::vector<dist_t> x = exact;
      if (!k.apply(x, g.n)) continue;
      ASSERT_FALSE(verify(g, x).ok) << c.name << ": " << k.name << " must be a violation";
      expect_same_verdict(g, x, c.name + ": " + k.name, stream.get());
    }
  }
}

// A value above kInf is "neither a distance nor INF" (int32 storage, no
// potentials: the value reaches the CPU check as it is).
TEST(CudaVerify, ValueAboveInfinity) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  for (const test::Case& c : test::tile_cases()) {
    const Graph g = normalize(c.graph);
    if (weight_stats(g).has_negative()) continue;
    std::vector<dist_t> x = test::reference_distances(g);
    const auto [i, j] = find_entry(x, g.n, finite_off_diagonal);
    ASSERT_GE(i, 0);
    x[static_cast<std::size_t>(i * g.n + j)] = kInf + 5;
    ASSERT_NE(verify(g, x).first_violation.find("neither a distance nor INF"), std::string::npos);
    expect_same_verdict(g, x, c.name, stream.get());
  }
}

// Vertices 2 and 3 close a zero-weight cycle entered only by 0 -> 2. With
// row 0 lowered from vertex 2 on, every edge stays relaxed and 2 and 3 keep
// tight in-edges from each other, yet no path from 0 attains them.
TEST(CudaVerify, ZeroWeightCyclePropUp) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  for (bool negative : {false, true}) {
    Graph g;
    g.n = 6;
    g.edges = {{0, 1, 1}, {0, 2, 5}, {2, 3, negative ? -4 : 0}, {3, 2, negative ? 4 : 0}, {2, 4, 10}, {3, 5, 1}};
    g = normalize(g);
    const std::vector<dist_t> exact = test::reference_distances(g);
    expect_same_verdict(g, exact, negative ? "exact, negative" : "exact", stream.get());
    std::vector<dist_t> x = exact;
    for (std::int64_t v = 2; v < 6; ++v) x[static_cast<std::size_t>(v)] -= 1;
    const VerifyReport cpu = verify(g, x);
    ASSERT_NE(cpu.first_violation.find("zero-weight cycle"), std::string::npos) << cpu.first_violation;
    expect_same_verdict(g, x, negative ? "propped up, negative" : "propped up", stream.get());
    const cuda::Reweighted rw = cuda::reweight(g);
    EXPECT_TRUE(cuda::DeviceVerifier(g, rw.edges, stream.get()).has_zero_weight_cycle());
  }
  // A zero-weight edge on no cycle leaves every component one vertex.
  Graph acyclic_zero;
  acyclic_zero.n = 4;
  acyclic_zero.edges = {{0, 1, 0}, {1, 2, 0}, {2, 3, 1}, {3, 1, 2}};
  EXPECT_FALSE(cuda::DeviceVerifier(acyclic_zero, acyclic_zero.edges, stream.get()).has_zero_weight_cycle());
}

// The production solver's device-resident result passes; one raised entry on
// the device gets the CPU verify's message for the same change.
TEST(CudaVerify, ProductionSolverResult) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) {
    SCOPED_TRACE(c.name);
    const Graph g = normalize(c.graph);
    const test::SolvedOnDevice solved(g);
    const DevicePotentials potentials(solved.reweighted().potential, solved.stream());
    const cuda::DeviceVerifier verifier(g, solved.reweighted().edges, solved.stream());
    const VerifyReport clean = verifier.verify(solved.rows(), potentials, solved.stream());
    EXPECT_TRUE(clean.ok) << clean.first_violation;

    std::vector<dist_t> x = test::reference_distances(g);
    const auto [i, j] = find_entry(x, g.n, finite_off_diagonal);
    ASSERT_GE(i, 0);
    x[static_cast<std::size_t>(i * g.n + j)] += 1;
    dist_t stored = 0;
    APSP_CUDA_CHECK(cudaMemcpy(&stored, solved.cell(i, j), sizeof stored, cudaMemcpyDeviceToHost));
    ++stored;
    APSP_CUDA_CHECK(cudaMemcpy(solved.cell(i, j), &stored, sizeof stored, cudaMemcpyHostToDevice));
    const VerifyReport cpu = verify(g, x);
    ASSERT_FALSE(cpu.ok);
    const VerifyReport gpu = verifier.verify(solved.rows(), potentials, solved.stream());
    EXPECT_FALSE(gpu.ok);
    EXPECT_EQ(gpu.first_violation, cpu.first_violation);
  }
}

// A failing row whose distance leaves int32 once the potentials are undone
// (test::overflow_potentials): the same OverflowError the download gives,
// not a verify message.
TEST(CudaVerify, OverflowInTheFailingRow) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  Graph g;
  g.n = 100;
  const std::int64_t ld = 128;
  std::vector<dist_t> stored(static_cast<std::size_t>(g.n * g.n), kInf);
  for (std::int64_t v = 0; v < g.n; ++v) stored[static_cast<std::size_t>(v * g.n + v)] = 0;
  stored[61 * 100 + 77] = 12;
  const DevicePotentials potentials(test::overflow_potentials(g.n), stream.get());
  const cuda::DeviceBuffer<dist_t> device = test::upload_padded<dist_t>(stored, g.n, ld, -3);
  test::expect_overflow_at_61_77([&] {
    cuda::verify_on_device(g, g.edges, DeviceRows::of_int32(device.get(), g.n, ld), potentials, stream.get());
  });
}

TEST(CudaVerify, EmptyAndBadDescriptions) {
  SKIP_WITHOUT_GPU();
  cuda::Stream stream;
  Graph empty;
  EXPECT_TRUE(cuda::verify_on_device(empty, {}, DeviceRows::of_int32(nullptr, 0, 0), {}, stream.get()).ok);
  Graph g;
  g.n = 3;
  g.edges = {{0, 1, 2}};
  EXPECT_THROW(cuda::DeviceVerifier(g, {{0, 1, -2}}, stream.get()), UsageError);
  const cuda::DeviceBuffer<dist_t> device(16);
  EXPECT_THROW(cuda::verify_on_device(g, g.edges, DeviceRows::of_int32(device.get(), 4, 4), {}, stream.get()),
               UsageError);
  EXPECT_THROW(cuda::verify_on_device(g, g.edges, DeviceRows::of_int32(device.get(), 3, 2), {}, stream.get()),
               UsageError);
}

}  // namespace
}  // namespace apsp
