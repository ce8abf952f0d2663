// The GPU factor's look-ahead along chains of large fronts, host side
// (src/supernodal/lookahead.hpp): a front's rows that map into its parent's
// pivot columns are a prefix of its structure (so the parent's closure needs
// only the leading p x p block of its update), and the levels that look
// ahead are exactly those whose large fronts all have a large parent on the
// next level. Also that the device tests' configuration
// (tests/gpu/test_cuda_supernodal_lookahead.cpp: n = 4096, the large class
// lowered) does make chains on every family, so they test the look-ahead.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "supernodal/lookahead.hpp"
#include "supernodal/symbolic.hpp"
#include "support/cases.hpp"
#include "support/lookahead_cases.hpp"

namespace apsp {
namespace {

#define REQUIRE_METIS() \
  if (!supernodal::ordering_available()) GTEST_SKIP() << "no METIS in this build"

// The device tests' thresholds and graphs (support/lookahead_cases.hpp),
// and their small case for the sanitizers.
constexpr std::int64_t kDenseColumns = test::kLookaheadDenseColumns;
constexpr std::int64_t kLargeFront = test::kLookaheadLargeFront;

std::vector<test::Case> device_cases() {
  std::vector<test::Case> cases = test::lookahead_cases();
  cases.push_back(test::lookahead_sanitizer_case());
  return cases;
}

// The GPU solver's analysis for int32 rows: the default chain merge.
supernodal::Symbolic device_analysis(const Graph& g) {
  supernodal::ChainMerge rule;
  rule.max_extra_ops = static_cast<double>(supernodal::kDefaultMergePercent) / 100.0;
  return supernodal::merge_chains(supernodal::analyse(to_csr(normalize(g))), rule);
}

std::vector<char> large_fronts(const supernodal::Symbolic& s, std::int64_t dense_columns, std::int64_t large_front) {
  std::vector<char> large(static_cast<std::size_t>(s.count), 0);
  for (std::int32_t K = 0; K < s.count; ++K)
    large[static_cast<std::size_t>(K)] =
        s.columns(K) > dense_columns && s.columns(K) + s.structure_size(K) >= large_front ? 1 : 0;
  return large;
}

TEST(SupernodalLookahead, PivotRowsAreAPrefixOfTheStructure) {
  REQUIRE_METIS();
  for (const test::Case& c : device_cases()) {
    SCOPED_TRACE(c.name);
    const supernodal::Symbolic s = device_analysis(c.graph);
    std::int64_t fronts = 0;
    for (std::int32_t K = 0; K < s.count; ++K) {
      const std::int32_t P = s.parent[K];
      const std::int64_t p = supernodal::pivot_rows(s, K);
      if (P < 0) {
        EXPECT_EQ(p, 0);
        continue;
      }
      ++fronts;
      const std::int64_t size = s.structure_size(K);
      ASSERT_GE(p, 1) << "front " << K << ": its parent owns its first structure index";
      ASSERT_LE(p, size);
      for (std::int64_t i = 0; i < size; ++i) {
        const std::int32_t rel = s.struct_rel[static_cast<std::size_t>(s.struct_ptr[K] + i)];
        ASSERT_EQ(rel < s.columns(P), i < p) << "front " << K << " structure row " << i;
      }
    }
    EXPECT_GT(fronts, 0);
  }
}

TEST(SupernodalLookahead, LevelsLookAheadExactlyAlongChainsOfLargeFronts) {
  REQUIRE_METIS();
  for (const test::Case& c : device_cases()) {
    SCOPED_TRACE(c.name);
    const supernodal::Symbolic s = device_analysis(c.graph);
    const std::vector<char> large = large_fronts(s, kDenseColumns, kLargeFront);
    const auto ahead = supernodal::lookahead_fronts(s, large);
    ASSERT_EQ(static_cast<std::int32_t>(ahead.size()), s.levels());
    std::vector<std::int32_t> level_of(static_cast<std::size_t>(s.count));
    for (std::int32_t l = 0; l < s.levels(); ++l)
      for (std::int32_t x = s.level_ptr[l]; x < s.level_ptr[l + 1]; ++x) level_of[s.level_idx[x]] = l;
    std::int64_t levels_ahead = 0;
    for (std::int32_t l = 0; l < s.levels(); ++l) {
      // The level's large fronts with an update, and whether each chains.
      std::vector<std::int32_t> candidates;
      bool every = true;
      for (std::int32_t x = s.level_ptr[l]; x < s.level_ptr[l + 1]; ++x) {
        const std::int32_t K = s.level_idx[x];
        if (!large[static_cast<std::size_t>(K)] || s.structure_size(K) == 0) continue;
        candidates.push_back(K);
        const std::int32_t P = s.parent[K];
        every = every && P >= 0 && large[static_cast<std::size_t>(P)] && level_of[P] == l + 1;
      }
      const bool expected = every && !candidates.empty() && l + 1 < s.levels();
      EXPECT_EQ(ahead[static_cast<std::size_t>(l)].empty(), !expected) << "level " << l;
      if (expected) EXPECT_EQ(ahead[static_cast<std::size_t>(l)], candidates) << "level " << l;
      levels_ahead += expected ? 1 : 0;
    }
    // The device tests' premise: chains occur at n = 4096 with the lowered class.
    EXPECT_GT(levels_ahead, 0);
    std::printf("%s: %lld of %d levels look ahead\n", c.name.c_str(), static_cast<long long>(levels_ahead), s.levels());
    // With no large front nothing looks ahead.
    const auto none = supernodal::lookahead_fronts(s, std::vector<char>(static_cast<std::size_t>(s.count), 0));
    for (const auto& fronts : none) EXPECT_TRUE(fronts.empty());
  }
}

}  // namespace
}  // namespace apsp
