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
// (testing::hooks.supernodal_squaring_closure) equal to the default's.
// Skips without a CUDA device.
#include <gtest/gtest.h>

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
  const SolveResult plain = solve(c.graph, test::on_gpu("supernodal"));
  for (const std::int64_t max_k : {cuda::kSquaringClosureDefaultMaxK, cuda::kSquaringClosureMaxK, std::int64_t{64}}) {
    test::IntHook squaring(cuda::testing::hooks.supernodal_squaring_closure, max_k);
    test::IntHook persistent(cuda::testing::hooks.supernodal_persistent_rounds, max_k == 64 ? 64 : 0);
    const std::int64_t before = cuda::testing::hooks.supernodal_squaring_fronts;
    for (const char* path : {"default", "batched", "tiled", "lookahead"}) {
      SCOPED_TRACE(std::string(path) + " squaring up to k = " + std::to_string(max_k));
      cuda::testing::hooks.supernodal_batched_factor = std::string(path) == "batched";
      cuda::testing::hooks.supernodal_tiled_factor = std::string(path) == "tiled";
      // The default path looking ahead along chains of fronts of >= 32
      // vertices: the closures on the critical stream, the updates beside them.
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
    EXPECT_GT(cuda::testing::hooks.supernodal_squaring_fronts, before);
    const std::int64_t after = cuda::testing::hooks.supernodal_squaring_fronts;
    {
      cuda::testing::ForceHook v6(cuda::testing::hooks.supernodal_v6_factor);
      EXPECT_EQ(test::first_difference(plain.dist, solve(c.graph, test::on_gpu("supernodal")).dist, c.graph.n), "");
    }
    EXPECT_EQ(cuda::testing::hooks.supernodal_squaring_fronts, after);
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
    const SolveResult r = solve(grid.graph, test::on_gpu("supernodal", Precision::automatic, true));
    EXPECT_EQ(test::first_difference(reference, r.dist, grid.graph.n), "");
    EXPECT_EQ(test::check_predecessors(grid.graph, r.dist, r.pred), "");
  }
  if (!cuda::squaring_closure_fit()) return;
  test::IntHook squaring(cuda::testing::hooks.supernodal_squaring_closure, cuda::kSquaringClosureDefaultMaxK);
  const std::int64_t before = cuda::testing::hooks.supernodal_squaring_fronts;
  const SolveResult r = solve(grid.graph, test::on_gpu("supernodal", Precision::automatic, true));
  EXPECT_EQ(test::first_difference(reference, r.dist, grid.graph.n), "");
  EXPECT_EQ(test::check_predecessors(grid.graph, r.dist, r.pred), "");
  EXPECT_GT(cuda::testing::hooks.supernodal_squaring_fronts, before);
}

}  // namespace
}  // namespace apsp
