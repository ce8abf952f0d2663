// The supernodal min-plus solver's host-side symbolic structure, shared by the
// CPU numeric/solve phases (src/supernodal/) and the GPU ones: the
// nested-dissection ordering (METIS_NodeND), the elimination tree of the
// symmetrised pattern, the supernodes after relaxed amalgamation, their
// structures S_K, their etree levels, and the offsets of the stored factor
// blocks. Host-safe (no CUDA, no METIS in this header).
//
// Notation. "New order" ids are 0..n-1 after the permutation: perm[new] = old
// vertex, iperm[old] = new. Supernode K owns the contiguous new-order columns
// [first[K], first[K + 1]) (k = first[K + 1] - first[K] of them); supernodes
// are numbered in a postorder of the elimination tree, so children come before
// their parent (parent[K] > K) and every subtree is a contiguous range of
// supernodes. S_K = struct_idx[struct_ptr[K] .. struct_ptr[K + 1]) is the
// sorted list of new-order vertices > first[K + 1] - 1 that K's columns reach
// in the filled pattern (s = |S_K|); every entry is a column of an ancestor of
// K, and S_K is a subset of (columns of parent[K]) u S_parent[K].
//
// The front of K is the (k + s) x (k + s) matrix over the index list
// [first[K], ..., first[K + 1] - 1, S_K[0], ..., S_K[s - 1]]: position p < k
// is column first[K] + p, position k + i is S_K[i].
//
// Stored factor blocks, each row-major, one flat array per kind over all
// supernodes (the numeric phases own the arrays; the offsets are here):
//   C_KK (k x k)  at diag[diag_offset[K]]:   C_KK[i][j] = shortest distance
//       from column first[K] + i to column first[K] + j through vertices of
//       the graph eliminated so far (numbered <= first[K + 1] - 1);
//       entry [i * k + j]. diag_offset has count + 1 entries; the last is the
//       total length of the diag array.
//   L_K (s x k)   at lower[panel_offset[K]]: L_K[i][j] = distance from S_K[i]
//       to column first[K] + j through vertices <= first[K + 1] - 1
//       (F[S,K] (x) C_KK); entry [i * k + j].
//   U_K (k x s)   at upper[panel_offset[K]]: U_K[i][j] = distance from column
//       first[K] + i to S_K[j] through vertices <= first[K + 1] - 1
//       (C_KK (x) F[K,S]); entry [i * s + j].
//   panel_offset has count + 1 entries; the last is the length of lower and
//   of upper (each sum over K of k * s).
// Unreachable entries hold the weight type's kUnreachable (kInf for int32).
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp::supernodal {

// Relaxed amalgamation thresholds: a child supernode merges into its parent
// when the merge is cheap. Both small: merged when the child and the parent
// each have fewer than `small_columns` columns (dense fronts that small cost
// the same with or without a few explicit +inf entries), or when the explicit
// +inf entries the merge adds stay below `max_extra_fraction` of the merged
// supernode's stored entries (k * k + 2 * k * s) and the merged supernode has
// at most `max_merged_columns` columns.
struct AmalgamationTraits {
  static constexpr std::int32_t small_columns = 16;
  static constexpr double max_extra_fraction = 0.15;
  static constexpr std::int32_t max_merged_columns = 256;
};
static_assert(AmalgamationTraits::small_columns >= 1, "merging needs a positive small-front bound");
static_assert(AmalgamationTraits::max_extra_fraction >= 0.0 && AmalgamationTraits::max_extra_fraction < 1.0,
              "the extra +inf fraction is a fraction of the stored entries");
static_assert(AmalgamationTraits::max_merged_columns >= AmalgamationTraits::small_columns,
              "merged supernodes may hold at least two small ones");

struct Symbolic {
  std::int64_t n = 0;
  std::vector<std::int32_t> perm;   // n: perm[new] = old vertex
  std::vector<std::int32_t> iperm;  // n: iperm[old] = new id

  std::int32_t count = 0;                  // number of supernodes
  std::vector<std::int32_t> first;         // count + 1: K owns columns [first[K], first[K + 1])
  std::vector<std::int32_t> parent;        // count: parent supernode (> K), -1 for a root
  std::vector<std::int32_t> supernode_of;  // n: the supernode owning new-order column j

  // Structures S_K (see the header comment), sorted ascending.
  std::vector<std::int64_t> struct_ptr;  // count + 1
  std::vector<std::int32_t> struct_idx;  // struct_ptr[count] entries, new-order ids
  // Extend-add map: for the entry S_K[i] at struct_ptr[K] + i, its position in
  // parent[K]'s front (0..k_P + s_P - 1); -1 when K is a root (then S_K is empty).
  std::vector<std::int32_t> struct_rel;  // struct_ptr[count] entries

  // Children lists: the children of K are child_idx[child_ptr[K] .. child_ptr[K + 1]), ascending.
  std::vector<std::int32_t> child_ptr;  // count + 1
  std::vector<std::int32_t> child_idx;  // count - (number of roots)

  // Levels by height for batching: level 0 holds the leaves, a supernode's
  // level is 1 + the largest level of its children, so the supernodes of one
  // level are independent given the lower levels. Level l is
  // level_idx[level_ptr[l] .. level_ptr[l + 1]), ascending.
  std::vector<std::int32_t> level_ptr;  // levels + 1
  std::vector<std::int32_t> level_idx;  // count

  // Factor storage offsets (elements, not bytes); see the header comment.
  std::vector<std::int64_t> diag_offset;   // count + 1
  std::vector<std::int64_t> panel_offset;  // count + 1

  // Cheap probes for the cost models (auto's choice, progress):
  std::int64_t max_front = 0;       // max over K of k + s
  std::int64_t top_separator = 0;   // columns of the largest root supernode
  double factor_ops = 0;            // sum over K of (k + s)^2 * k   (min-plus multiply-adds)
  double solve_ops_per_source = 0;  // sum over K of k * k + 2 * k * s (one source's forward + backward)

  std::int32_t columns(std::int32_t K) const { return first[K + 1] - first[K]; }
  std::int64_t structure_size(std::int32_t K) const { return struct_ptr[K + 1] - struct_ptr[K]; }
  std::int32_t levels() const { return static_cast<std::int32_t>(level_ptr.size()) - 1; }
};

// Whether this build has the ordering library (METIS, APSP_WITH_METIS).
bool ordering_available();

// The symbolic analysis of the directed pattern of an n-vertex graph in CSR
// form (row_start: n + 1 offsets into col; self-loops and duplicates allowed,
// ignored): nested-dissection ordering of the symmetrised pattern by
// METIS_NodeND, then a postorder of its elimination tree, the elimination tree
// (Liu's algorithm with path compression), fundamental supernodes, relaxed
// amalgamation (AmalgamationTraits), structures, levels and factor offsets.
// n = 0 gives count = 0 with one-entry offset arrays. Throws UsageError (option
// "algorithm") naming METIS when the build lacks it, InputError for a column
// outside 0..n-1, std::bad_alloc when out of memory. Deterministic (METIS's
// seed is fixed).
// With `times`, the seconds of its two halves are stored there.
struct AnalyseTimes {
  double ordering = 0;  // symmetrising the pattern and METIS_NodeND
  double symbolic = 0;  // etree, postorder, supernodes, structures, levels, offsets
  bool reused = false;  // the analysis kept under an AnalysisReuse (both times 0)
};
Symbolic analyse(std::int64_t n, const std::int64_t* row_start, const vertex_t* col, AnalyseTimes* times = nullptr);

template <class W>
Symbolic analyse(const BasicCsr<W>& c, AnalyseTimes* times = nullptr) {
  return analyse(c.n, c.row_start.data(), c.col.data(), times);
}

// One analysis per solve: while an AnalysisReuse lives (on any thread),
// analyse() keeps its latest result with the pattern it came from, and a
// later call for an identical pattern (the same n, row offsets and columns)
// returns a copy of it instead of ordering again. auto's probe analyses the
// graph to estimate supernodal's cost; the solver it then picks analyses the
// same pattern (the reweighted edges have the input's endpoints) and gets the
// probe's analysis. analyse() is a deterministic function of the pattern, so
// a kept analysis is exactly what a fresh one would be. Scopes nest; the
// kept analysis is dropped when the last one ends.
class AnalysisReuse {
 public:
  AnalysisReuse();
  AnalysisReuse(const AnalysisReuse&) = delete;
  AnalysisReuse& operator=(const AnalysisReuse&) = delete;
  ~AnalysisReuse();
};

// Chain merging for large fronts (the GPU solver's default for int32 rows,
// at kDefaultMergePercent; testing::hooks.supernodal_merge_chains,
// bench/host_fronts.cpp): the
// amalgamation above caps a merged supernode at 256 columns, so on graphs
// whose large fronts form a chain (R-MAT: one front of >= 1024 vertices per
// etree level, k = 130-500 each) every level pays a dense closure, a panel
// and an update launch of a shallow pivot block. merge_chains(s, rule)
// merges a child into its parent's group (a contiguous range of supernodes,
// as the amalgamation's) when both fronts have at least `min_front`
// vertices (k + s), the merged supernode has at most `max_columns` columns,
// and the merged front's (k + s)^2 k is at most (1 + max_extra_ops) times
// its parts' (the +inf entries it adds). The permutation is unchanged; the
// result satisfies check_invariants and gives the same distances.
struct ChainMerge {
  std::int64_t min_front = 1024;
  double max_extra_ops = 0.25;
  std::int32_t max_columns = 4096;
};
Symbolic merge_chains(const Symbolic& s, const ChainMerge& rule);
// The GPU factor's merge: at most 10% more add-mins than the unmerged
// fronts (uniform 32768: 30 chained fronts become 7 for 4.4% more).
constexpr std::int64_t kDefaultMergePercent = 10;

// Test seam: how many times analyse() has run the ordering (METIS) in this
// process; a reused analysis does not count.
std::int64_t orderings_run();

// Throws std::logic_error naming the first broken invariant of `s` (a valid
// permutation, supernodes partitioning 0..n-1 in order, parent[K] > K, every
// S_K sorted, above K's last column and within ancestors' columns, struct_rel
// consistent, levels and offsets consistent). For tests and debug checks.
void check_invariants(const Symbolic& s);

}  // namespace apsp::supernodal
