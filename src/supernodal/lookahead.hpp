// The look-ahead of the GPU factor's chains of large fronts (issue 21; the
// tiled factor with testing::hooks.supernodal_lookahead,
// src/cuda/supernodal_solver.cu, factor()): which etree levels look ahead,
// and how much of a front's update its parent's closure needs. Host
// arithmetic on the symbolic analysis only: the CPU tests check it
// (tests/cpu/test_supernodal_lookahead.cpp).
//
// Front K's update F_K[S_K, S_K] reaches its parent P's front through
// struct_rel; the entries that land in P's pivot block (P's k_P columns,
// positions below k_P) are the rows and columns of S_K that are P's columns.
// S_K is sorted and P's columns come before S_P's entries, so they are a
// prefix of S_K: p = pivot_rows(s, K) of them, and P's closure needs only the
// leading p x p block of K's update.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "supernodal/symbolic.hpp"

namespace apsp::supernodal {

// The rows of S_K that map into its parent's pivot columns (0 for a root).
inline std::int64_t pivot_rows(const Symbolic& s, std::int32_t K) {
  const std::int32_t P = s.parent[K];
  if (P < 0) return 0;
  const auto begin = s.struct_rel.begin() + s.struct_ptr[K];
  const auto end = s.struct_rel.begin() + s.struct_ptr[K + 1];
  return std::lower_bound(begin, end, s.columns(P)) - begin;
}

// Per level, the fronts that look ahead (empty: the level does not). Level l
// looks ahead when every `large` front of it with an update (s > 0) has a
// `large` parent on level l + 1, and it has one at least: the factor then
// runs the level's whole tiled update beside the next level's closures, so
// none of it may feed a front the next level does not wait for. `large`:
// per supernode (the factor's tiled class, fronts of >= 1024 vertices).
inline std::vector<std::vector<std::int32_t>> lookahead_fronts(const Symbolic& s, const std::vector<char>& large) {
  const std::int32_t levels = s.levels();
  std::vector<std::int32_t> level_of(static_cast<std::size_t>(s.count), 0);
  for (std::int32_t l = 0; l < levels; ++l)
    for (std::int32_t x = s.level_ptr[l]; x < s.level_ptr[l + 1]; ++x) level_of[s.level_idx[x]] = l;
  std::vector<std::vector<std::int32_t>> ahead(static_cast<std::size_t>(levels));
  for (std::int32_t l = 0; l + 1 < levels; ++l) {
    std::vector<std::int32_t> fronts;
    bool every = true;
    for (std::int32_t x = s.level_ptr[l]; x < s.level_ptr[l + 1] && every; ++x) {
      const std::int32_t K = s.level_idx[x];
      if (!large[static_cast<std::size_t>(K)] || s.structure_size(K) == 0) continue;
      const std::int32_t P = s.parent[K];
      every = P >= 0 && large[static_cast<std::size_t>(P)] && level_of[P] == l + 1;
      fronts.push_back(K);
    }
    if (every) ahead[static_cast<std::size_t>(l)] = std::move(fronts);
  }
  return ahead;
}

}  // namespace apsp::supernodal
