// The split-K rule of the GPU tiled factor (src/supernodal/split_k.hpp):
// pieces cover a product's depth exactly with at least the least depth each,
// launches of many tiles stay whole, launches of few tiles split, and the
// forced count splits every product.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "apsp/error.hpp"
#include "supernodal/split_k.hpp"

namespace apsp {
namespace {

using supernodal::SplitKProduct;
using supernodal::SplitKRule;

// An H100's resident tiled blocks: 2 a SM x 132 SMs.
constexpr std::int64_t kResident = 264;

SplitKRule rule() {
  SplitKRule r;
  r.resident = kResident;
  return r;
}

TEST(SupernodalSplitK, PiecesCoverTheDepthExactlyWithTheLeastDepthEach) {
  for (std::int64_t chunks = 1; chunks <= 40; ++chunks)
    for (std::int64_t min_chunks = 1; min_chunks <= 4; ++min_chunks) {
      const std::int64_t pieces = supernodal::split_k_max_pieces(chunks, min_chunks, 64);
      ASSERT_GE(pieces, 1);
      EXPECT_EQ(supernodal::split_k_piece_begin(chunks, pieces, 0), 0);
      EXPECT_EQ(supernodal::split_k_piece_begin(chunks, pieces, pieces), chunks);
      for (std::int64_t p = 0; p < pieces; ++p) {
        const std::int64_t depth = supernodal::split_k_piece_begin(chunks, pieces, p + 1) -
                                   supernodal::split_k_piece_begin(chunks, pieces, p);
        if (chunks >= min_chunks) EXPECT_GE(depth, min_chunks) << chunks << " chunks, piece " << p;
        EXPECT_GE(depth, 1);
      }
    }
  EXPECT_EQ(supernodal::split_k_max_pieces(5, 2, 8), 2);
  EXPECT_EQ(supernodal::split_k_max_pieces(15, 2, 8), 7);
  EXPECT_EQ(supernodal::split_k_max_pieces(40, 2, 8), 8);
  EXPECT_EQ(supernodal::split_k_max_pieces(1, 2, 8), 1);
}

TEST(SupernodalSplitK, TheModelTakesBlocksInOrderOntoTheResidentSlots) {
  // One wave of 10 blocks of 4 chunks: 4 + overhead.
  EXPECT_DOUBLE_EQ(supernodal::split_k_makespan({{10, 4}}, {1}, 10, 0.5), 4.5);
  // 11 blocks on 10 slots: two rounds.
  EXPECT_DOUBLE_EQ(supernodal::split_k_makespan({{11, 4}}, {1}, 10, 0.5), 9.0);
  // Two pieces of 5 chunks: 2 and 3 chunks; 20 blocks on 20 slots: the longer piece.
  EXPECT_DOUBLE_EQ(supernodal::split_k_makespan({{10, 5}}, {2}, 20, 0.0), 3.0);
  // A long block first, short ones fill the other slots.
  EXPECT_DOUBLE_EQ(supernodal::split_k_makespan({{1, 8}, {4, 2}}, {1, 1}, 2, 0.0), 8.0);
  EXPECT_DOUBLE_EQ(supernodal::split_k_makespan({{1, 8}, {5, 2}}, {1, 1}, 2, 0.0), 10.0);
}

TEST(SupernodalSplitK, LaunchesOfManyTilesStayWhole) {
  // R-MAT 32768's largest chain update (about 27 x 27 tiles, 2.8 waves) and uniform's (thousands).
  for (const std::int64_t tiles : {2 * kResident, std::int64_t{729}, std::int64_t{5000}})
    for (const std::int64_t chunks : {std::int64_t{5}, std::int64_t{14}, std::int64_t{360}}) {
      const std::vector<std::int64_t> pieces = supernodal::split_k_pieces({{tiles, chunks}}, rule());
      EXPECT_EQ(pieces, std::vector<std::int64_t>{1}) << tiles << " tiles, " << chunks << " chunks";
    }
  // Too shallow to cut: one chunk, or two with pieces of at least two.
  EXPECT_EQ(supernodal::split_k_pieces({{10, 1}}, rule()), std::vector<std::int64_t>{1});
  EXPECT_EQ(supernodal::split_k_pieces({{10, 3}}, rule()), std::vector<std::int64_t>{1});
  EXPECT_TRUE(supernodal::split_k_pieces({}, rule()).empty());
}

TEST(SupernodalSplitK, LaunchesOfFewTilesSplitAndTheModelGetsShorter) {
  struct Shape {
    std::int64_t tiles, chunks;
  };
  // R-MAT 32768's chain: 121 - 528 tiles a level, k = 156 - 450 (5 - 15 chunks).
  for (const Shape s : {Shape{121, 5}, Shape{121, 14}, Shape{300, 9}, Shape{400, 15}, Shape{12, 40}}) {
    const std::vector<SplitKProduct> products{{s.tiles, s.chunks}};
    const std::vector<std::int64_t> pieces = supernodal::split_k_pieces(products, rule());
    ASSERT_EQ(pieces.size(), 1u);
    EXPECT_GE(pieces[0], 2) << s.tiles << " tiles, " << s.chunks << " chunks";
    EXPECT_LE(pieces[0], rule().max_pieces);
    EXPECT_GE(s.chunks / pieces[0], rule().min_piece_chunks);
    const double whole = supernodal::split_k_makespan(products, {1}, kResident, rule().overhead_chunks);
    const double split = supernodal::split_k_makespan(products, pieces, kResident, rule().overhead_chunks);
    EXPECT_LT(split, whole * (1.0 - rule().min_gain));
  }
  // Most of a wave already: the model finds no piece count that fills the slots better.
  EXPECT_EQ(supernodal::split_k_pieces({{256, 10}}, rule()), std::vector<std::int64_t>{1});
  // A small product beside a deep one: each keeps pieces of the least depth.
  const std::vector<std::int64_t> mixed = supernodal::split_k_pieces({{30, 3}, {30, 16}}, rule());
  EXPECT_EQ(mixed[0], 1);
  EXPECT_GE(mixed[1], 2);
}

TEST(SupernodalSplitK, TheForcedCountSplitsEveryProductIntoChunksAtLeast) {
  SplitKRule forced = rule();
  forced.forced = 3;
  EXPECT_EQ(supernodal::split_k_pieces({{5000, 14}, {1, 2}, {7, 1}, {0, 9}}, forced),
            (std::vector<std::int64_t>{3, 2, 1, 1}));
}

TEST(SupernodalSplitK, StreamKTakesLaunchesWhoseLastWaveIsPartEmpty) {
  // R-MAT 32768's 450 x 2694 update (484 tiles, 15 chunks: 1.83 waves), which
  // split-K leaves whole, and its 121-tile one.
  EXPECT_EQ(supernodal::split_k_pieces({{484, 15}}, rule()), std::vector<std::int64_t>{1});
  EXPECT_EQ(supernodal::stream_k_blocks({{484, 15}}, rule()), kResident);
  EXPECT_EQ(supernodal::stream_k_blocks({{121, 9}}, rule()), kResident);
  // Few steps: a block per two chunks.
  EXPECT_EQ(supernodal::stream_k_blocks({{3, 4}}, rule()), 6);
  // Whole waves of deep tiles: nothing to gain.
  EXPECT_EQ(supernodal::stream_k_blocks({{2 * kResident, 32}}, rule()), 0);
  EXPECT_EQ(supernodal::stream_k_blocks({{0, 4}}, rule()), 0);
  SplitKRule forced = rule();
  forced.forced = 13;
  EXPECT_EQ(supernodal::stream_k_blocks({{5000, 14}, {1, 2}}, forced), 13);
  EXPECT_EQ(supernodal::stream_k_blocks({{2, 3}}, forced), 6);  // at most a block a step
}

// The blocks' decode the kernels use (split_k_block, stream_k_segment):
// every (product, tile, chunk) of a launch once, and a tile written without
// atomics only where one block covers all of it.
class Coverage {
 public:
  explicit Coverage(const std::vector<SplitKProduct>& products) : products_(products) {
    for (const SplitKProduct& p : products) count_.emplace_back(static_cast<std::size_t>(p.tiles * p.chunks), 0);
    segments_.resize(products.size());
    for (std::size_t p = 0; p < products.size(); ++p) segments_[p].resize(static_cast<std::size_t>(products[p].tiles));
  }
  void add(std::size_t p, const supernodal::TileChunks& t) {
    ASSERT_GE(t.tile, 0);
    ASSERT_LT(t.tile, products_[p].tiles);
    ASSERT_LT(t.chunk_begin, t.chunk_end);
    ASSERT_LE(t.chunk_end, products_[p].chunks);
    for (std::int64_t c = t.chunk_begin; c < t.chunk_end; ++c)
      ++count_[p][static_cast<std::size_t>(t.tile * products_[p].chunks + c)];
    segments_[p][static_cast<std::size_t>(t.tile)].push_back(t);
  }
  void expect_exact() const {
    for (std::size_t p = 0; p < products_.size(); ++p) {
      for (std::size_t x = 0; x < count_[p].size(); ++x) EXPECT_EQ(count_[p][x], 1) << "product " << p << " step " << x;
      for (const auto& tile : segments_[p])
        for (const supernodal::TileChunks& t : tile)
          if (!t.shared) EXPECT_EQ(tile.size(), 1u) << "a tile written without atomics by one of several blocks";
    }
  }

 private:
  std::vector<SplitKProduct> products_;
  std::vector<std::vector<int>> count_;
  std::vector<std::vector<std::vector<supernodal::TileChunks>>> segments_;
};

const std::vector<std::vector<SplitKProduct>> kLaunches = {
    {{121, 9}}, {{484, 15}}, {{27 * 2, 5}, {2 * 27, 5}}, {{3, 1}, {5, 7}, {1, 2}, {11, 4}}, {{1, 1}}};

TEST(SupernodalSplitK, SplitBlocksCoverEveryTileChunkOnce) {
  for (const std::vector<SplitKProduct>& launch : kLaunches)
    for (const std::int64_t forced : {std::int64_t{0}, std::int64_t{2}, std::int64_t{3}, std::int64_t{8}}) {
      SplitKRule r = rule();
      r.forced = forced;
      const std::vector<std::int64_t> pieces = supernodal::split_k_pieces(launch, r);
      Coverage coverage(launch);
      for (std::size_t p = 0; p < launch.size(); ++p)
        for (std::int64_t local = 0; local < launch[p].tiles * pieces[p]; ++local) {
          const supernodal::TileChunks t =
              supernodal::split_k_block(local, launch[p].tiles, launch[p].chunks, pieces[p]);
          EXPECT_EQ(t.shared, pieces[p] > 1);
          coverage.add(p, t);
        }
      coverage.expect_exact();
    }
}

TEST(SupernodalSplitK, StreamBlocksCoverEveryTileChunkOnce) {
  for (const std::vector<SplitKProduct>& launch : kLaunches) {
    std::vector<std::int64_t> begin;  // each product's first step, as plan_split_k sets tile_begin
    std::int64_t steps = 0;
    for (const SplitKProduct& p : launch) {
      begin.push_back(steps);
      steps += p.tiles * p.chunks;
    }
    for (const std::int64_t blocks : {std::int64_t{1}, std::int64_t{2}, std::int64_t{7}, std::int64_t{13}, kResident,
                                      steps, supernodal::stream_k_blocks(launch, rule())}) {
      if (blocks < 1 || blocks > steps) continue;
      Coverage coverage(launch);
      for (std::int64_t b = 0; b < blocks; ++b) {  // tiled_stream_products' walk
        const std::int64_t end = supernodal::stream_k_begin(b + 1, blocks, steps);
        for (std::int64_t step = supernodal::stream_k_begin(b, blocks, steps); step < end;) {
          std::size_t t = 0;
          while (t + 1 < launch.size() && step >= begin[t] + launch[t].tiles * launch[t].chunks) ++t;
          const supernodal::TileChunks part = supernodal::stream_k_segment(step, begin[t], launch[t].chunks, end);
          coverage.add(t, part);
          step += part.chunk_end - part.chunk_begin;
        }
      }
      coverage.expect_exact();
    }
  }
}

TEST(SupernodalSplitK, BadRulesAreUsageErrors) {
  SplitKRule none = rule();
  none.resident = 0;
  EXPECT_THROW(supernodal::split_k_pieces({{1, 4}}, none), UsageError);
  SplitKRule zero = rule();
  zero.min_piece_chunks = 0;
  EXPECT_THROW(supernodal::split_k_pieces({{1, 4}}, zero), UsageError);
  EXPECT_THROW(supernodal::split_k_pieces({{-1, 4}}, rule()), UsageError);
  EXPECT_THROW(supernodal::stream_k_blocks({{1, 4}}, none), UsageError);
  EXPECT_THROW(supernodal::stream_k_blocks({{1, -4}}, rule()), UsageError);
}

}  // namespace
}  // namespace apsp
