// The supernodal factor's dense rounds as ONE persistent launch
// (cuda/persistent_rounds.hpp, kernels/supernodal/persistent_rounds.cuh)
// against fw's rounds bit for bit: on blocks of orders around the 128 tile up
// to the largest (2048), with +inf, zero and negative entries (no negative
// cycles), whole fronts (k pivots of k + s) and diagonal blocks inside a
// wider row stride (cells outside the block untouched); int32 and float32.
// Then the supernodal solve with it (testing::hooks.supernodal_persistent_rounds)
// on every dense factor path against the default path's rows and the CPU
// solver, and a small case for compute-sanitizer. The squaring closure
// (squaring_front_closure, kernels/supernodal/squaring_closure.cuh) the same
// way: bit for bit fw's closure of a diagonal block, and the solve with it
// (testing::hooks.supernodal_squaring_closure) equal to the default's. The
// blocked closure (BlockedClosure, kernels/supernodal/blocked_closure.cuh)
// too: bit for bit fw's closure on blocks above the squaring closure's
// default (and small ones with small leaves, so that it recurses), and the
// solve with it (testing::hooks.supernodal_blocked_closure, thresholds
// lowered so that small graphs' fronts take it) equal to the default's.
// Skips without a CUDA device.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <random>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/registry.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/fw_real.hpp"
#include "cuda/persistent_rounds.hpp"
#include "cuda/testing.hpp"
#include "gpu_support.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

constexpr std::int64_t kTile = 128;

std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

template <class D>
D infinity() {
  if constexpr (std::is_same<D, float>::value)
    return std::numeric_limits<float>::infinity();
  else
    return kInf;
}

// A front's block: rows of `ld` cells, the block (k + s) x (k + s) in the
// top left; cells right of the block hold a sentinel (-7) that no round may
// change. Entries: w(i, j) + p(i) - p(j) with w >= 0 (some zero) and
// potentials p in [0, 30], so some are negative and no cycle is; +inf for
// about half of the pairs (and whole rows and columns of a few vertices);
// 0 on the diagonal.
template <class D>
std::vector<D> random_block(std::int64_t k, std::int64_t s, std::int64_t ld, std::uint64_t seed) {
  const std::int64_t m = k + s;
  std::vector<D> cells(static_cast<std::size_t>(m * ld), D(-7));
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> weight(0, 40), potential(0, 30), percent(0, 99);
  std::vector<int> p(static_cast<std::size_t>(m));
  std::vector<bool> cut(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) {
    p[static_cast<std::size_t>(i)] = potential(random);
    cut[static_cast<std::size_t>(i)] = percent(random) < 3;
  }
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      D& at = cells[static_cast<std::size_t>(i * ld + j)];
      if (i == j) {
        at = D(0);
      } else if (cut[static_cast<std::size_t>(i)] || cut[static_cast<std::size_t>(j)] || percent(random) < 50) {
        at = infinity<D>();
      } else {
        const int w = percent(random) < 10 ? 0 : weight(random);
        at = D(w + p[static_cast<std::size_t>(i)] - p[static_cast<std::size_t>(j)]);
      }
    }
  return cells;
}

// fw's rounds on the block as the supernodal factor pads it
// (kernels/supernodal/fronts.cuh, pad_front / unpad_front): pivots first,
// padded to the tile, then the other s indices; padding isolated.
void reference_rounds(std::int32_t* d, std::int64_t n_pad, std::int64_t rounds, cudaStream_t stream) {
  cuda::fw_rounds_int32(d, n_pad, stream, ProgressSpan{}, rounds);
}
void reference_rounds(float* d, std::int64_t n_pad, std::int64_t rounds, cudaStream_t stream) {
  cuda::fw_rounds_real(d, n_pad, stream, ProgressSpan{}, cuda::RealFwVariant::production, rounds);
}
template <class D>
std::vector<D> through_fw_rounds(const std::vector<D>& cells, std::int64_t k, std::int64_t s, std::int64_t ld) {
  const std::int64_t k_pad = round_up(k, kTile), n_pad = round_up(k_pad + s, kTile);
  auto padded_index = [&](std::int64_t f) { return f < k ? f : k_pad + (f - k); };
  std::vector<D> padded(static_cast<std::size_t>(n_pad * n_pad), infinity<D>());
  for (std::int64_t i = 0; i < n_pad; ++i) padded[static_cast<std::size_t>(i * n_pad + i)] = D(0);
  for (std::int64_t i = 0; i < k + s; ++i)
    for (std::int64_t j = 0; j < k + s; ++j)
      padded[static_cast<std::size_t>(padded_index(i) * n_pad + padded_index(j))] =
          cells[static_cast<std::size_t>(i * ld + j)];
  cuda::DeviceBuffer<D> d(padded.size());
  cuda::Stream stream;
  APSP_CUDA_CHECK(cudaMemcpy(d.get(), padded.data(), padded.size() * sizeof(D), cudaMemcpyHostToDevice));
  reference_rounds(d.get(), n_pad, k_pad / kTile, stream.get());
  stream.synchronize();
  APSP_CUDA_CHECK(cudaMemcpy(padded.data(), d.get(), padded.size() * sizeof(D), cudaMemcpyDeviceToHost));
  std::vector<D> out = cells;
  for (std::int64_t i = 0; i < k + s; ++i)
    for (std::int64_t j = 0; j < k + s; ++j)
      out[static_cast<std::size_t>(i * ld + j)] =
          padded[static_cast<std::size_t>(padded_index(i) * n_pad + padded_index(j))];
  return out;
}

void persistent_rounds(std::int32_t* front, std::int64_t k, std::int64_t s, std::int64_t ld, std::int32_t* padded,
                       std::int32_t* panels, cudaStream_t stream, int tile) {
  cuda::persistent_front_rounds(front, k, s, ld, padded, panels, stream, tile);
}
void persistent_rounds(float* front, std::int64_t k, std::int64_t s, std::int64_t ld, float* padded,
                       std::int32_t* panels, cudaStream_t stream, int) {
  cuda::persistent_front_rounds(front, k, s, ld, padded, panels, stream);
}
template <class D>
std::vector<D> through_persistent_rounds(const std::vector<D>& cells, std::int64_t k, std::int64_t s, std::int64_t ld,
                                         int tile) {
  const std::int64_t n_pad = cuda::persistent_rounds_pad(k, s, tile);
  cuda::DeviceBuffer<D> front(cells.size()), padded(static_cast<std::size_t>(n_pad * n_pad));
  cuda::DeviceBuffer<std::int32_t> panels(static_cast<std::size_t>(cuda::fw_panel_words(n_pad)));
  cuda::Stream stream;
  APSP_CUDA_CHECK(cudaMemcpy(front.get(), cells.data(), cells.size() * sizeof(D), cudaMemcpyHostToDevice));
  persistent_rounds(front.get(), k, s, ld, padded.get(), panels.get(), stream.get(), tile);
  stream.synchronize();
  std::vector<D> out(cells.size());
  APSP_CUDA_CHECK(cudaMemcpy(out.data(), front.get(), out.size() * sizeof(D), cudaMemcpyDeviceToHost));
  return out;
}

struct FrontBlock {
  std::int64_t k, s, ld;
};

std::string describe(const FrontBlock& b) {
  return "k " + std::to_string(b.k) + " s " + std::to_string(b.s) + " ld " + std::to_string(b.ld);
}

// Every cell of `got` equal to `expected`'s; the rounds changed some cell of
// `cells` and some result is negative (else the case would test less).
template <class D>
void expect_same_cells(const std::vector<D>& cells, const std::vector<D>& expected, const std::vector<D>& got,
                       const FrontBlock& b) {
  ASSERT_EQ(got.size(), expected.size());
  std::int64_t differing = 0, changed = 0, negative = 0;
  std::size_t first = got.size();
  for (std::size_t x = 0; x < got.size(); ++x) {
    if (!(got[x] == expected[x])) {
      ++differing;
      if (first == got.size()) first = x;
    }
    changed += expected[x] == cells[x] ? 0 : 1;
    negative += expected[x] < D(0) ? 1 : 0;
  }
  EXPECT_EQ(differing, 0) << "first at row " << first / static_cast<std::size_t>(b.ld) << " column "
                          << first % static_cast<std::size_t>(b.ld);
  // A few cells can be closed already by chance (k = 3 was, on an H100);
  // from 16 vertices on the random block never is.
  if (b.k + b.s >= 16) EXPECT_GT(changed, 0) << "the input was already closed: the case tests nothing";
  if (b.k + b.s >= 16) EXPECT_GT(negative, 0);
}

// Both ways on the block; every cell equal (int32 bit for bit; float32 by
// ==, +0 and -0 being one distance), and the rounds changed something.
// int32 on both tiles (128 and 64), float32 on 128.
template <class D>
void expect_same_as_fw_rounds(const FrontBlock& b, std::uint64_t seed) {
  const std::vector<D> cells = random_block<D>(b.k, b.s, b.ld, seed);
  const std::vector<D> expected = through_fw_rounds(cells, b.k, b.s, b.ld);
  for (const int tile : {128, 64}) {
    if (tile == 64 && !std::is_same<D, std::int32_t>::value) continue;
    SCOPED_TRACE(describe(b) + " tile " + std::to_string(tile));
    expect_same_cells(cells, expected, through_persistent_rounds(cells, b.k, b.s, b.ld, tile), b);
  }
}

// The closure of a k x k block (s = 0) at the orders around the tile the
// brief names (1 .. 2048: 1 to 16 tiles, the last partly padding), in its
// own stride and inside a wider one (the batched factor's diagonal blocks).
TEST(GpuSupernodalClosure, PersistentRoundsMatchFwRoundsBitForBit) {
  SKIP_WITHOUT_GPU();
  if (!cuda::persistent_rounds_fit(cuda::kPersistentRoundsMaxPad)) GTEST_SKIP() << "no cooperative launch here";
  std::uint64_t seed = 2100;
  for (const std::int64_t m : {1, 2, 127, 128, 129, 255, 1000, 1305, 2048})
    expect_same_as_fw_rounds<std::int32_t>({m, 0, m}, ++seed);
  for (const FrontBlock& b : {FrontBlock{129, 0, 300}, FrontBlock{1305, 0, 1731}, FrontBlock{3, 0, 5}})
    expect_same_as_fw_rounds<std::int32_t>(b, ++seed);
}

// Whole fronts (v6: the first k pivots of k + s, the structure after the
// pivots' padding), and the largest that fits (1000 + 1024: 1024 + 1024 padded).
TEST(GpuSupernodalClosure, PersistentRoundsOnWholeFrontsMatchFwRounds) {
  SKIP_WITHOUT_GPU();
  if (!cuda::persistent_rounds_fit(cuda::kPersistentRoundsMaxPad)) GTEST_SKIP() << "no cooperative launch here";
  std::uint64_t seed = 2200;
  for (const FrontBlock& b : {FrontBlock{150, 276, 426}, FrontBlock{129, 1000, 1129}, FrontBlock{1, 127, 128},
                              FrontBlock{1000, 1024, 2024}, FrontBlock{64, 1, 65}})
    expect_same_as_fw_rounds<std::int32_t>(b, ++seed);
}

TEST(GpuSupernodalClosure, PersistentRoundsFloat32MatchFwRounds) {
  SKIP_WITHOUT_GPU();
  if (!cuda::persistent_rounds_fit(cuda::kPersistentRoundsMaxPad)) GTEST_SKIP() << "no cooperative launch here";
  std::uint64_t seed = 2300;
  for (const FrontBlock& b : {FrontBlock{129, 0, 129}, FrontBlock{1000, 0, 1200}, FrontBlock{200, 300, 500}})
    expect_same_as_fw_rounds<float>(b, ++seed);
}

// Past the largest block: no fit, and a direct call is refused before any work.
TEST(GpuSupernodalClosure, PersistentRoundsRefuseBlocksPastTheLargest) {
  SKIP_WITHOUT_GPU();
  EXPECT_FALSE(cuda::persistent_rounds_fit(cuda::kPersistentRoundsMaxPad + kTile));
  EXPECT_EQ(cuda::persistent_rounds_pad(2049, 0), 2176);
  EXPECT_EQ(cuda::persistent_rounds_pad(1, 1), 256);
  EXPECT_EQ(cuda::persistent_rounds_pad(1, 1, 64), 128);
  EXPECT_EQ(cuda::persistent_rounds_pad(150, 276, 64), 512);
  EXPECT_THROW(cuda::persistent_rounds_pad(1, 1, 96), UsageError);
  cuda::Stream stream;
  EXPECT_THROW(cuda::persistent_front_rounds(static_cast<std::int32_t*>(nullptr), 2049, 0, 2049, nullptr, nullptr,
                                             stream.get()),
               UsageError);
  EXPECT_THROW(cuda::persistent_front_rounds(static_cast<std::int32_t*>(nullptr), 100, 10, 100, nullptr, nullptr,
                                             stream.get()),
               UsageError);
  EXPECT_THROW(cuda::persistent_front_rounds(static_cast<std::int32_t*>(nullptr), 2049, 0, 2049, nullptr, nullptr,
                                             stream.get(), 64),
               UsageError);
  EXPECT_THROW(cuda::persistent_front_rounds(static_cast<std::int32_t*>(nullptr), 100, 0, 100, nullptr, nullptr,
                                             stream.get(), 32),
               UsageError);
}

// The solve with the persistent rounds through the default path (int32:
// the merged chains), v6, batched and tiled, each bit for bit the default
// path's rows without them (and with predecessors, valid trees),
// and the CPU solver's; the persistent rounds must have taken fronts.
void expect_persistent_paths_match(const test::Case& c, bool force_dense) {
  SCOPED_TRACE(c.name);
  test::IntHook dense(cuda::testing::hooks.supernodal_dense_columns, force_dense ? 4 : 0);
  // The squaring closure (the default for blocks of <= 640 columns) off, so
  // that every dense block's rounds are fw's launches or the persistent ones.
  test::IntHook no_squaring(cuda::testing::hooks.supernodal_squaring_closure, 0);
  // The blocked closure (the default above 640 columns) off too.
  test::IntHook no_blocked(cuda::testing::hooks.supernodal_blocked_closure, 0);
  const SolveResult plain = solve(c.graph, test::on_gpu("supernodal"));
  if (test::cpu_algorithm_available("supernodal")) {
    SolveOptions cpu;
    cpu.backend = Backend::cpu;
    cpu.algorithm = "supernodal";
    EXPECT_EQ(test::first_difference(solve(c.graph, cpu).dist, plain.dist, c.graph.n), "");
  }
  for (const int tile : {128, 64}) {
    test::IntHook persistent(cuda::testing::hooks.supernodal_persistent_rounds, tile);
    const std::int64_t before = cuda::testing::hooks.supernodal_persistent_fronts;
    for (const char* path : {"default", "v6", "batched", "tiled"}) {
      SCOPED_TRACE(std::string(path) + " tile " + std::to_string(tile));
      cuda::testing::hooks.supernodal_v6_factor = std::string(path) == "v6";
      cuda::testing::hooks.supernodal_batched_factor = std::string(path) == "batched";
      cuda::testing::hooks.supernodal_tiled_factor = std::string(path) == "tiled";
      const SolveResult r = solve(c.graph, test::on_gpu("supernodal"));
      EXPECT_EQ(test::first_difference(plain.dist, r.dist, c.graph.n), "");
      const SolveResult with_pred = solve(c.graph, test::on_gpu("supernodal", Precision::automatic, true));
      EXPECT_EQ(test::first_difference(plain.dist, with_pred.dist, c.graph.n), "");
      EXPECT_EQ(test::check_predecessors(c.graph, with_pred.dist, with_pred.pred), "");
    }
    cuda::testing::hooks.supernodal_v6_factor = false;
    cuda::testing::hooks.supernodal_batched_factor = false;
    cuda::testing::hooks.supernodal_tiled_factor = false;
    EXPECT_GT(cuda::testing::hooks.supernodal_persistent_fronts, before);
  }
}

// R-MAT and uniform have dense fronts of their own (some of >= 1024
// vertices); the grid and the geometric graph get them by the hook.
TEST(GpuSupernodalClosure, SolveWithPersistentRoundsMatchesEveryPathAndTheCpuSolver) {
  SKIP_WITHOUT_GPU();
  if (!cuda::persistent_rounds_fit(cuda::kPersistentRoundsMaxPad)) GTEST_SKIP() << "no cooperative launch here";
  expect_persistent_paths_match({"rmat_n4096", test::generated(GraphKind::rmat, 4096, 8 * 4096, 0, 30, 51)}, false);
  expect_persistent_paths_match({"random_n4096", test::generated(GraphKind::random, 4096, 8 * 4096, -2, 60, 52)},
                                false);
  expect_persistent_paths_match({"grid_n2500", test::generated(GraphKind::grid, 2500, 0, 1, 50, 53)}, true);
  expect_persistent_paths_match({"geometric_n3000", test::generated(GraphKind::geometric, 3000, 0, 1, 100, 54)}, true);
}

// float32 rows with the hook set keep fw's launches (no front takes the
// persistent rounds: on an H100 their v6 solve gave 1849 entries other than
// without the hook) and stay within the tests' float32 tolerance of the
// exact reference, v6 and batched, whatever tile is asked. (Not "equal to the
// solve without the hook": two float32 supernodal solves of this graph, the
// same path, differed in 3533 entries on the H100: the float32 solve is not
// bit-reproducible from run to run.)
TEST(GpuSupernodalClosure, Float32SolveWithPersistentRoundsMatches) {
  SKIP_WITHOUT_GPU();
  if (!cuda::persistent_rounds_fit(cuda::kPersistentRoundsMaxPad)) GTEST_SKIP() << "no cooperative launch here";
  const test::Case c{"random_n2048", test::generated(GraphKind::random, 2048, 8 * 2048, 1, 60, 55)};
  const test::RealCase<float> rc = test::real_case<float>(c);
  const std::int64_t n = rc.graph.n;
  for (const bool batched : {false, true}) {
    SCOPED_TRACE(batched ? "batched" : "v6");
    cuda::testing::hooks.supernodal_batched_factor = batched;
    for (const int tile : {128, 64}) {
      SCOPED_TRACE(tile);
      SolveResultF32 with;
      const std::int64_t fronts = cuda::testing::hooks.supernodal_persistent_fronts;
      {
        test::IntHook persistent(cuda::testing::hooks.supernodal_persistent_rounds, tile);
        with = solve(rc.graph, test::on_gpu("supernodal"));
      }
      // float32 rows keep fw's launches (the persistent rounds are int32's).
      EXPECT_EQ(cuda::testing::hooks.supernodal_persistent_fronts, fronts);
      const std::vector<double> d(with.dist.begin(), with.dist.end());
      EXPECT_EQ(test::first_real_difference(rc.reference, d, n, test::max_abs_weight(rc.exact),
                                            test::test_relative_tolerance<float>(n)),
                "");
    }
  }
  cuda::testing::hooks.supernodal_batched_factor = false;
}

// The squaring closure of a k x k block in a row stride of ld (cells right
// of the block untouched), and the squarings it ran.
std::vector<std::int32_t> through_squaring(const std::vector<std::int32_t>& cells, std::int64_t k, std::int64_t ld,
                                           int* squarings) {
  const std::int64_t k_pad = cuda::squaring_closure_pad(k);
  cuda::DeviceBuffer<std::int32_t> front(cells.size()), padded(static_cast<std::size_t>(k_pad * k_pad)),
      flags(static_cast<std::size_t>(cuda::kSquaringClosureFlagWords));
  cuda::Stream stream;
  APSP_CUDA_CHECK(cudaMemcpy(front.get(), cells.data(), cells.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  cuda::squaring_front_closure(front.get(), k, ld, padded.get(), flags.get(), stream.get());
  *squarings = cuda::squaring_closure_squarings(flags.get(), stream.get());
  std::vector<std::int32_t> out(cells.size());
  APSP_CUDA_CHECK(cudaMemcpy(out.data(), front.get(), out.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  return out;
}

// ceil(log2 k), at least 1.
int squarings_bound(std::int64_t k) {
  int t = 1;
  while ((std::int64_t{1} << t) < k) ++t;
  return t;
}

// The squaring closure of `cells` bit for bit fw's rounds' on the same
// block; returns the squarings it ran (1 .. the bound).
int expect_squaring_same_as_fw(const std::vector<std::int32_t>& cells, const FrontBlock& b) {
  SCOPED_TRACE(describe(b) + " squaring");
  const std::vector<std::int32_t> expected = through_fw_rounds(cells, b.k, 0, b.ld);
  int squarings = -1;
  expect_same_cells(cells, expected, through_squaring(cells, b.k, b.ld, &squarings), b);
  EXPECT_GE(squarings, 1);
  EXPECT_LE(squarings, squarings_bound(b.k));
  return squarings;
}

// Random blocks (+inf entries and whole +inf rows and columns, zero weights,
// negative entries without negative cycles) of the orders the brief names,
// around the 32 tile and up to the solver's default largest k, in their own
// row stride and in wider ones.
TEST(GpuSupernodalClosure, SquaringClosureMatchesFwBitForBit) {
  SKIP_WITHOUT_GPU();
  if (!cuda::squaring_closure_fit()) GTEST_SKIP() << "no cooperative launch here";
  std::uint64_t seed = 2500;
  for (const std::int64_t k : {1, 2, 31, 32, 33, 150, 256, 640}) {
    ++seed;
    expect_squaring_same_as_fw(random_block<std::int32_t>(k, 0, k, seed), {k, 0, k});
  }
  for (const FrontBlock& b : {FrontBlock{33, 0, 37}, FrontBlock{150, 0, 426}, FrontBlock{256, 0, 1305}})
    expect_squaring_same_as_fw(random_block<std::int32_t>(b.k, 0, b.ld, ++seed), b);
}

// A block whose shortest paths need every hop: a path 0 -> 1 -> ... -> k - 1
// of weights 0 and 1 under random edges of at least 2 k (shifted by
// potentials, so some entries are negative), so the distance from
// 0 to k - 1 takes k - 1 hops: the bound's squarings are needed (at most
// ceil(log2 k) of them run). Its closed result, closed again, changes
// nothing: one squaring, then the flag stops it.
TEST(GpuSupernodalClosure, SquaringClosureRunsTheBoundOnALongPathAndStopsOnAClosedBlock) {
  SKIP_WITHOUT_GPU();
  if (!cuda::squaring_closure_fit()) GTEST_SKIP() << "no cooperative launch here";
  for (const std::int64_t k : {33, 256, 600}) {
    const std::int64_t ld = k + 3;
    std::vector<std::int32_t> cells(static_cast<std::size_t>(k * ld), -7);
    std::mt19937_64 random(static_cast<std::uint64_t>(2600 + k));
    std::uniform_int_distribution<int> heavy(static_cast<int>(2 * k), static_cast<int>(3 * k)), percent(0, 99),
        potential(0, 30);
    std::vector<int> p(static_cast<std::size_t>(k));
    for (int& at : p) at = potential(random);
    // w(i, j) + p(i) - p(j): some entries negative, no cycle negative, the
    // same shortest paths.
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t j = 0; j < k; ++j) {
        const int w = j == i + 1 ? static_cast<int>(i % 2) : percent(random) < 20 ? heavy(random) : -1;
        cells[static_cast<std::size_t>(i * ld + j)] = i == j  ? 0
                                                      : w < 0 ? kInf
                                                              : w + p[static_cast<std::size_t>(i)] -
                                                                    p[static_cast<std::size_t>(j)];
      }
    const FrontBlock b{k, 0, ld};
    // The first squaring lowers cells, so a second runs (in place, a
    // squaring may reach more than twice the hops, so not necessarily all).
    EXPECT_GE(expect_squaring_same_as_fw(cells, b), 2);
    int once = -1;
    const std::vector<std::int32_t> closed = through_squaring(cells, k, ld, &once);
    int twice = -1;
    EXPECT_EQ(through_squaring(closed, k, ld, &twice), closed);
    EXPECT_EQ(twice, 1);
  }
}

TEST(GpuSupernodalClosure, SquaringClosureRefusesWhatItCannotTake) {
  SKIP_WITHOUT_GPU();
  // The solver's default (testing.hpp spells the number; this is its check).
  EXPECT_EQ(cuda::testing::hooks.supernodal_squaring_closure.load(), cuda::kSquaringClosureDefaultMaxK);
  EXPECT_EQ(cuda::squaring_closure_pad(1), 32);
  EXPECT_EQ(cuda::squaring_closure_pad(33), 64);
  EXPECT_EQ(cuda::squaring_closure_pad(640), 640);
  cuda::Stream stream;
  EXPECT_THROW(cuda::squaring_front_closure(nullptr, cuda::kSquaringClosureMaxK + 1, 4096, nullptr, nullptr,
                                            stream.get()),
               UsageError);
  EXPECT_THROW(cuda::squaring_front_closure(nullptr, 100, 99, nullptr, nullptr, stream.get()), UsageError);
  EXPECT_NO_THROW(cuda::squaring_front_closure(nullptr, 0, 0, nullptr, nullptr, stream.get()));
}

// The solve on the default path (the merged chains), batched, tiled, and the
// default path looking ahead along chains of fronts of >= 32 vertices (the
// closures on the critical stream, the updates beside them), each bit for
// bit `plain`'s rows, and on the default path with valid predecessor trees;
// `taken` (a hook's counter of the closure under test) must grow, and v6
// (whole fronts' rounds, no diagonal-block closure) must leave it alone.
void expect_closure_paths_match(const test::Case& c, const SolveResult& plain, std::atomic<std::int64_t>& taken,
                                const std::string& setting) {
  const std::int64_t before = taken;
  for (const char* path : {"default", "batched", "tiled", "lookahead"}) {
    SCOPED_TRACE(std::string(path) + ", " + setting);
    cuda::testing::hooks.supernodal_batched_factor = std::string(path) == "batched";
    cuda::testing::hooks.supernodal_tiled_factor = std::string(path) == "tiled";
    test::IntHook large(cuda::testing::hooks.supernodal_large_front, std::string(path) == "lookahead" ? 32 : 0);
    cuda::testing::hooks.supernodal_lookahead = std::string(path) == "lookahead";
    const SolveResult r = solve(c.graph, test::on_gpu("supernodal"));
    cuda::testing::hooks.supernodal_lookahead = false;
    EXPECT_EQ(test::first_difference(plain.dist, r.dist, c.graph.n), "");
    if (std::string(path) != "default") continue;
    const SolveResult with_pred = solve(c.graph, test::on_gpu("supernodal", Precision::automatic, true));
    EXPECT_EQ(test::first_difference(plain.dist, with_pred.dist, c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, with_pred.dist, with_pred.pred), "");
  }
  cuda::testing::hooks.supernodal_batched_factor = false;
  cuda::testing::hooks.supernodal_tiled_factor = false;
  EXPECT_GT(taken, before) << setting;
  const std::int64_t after = taken;
  {
    cuda::testing::ForceHook v6(cuda::testing::hooks.supernodal_v6_factor);
    EXPECT_EQ(test::first_difference(plain.dist, solve(c.graph, test::on_gpu("supernodal")).dist, c.graph.n), "");
  }
  EXPECT_EQ(taken, after) << setting;
}

// The supernodal solve with the squaring closure (default path: the merged
// chains, with chains merged from 128 vertices; the batched and tiled paths;
// the default path with the look-ahead) bit for bit the default solve's
// rows, with valid predecessor trees;
// at the default largest k, at 2048, and at 64 with the persistent rounds
// (tile 64) beyond it. The squaring closure must have taken fronts; v6
// (whole fronts' rounds, no diagonal-block closure) takes none.
void expect_squaring_solves_match(const test::Case& c) {
  SCOPED_TRACE(c.name);
  test::IntHook dense(cuda::testing::hooks.supernodal_dense_columns, 4);
  test::IntHook min_front(cuda::testing::hooks.supernodal_merge_min_front, 128);
  SolveResult plain;
  {
    test::IntHook off(cuda::testing::hooks.supernodal_squaring_closure, 0);  // fw's launches for every closure
    test::IntHook no_blocked(cuda::testing::hooks.supernodal_blocked_closure, 0);
    plain = solve(c.graph, test::on_gpu("supernodal"));
  }
  for (const std::int64_t max_k : {cuda::kSquaringClosureDefaultMaxK, cuda::kSquaringClosureMaxK, std::int64_t{64}}) {
    test::IntHook squaring(cuda::testing::hooks.supernodal_squaring_closure, max_k);
    test::IntHook persistent(cuda::testing::hooks.supernodal_persistent_rounds, max_k == 64 ? 64 : 0);
    test::IntHook no_blocked(cuda::testing::hooks.supernodal_blocked_closure,
                             0);  // fw's or the persistent rounds above
    expect_closure_paths_match(c, plain, cuda::testing::hooks.supernodal_squaring_fronts,
                               "squaring up to k = " + std::to_string(max_k));
  }
}

// R-MAT has dense fronts and chains of its own; in both graphs every front
// of more than 4 columns takes the dense path (the hook), so that fronts on
// both sides of k = 64 exist.
TEST(GpuSupernodalClosure, SolveWithSquaringClosureMatchesTheDefault) {
  SKIP_WITHOUT_GPU();
  if (!cuda::squaring_closure_fit()) GTEST_SKIP() << "no cooperative launch here";
  expect_squaring_solves_match({"rmat_n4096", test::generated(GraphKind::rmat, 4096, 8 * 4096, 0, 30, 61)});
  expect_squaring_solves_match({"geometric_n4096", test::generated(GraphKind::geometric, 4096, 0, 1, 100, 62)});
}

// The blocked closure of a k x k block in a row stride of ld (cells right
// of the block untouched), leaves of at most `leaf` (0: the default), and
// the squarings its leaves ran; `leaves`: its leaves.
std::vector<std::int32_t> through_blocked(const std::vector<std::int32_t>& cells, std::int64_t k, std::int64_t ld,
                                          std::int64_t leaf, int* squarings, std::int64_t* leaves) {
  const std::int64_t k_pad = cuda::squaring_closure_pad(k);
  cuda::DeviceBuffer<std::int32_t> front(cells.size()), padded(static_cast<std::size_t>(k_pad * k_pad)),
      flags(static_cast<std::size_t>(cuda::kSquaringClosureFlagWords));
  cuda::Stream stream;
  APSP_CUDA_CHECK(cudaMemcpy(front.get(), cells.data(), cells.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  const cuda::BlockedClosure plan(k, leaf, stream.get());
  *leaves = plan.leaves();
  plan.run(front.get(), ld, padded.get(), flags.get(), stream.get());
  *squarings = cuda::squaring_closure_squarings(flags.get(), stream.get());
  std::vector<std::int32_t> out(cells.size());
  APSP_CUDA_CHECK(cudaMemcpy(out.data(), front.get(), out.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  return out;
}

// The blocked closure of a random block bit for bit fw's rounds'; every
// leaf squared at least once and at most its bound.
void expect_blocked_same_as_fw(const FrontBlock& b, std::int64_t leaf, std::uint64_t seed) {
  SCOPED_TRACE(describe(b) + " blocked, leaves up to " + std::to_string(leaf));
  const std::vector<std::int32_t> cells = random_block<std::int32_t>(b.k, 0, b.ld, seed);
  const std::vector<std::int32_t> expected = through_fw_rounds(cells, b.k, 0, b.ld);
  int squarings = -1;
  std::int64_t leaves = 0;
  expect_same_cells(cells, expected, through_blocked(cells, b.k, b.ld, leaf, &squarings, &leaves), b);
  EXPECT_GE(squarings, leaves);
  EXPECT_LE(squarings, leaves * squarings_bound(leaf > 0 ? leaf : cuda::kBlockedClosureLeafMaxK));
}

// The orders the brief names (just above the squaring closure's default,
// 700, 1024, R-MAT's root 1305) in their own row stride and a wider one,
// with the default leaves (704: one split), and small leaves (deep
// recursion, ranges ending inside a tile).
TEST(GpuSupernodalClosure, BlockedClosureMatchesFwBitForBit) {
  SKIP_WITHOUT_GPU();
  if (!cuda::blocked_closure_fit()) GTEST_SKIP() << "no cooperative launch here";
  std::uint64_t seed = 2700;
  for (const std::int64_t k : {641, 700, 1024, 1305}) expect_blocked_same_as_fw({k, 0, k}, 0, ++seed);
  expect_blocked_same_as_fw({1305, 0, 1731}, 0, ++seed);
  expect_blocked_same_as_fw({1305, 0, 1305}, 352, ++seed);
  expect_blocked_same_as_fw({700, 0, 709}, 64, ++seed);
  expect_blocked_same_as_fw({257, 0, 257}, 32, ++seed);
  expect_blocked_same_as_fw({33, 0, 40}, 32, ++seed);
  expect_blocked_same_as_fw({1, 0, 1}, 0, ++seed);
}

TEST(GpuSupernodalClosure, BlockedClosureRefusesWhatItCannotTake) {
  SKIP_WITHOUT_GPU();
  if (!cuda::blocked_closure_fit()) GTEST_SKIP() << "no cooperative launch here";
  // Off by default until measured (testing.hpp spells it; this is its check).
  EXPECT_EQ(cuda::testing::hooks.supernodal_blocked_closure.load(), 0);
  cuda::Stream stream;
  // The solver's default (testing.hpp spells the number; this is its check).
  EXPECT_EQ(cuda::testing::hooks.supernodal_blocked_closure.load(), cuda::kBlockedClosureDefaultMaxK);
  EXPECT_THROW(cuda::BlockedClosure(0, 0, stream.get()), UsageError);
  EXPECT_THROW(cuda::BlockedClosure(cuda::kBlockedClosureMaxK + 1, 0, stream.get()), UsageError);
  EXPECT_THROW(cuda::BlockedClosure(1000, 31, stream.get()), UsageError);
  EXPECT_THROW(cuda::BlockedClosure(1000, cuda::kSquaringClosureMaxK + 1, stream.get()), UsageError);
  const cuda::BlockedClosure plan(1305, 0, stream.get());
  EXPECT_EQ(plan.leaves(), 2);
  EXPECT_EQ(plan.phases(), 6);
  EXPECT_THROW(plan.run(nullptr, 1304, nullptr, nullptr, stream.get()), UsageError);
}

// The supernodal solve with the blocked closure bit for bit the default
// solve's rows (default path, batched, tiled, the look-ahead; predecessors
// on the default path): every front of more than 4 columns dense, chains
// merged from 128 vertices, the squaring closure up to 32 columns (or off)
// and the blocked closure above it with leaves of 32 (so that it
// recurses) or the default. It must have taken fronts; v6 (whole fronts'
// rounds) takes none. A negative cycle is reported as without it.
void expect_blocked_solves_match(const test::Case& c) {
  SCOPED_TRACE(c.name);
  test::IntHook dense(cuda::testing::hooks.supernodal_dense_columns, 4);
  test::IntHook min_front(cuda::testing::hooks.supernodal_merge_min_front, 128);
  const SolveResult plain = solve(c.graph, test::on_gpu("supernodal"));
  struct Setting {
    std::int64_t squaring, leaf;
  };
  for (const Setting setting : {Setting{32, 32}, Setting{0, 0}}) {
    test::IntHook squaring(cuda::testing::hooks.supernodal_squaring_closure, setting.squaring);
    test::IntHook blocked(cuda::testing::hooks.supernodal_blocked_closure, cuda::kBlockedClosureDefaultMaxK);
    test::IntHook leaf(cuda::testing::hooks.supernodal_blocked_leaf, setting.leaf);
    expect_closure_paths_match(c, plain, cuda::testing::hooks.supernodal_blocked_fronts,
                               "squaring up to k = " + std::to_string(setting.squaring) +
                                   ", blocked above, leaves up to " + std::to_string(setting.leaf));
  }
}

TEST(GpuSupernodalClosure, SolveWithBlockedClosureMatchesTheDefault) {
  SKIP_WITHOUT_GPU();
  if (!cuda::blocked_closure_fit()) GTEST_SKIP() << "no cooperative launch here";
  expect_blocked_solves_match({"rmat_n4096", test::generated(GraphKind::rmat, 4096, 8 * 4096, 0, 30, 63)});
  expect_blocked_solves_match({"geometric_n4096", test::generated(GraphKind::geometric, 4096, 0, 1, 100, 64)});
  expect_blocked_solves_match({"random_n4096", test::generated(GraphKind::random, 4096, 8 * 4096, -2, 60, 52)});
  // A negative cycle: the same error as without the blocked closure (the
  // potentials find it before any front is closed).
  test::IntHook dense(cuda::testing::hooks.supernodal_dense_columns, 4);
  test::IntHook squaring(cuda::testing::hooks.supernodal_squaring_closure, 0);
  test::IntHook blocked(cuda::testing::hooks.supernodal_blocked_closure, cuda::kBlockedClosureDefaultMaxK);
  test::IntHook leaf(cuda::testing::hooks.supernodal_blocked_leaf, 32);
  const test::Case cycle = test::negative_cycle_case(200, 3);
  try {
    solve(cycle.graph, test::on_gpu("supernodal"));
    ADD_FAILURE() << "no negative cycle reported";
  } catch (const NegativeCycleError& e) {
    EXPECT_TRUE(test::lies_on_negative_cycle(cycle.graph, static_cast<vertex_t>(e.vertex()))) << e.what();
  }
}

// Small blocks and a small solve, for compute-sanitizer's memcheck and
// racecheck (the grid barriers, the shared memory reused between tiles).
TEST(GpuSupernodalClosure, SmallCasesForSanitizers) {
  SKIP_WITHOUT_GPU();
  if (!cuda::persistent_rounds_fit(cuda::kPersistentRoundsMaxPad)) GTEST_SKIP() << "no cooperative launch here";
  expect_same_as_fw_rounds<std::int32_t>({129, 0, 131}, 2401);
  expect_same_as_fw_rounds<std::int32_t>({5, 130, 135}, 2402);
  expect_same_as_fw_rounds<float>({100, 40, 140}, 2403);
  if (cuda::squaring_closure_fit()) {
    expect_squaring_same_as_fw(random_block<std::int32_t>(33, 0, 40, 2405), {33, 0, 40});
    expect_squaring_same_as_fw(random_block<std::int32_t>(70, 0, 70, 2406), {70, 0, 70});
  }
  const test::Case grid{"grid_n400", test::generated(GraphKind::grid, 400, 0, -1, 9, 2404)};
  const std::vector<dist_t> reference = test::reference_distances(grid.graph);
  test::IntHook dense(cuda::testing::hooks.supernodal_dense_columns, 4);
  for (const int tile : {128, 64}) {
    test::IntHook persistent(cuda::testing::hooks.supernodal_persistent_rounds, tile);
    test::IntHook no_squaring(cuda::testing::hooks.supernodal_squaring_closure, 0);
    test::IntHook no_blocked(cuda::testing::hooks.supernodal_blocked_closure, 0);
    const SolveResult r = solve(grid.graph, test::on_gpu("supernodal", Precision::automatic, true));
    EXPECT_EQ(test::first_difference(reference, r.dist, grid.graph.n), "");
    EXPECT_EQ(test::check_predecessors(grid.graph, r.dist, r.pred), "");
  }
  if (!cuda::squaring_closure_fit()) return;
  {
    test::IntHook squaring(cuda::testing::hooks.supernodal_squaring_closure, cuda::kSquaringClosureDefaultMaxK);
    const std::int64_t before = cuda::testing::hooks.supernodal_squaring_fronts;
    const SolveResult r = solve(grid.graph, test::on_gpu("supernodal", Precision::automatic, true));
    EXPECT_EQ(test::first_difference(reference, r.dist, grid.graph.n), "");
    EXPECT_EQ(test::check_predecessors(grid.graph, r.dist, r.pred), "");
    EXPECT_GT(cuda::testing::hooks.supernodal_squaring_fronts, before);
  }
  // The blocked closure: a block of two levels (70 = 64 + 6, 64 = 32 + 32)
  // and the solve with every dense block through it (leaves of 32).
  if (!cuda::blocked_closure_fit()) return;
  expect_blocked_same_as_fw({70, 0, 75}, 32, 2407);
  test::IntHook squaring(cuda::testing::hooks.supernodal_squaring_closure, 0);
  test::IntHook blocked(cuda::testing::hooks.supernodal_blocked_closure, cuda::kBlockedClosureDefaultMaxK);
  test::IntHook leaf(cuda::testing::hooks.supernodal_blocked_leaf, 32);
  const std::int64_t before = cuda::testing::hooks.supernodal_blocked_fronts;
  const SolveResult r = solve(grid.graph, test::on_gpu("supernodal", Precision::automatic, true));
  EXPECT_EQ(test::first_difference(reference, r.dist, grid.graph.n), "");
  EXPECT_EQ(test::check_predecessors(grid.graph, r.dist, r.pred), "");
  EXPECT_GT(cuda::testing::hooks.supernodal_blocked_fronts, before);
}

}  // namespace
}  // namespace apsp
