// The supernodal solver's symbolic analysis (src/supernodal/symbolic.hpp):
// METIS nested dissection, elimination tree, postorder, supernodes with
// relaxed amalgamation, structures, extend-add map, levels, factor offsets.
#include "supernodal/symbolic.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>

#include "apsp/error.hpp"
#include "supernodal/ordering.hpp"

namespace apsp::supernodal {
namespace {

// The symmetrised pattern without self-loops or duplicates, as CSR over
// vertex ids (ascending columns in each row).
struct Pattern {
  std::int64_t n = 0;
  std::vector<std::int64_t> start;  // n + 1
  std::vector<std::int32_t> adj;
};

Pattern symmetrise(std::int64_t n, const std::int64_t* row_start, const vertex_t* col) {
  Pattern p;
  p.n = n;
  p.start.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t e = row_start[u]; e < row_start[u + 1]; ++e) {
      const vertex_t v = col[e];
      if (v < 0 || v >= n)
        throw InputError("edge " + std::to_string(u) + "->" + std::to_string(v) + " names a vertex outside 0.." +
                         std::to_string(n - 1));
      if (v == u) continue;
      ++p.start[u + 1];
      ++p.start[v + 1];
    }
  for (std::int64_t u = 0; u < n; ++u) p.start[u + 1] += p.start[u];
  std::vector<std::int64_t> fill(p.start.begin(), p.start.end() - 1);
  p.adj.resize(static_cast<std::size_t>(p.start[n]));
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t e = row_start[u]; e < row_start[u + 1]; ++e) {
      const vertex_t v = col[e];
      if (v == u) continue;
      p.adj[fill[u]++] = v;
      p.adj[fill[v]++] = static_cast<std::int32_t>(u);
    }
  // Sort and deduplicate each row, closing up the gaps.
  std::int64_t out = 0;
  for (std::int64_t u = 0; u < n; ++u) {
    const std::int64_t b = p.start[u], e = p.start[u + 1];
    std::sort(p.adj.begin() + b, p.adj.begin() + e);
    const std::int64_t row_begin = out;
    for (std::int64_t k = b; k < e; ++k)
      if (k == b || p.adj[k] != p.adj[k - 1]) p.adj[out++] = p.adj[k];
    p.start[u] = row_begin;
  }
  p.start[n] = out;
  p.adj.resize(static_cast<std::size_t>(out));
  return p;
}

// Elimination tree of the symmetric pattern `p` permuted by perm (new -> old),
// iperm (old -> new): parent[j] (new ids), -1 for roots. Liu's algorithm with
// path compression.
std::vector<std::int32_t> elimination_tree(const Pattern& p, const std::vector<std::int32_t>& perm,
                                           const std::vector<std::int32_t>& iperm) {
  const std::int64_t n = p.n;
  std::vector<std::int32_t> parent(static_cast<std::size_t>(n), -1), ancestor(static_cast<std::size_t>(n), -1);
  for (std::int32_t j = 0; j < n; ++j) {
    const std::int32_t u = perm[j];
    for (std::int64_t e = p.start[u]; e < p.start[u + 1]; ++e) {
      std::int32_t i = iperm[p.adj[e]];
      if (i >= j) continue;
      while (ancestor[i] != -1 && ancestor[i] != j) {
        const std::int32_t next = ancestor[i];
        ancestor[i] = j;
        i = next;
      }
      if (ancestor[i] == -1) {
        ancestor[i] = j;
        parent[i] = j;
      }
    }
  }
  return parent;
}

// A postorder of the forest `parent` (parent[j] > j): post[k] = the k-th
// vertex, children visited in increasing order.
std::vector<std::int32_t> postorder(const std::vector<std::int32_t>& parent) {
  const auto n = static_cast<std::int32_t>(parent.size());
  std::vector<std::int32_t> head(static_cast<std::size_t>(n), -1), next(static_cast<std::size_t>(n), -1);
  for (std::int32_t j = n - 1; j >= 0; --j)  // children lists, ascending
    if (parent[j] != -1) {
      next[j] = head[parent[j]];
      head[parent[j]] = j;
    }
  std::vector<std::int32_t> post;
  post.reserve(static_cast<std::size_t>(n));
  std::vector<std::int32_t> stack;
  for (std::int32_t r = 0; r < n; ++r) {
    if (parent[r] != -1) continue;
    stack.push_back(r);
    while (!stack.empty()) {
      const std::int32_t top = stack.back();
      if (head[top] != -1) {  // descend into the next unvisited child
        const std::int32_t child = head[top];
        head[top] = next[child];
        stack.push_back(child);
      } else {
        post.push_back(top);
        stack.pop_back();
      }
    }
  }
  return post;
}

// Lower column counts of the filled pattern: count[j] = |struct(j)|, the rows
// > j in column j of L, by merging children's structures (new-order ids;
// parent[j] > j; a child's structure is freed once merged).
std::vector<std::int64_t> column_counts(const Pattern& p, const std::vector<std::int32_t>& perm,
                                        const std::vector<std::int32_t>& iperm,
                                        const std::vector<std::int32_t>& parent) {
  const std::int64_t n = p.n;
  std::vector<std::vector<std::int32_t>> rows(static_cast<std::size_t>(n));
  std::vector<std::int64_t> count(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> mark(static_cast<std::size_t>(n), -1);
  for (std::int32_t j = 0; j < n; ++j) {
    std::vector<std::int32_t> s;
    const std::int32_t u = perm[j];
    for (std::int64_t e = p.start[u]; e < p.start[u + 1]; ++e) {
      const std::int32_t i = iperm[p.adj[e]];
      if (i > j && mark[i] != j) {
        mark[i] = j;
        s.push_back(i);
      }
    }
    // Children of j are < j and already done; their structures wait in rows[].
    std::swap(rows[j], s);  // rows[j] may hold merged children (see below)
    for (std::int32_t i : s)
      if (i > j && mark[i] != j) {
        mark[i] = j;
        rows[j].push_back(i);
      }
    count[j] = static_cast<std::int64_t>(rows[j].size());
    if (parent[j] != -1) {
      // Hand struct(j) \ {parent} to the parent's pending list; duplicates are removed there.
      std::vector<std::int32_t>& to = rows[parent[j]];
      for (std::int32_t i : rows[j])
        if (i != parent[j]) to.push_back(i);
    }
    std::vector<std::int32_t>().swap(rows[j]);
  }
  return count;
}

// Groups from the top down: a group is a contiguous range [a, b] of the
// supernodes 0..count-1 rooted at b; c = a - 1 joins it when its parent is in
// the group (then its structure lies in the group's columns and the root's
// structure) and join(c) accepts (join updates the caller's group state when
// it does); else c starts a group (start(c)). Returns, per supernode, whether
// it merges into the group of the one after it.
template <class Start, class Join>
std::vector<char> group_top_down(std::int32_t count, const std::vector<std::int32_t>& parent, Start start, Join join) {
  std::vector<char> joins_next(static_cast<std::size_t>(std::max<std::int32_t>(count, 0)), 0);
  if (count <= 0) return joins_next;
  std::int32_t a = count - 1, b = count - 1;
  start(b);
  for (std::int32_t c = count - 2; c >= 0; --c) {
    if (parent[c] >= a && parent[c] <= b && join(c)) {
      joins_next[c] = 1;
      a = c;
    } else {
      a = b = c;
      start(c);
    }
  }
  return joins_next;
}

// The children lists of s from its parents.
void build_children(Symbolic& s) {
  s.child_ptr.assign(static_cast<std::size_t>(s.count) + 1, 0);
  s.child_idx.clear();
  for (std::int32_t K = 0; K < s.count; ++K)
    if (s.parent[K] != -1) ++s.child_ptr[s.parent[K] + 1];
  for (std::int32_t K = 0; K < s.count; ++K) s.child_ptr[K + 1] += s.child_ptr[K];
  s.child_idx.resize(static_cast<std::size_t>(s.child_ptr[s.count]));
  std::vector<std::int32_t> at(s.child_ptr.begin(), s.child_ptr.end() - 1);
  for (std::int32_t K = 0; K < s.count; ++K)
    if (s.parent[K] != -1) s.child_idx[at[s.parent[K]]++] = K;
}

// Given the supernodes (first, parent, children) and their structures: the
// extend-add map, the levels, the factor offsets and the probes.
void finish_from_structures(Symbolic& s) {
  s.max_front = s.top_separator = 0;
  s.factor_ops = s.solve_ops_per_source = 0;
  s.struct_rel.assign(s.struct_idx.size(), -1);
  for (std::int32_t K = 0; K < s.count; ++K) {
    const std::int32_t P = s.parent[K];
    if (P == -1) continue;
    const auto sp_begin = s.struct_idx.begin() + s.struct_ptr[P], sp_end = s.struct_idx.begin() + s.struct_ptr[P + 1];
    for (std::int64_t e = s.struct_ptr[K]; e < s.struct_ptr[K + 1]; ++e) {
      const std::int32_t i = s.struct_idx[e];
      if (i < s.first[P + 1]) {
        s.struct_rel[e] = i - s.first[P];
      } else {
        const auto at = std::lower_bound(sp_begin, sp_end, i);
        s.struct_rel[e] = (at != sp_end && *at == i) ? s.columns(P) + static_cast<std::int32_t>(at - sp_begin) : -1;
      }
    }
  }

  // Levels by height, factor offsets, probes.
  std::vector<std::int32_t> height(static_cast<std::size_t>(s.count), 0);
  std::int32_t levels = s.count > 0 ? 1 : 0;
  for (std::int32_t K = 0; K < s.count; ++K)
    if (s.parent[K] != -1) {
      height[s.parent[K]] = std::max(height[s.parent[K]], height[K] + 1);
      levels = std::max(levels, height[s.parent[K]] + 1);
    }
  s.level_ptr.assign(static_cast<std::size_t>(levels) + 1, 0);
  for (std::int32_t K = 0; K < s.count; ++K) ++s.level_ptr[height[K] + 1];
  for (std::int32_t l = 0; l < levels; ++l) s.level_ptr[l + 1] += s.level_ptr[l];
  s.level_idx.resize(static_cast<std::size_t>(s.count));
  {
    std::vector<std::int32_t> at(s.level_ptr.begin(), s.level_ptr.end() - 1);
    for (std::int32_t K = 0; K < s.count; ++K) s.level_idx[at[height[K]]++] = K;
  }
  s.diag_offset.assign(static_cast<std::size_t>(s.count) + 1, 0);
  s.panel_offset.assign(static_cast<std::size_t>(s.count) + 1, 0);
  for (std::int32_t K = 0; K < s.count; ++K) {
    const std::int64_t k = s.columns(K), sk = s.structure_size(K);
    s.diag_offset[K + 1] = s.diag_offset[K] + k * k;
    s.panel_offset[K + 1] = s.panel_offset[K] + k * sk;
    s.max_front = std::max(s.max_front, k + sk);
    if (s.parent[K] == -1) s.top_separator = std::max<std::int64_t>(s.top_separator, k);
    s.factor_ops += static_cast<double>(k + sk) * static_cast<double>(k + sk) * static_cast<double>(k);
    s.solve_ops_per_source += static_cast<double>(k * k + 2 * k * sk);
  }
}

// The analysis without reuse (analyse() below adds it).
Symbolic analyse_fresh(std::int64_t n, const std::int64_t* row_start, const vertex_t* col, AnalyseTimes* times);

// The state behind AnalysisReuse: the scopes alive, and the latest analysis
// made while one was, with its pattern (n, row offsets, columns).
struct Kept {
  std::int64_t n = 0;
  std::vector<std::int64_t> row_start;
  std::vector<vertex_t> col;
  Symbolic symbolic;
};
std::mutex reuse_mutex;
int reuse_scopes = 0;              // guarded by reuse_mutex
std::shared_ptr<const Kept> kept;  // guarded by reuse_mutex; null when none
std::atomic<std::int64_t> fresh_orderings{0};

bool same_pattern(const Kept& k, std::int64_t n, const std::int64_t* row_start, const vertex_t* col) {
  if (k.n != n || !std::equal(k.row_start.begin(), k.row_start.end(), row_start)) return false;
  return std::equal(k.col.begin(), k.col.end(), col);
}

}  // namespace

AnalysisReuse::AnalysisReuse() {
  const std::lock_guard<std::mutex> lock(reuse_mutex);
  ++reuse_scopes;
}

AnalysisReuse::~AnalysisReuse() {
  std::shared_ptr<const Kept> dropped;  // freed outside the lock
  const std::lock_guard<std::mutex> lock(reuse_mutex);
  if (--reuse_scopes == 0) dropped = std::move(kept);
}

std::int64_t orderings_run() { return fresh_orderings.load(); }

Symbolic analyse(std::int64_t n, const std::int64_t* row_start, const vertex_t* col, AnalyseTimes* times) {
  std::shared_ptr<const Kept> candidate;
  {
    const std::lock_guard<std::mutex> lock(reuse_mutex);
    if (reuse_scopes == 0) return analyse_fresh(n, row_start, col, times);
    candidate = kept;
  }
  if (candidate && same_pattern(*candidate, n, row_start, col)) {
    if (times) *times = AnalyseTimes{0, 0, true};
    return candidate->symbolic;
  }
  auto made = std::make_shared<Kept>();
  made->symbolic = analyse_fresh(n, row_start, col, times);
  made->n = n;
  if (n > 0) {
    made->row_start.assign(row_start, row_start + n + 1);
    made->col.assign(col, col + row_start[n]);
  }
  Symbolic result = made->symbolic;
  const std::lock_guard<std::mutex> lock(reuse_mutex);
  if (reuse_scopes > 0) kept = std::move(made);
  return result;
}

namespace {

Symbolic analyse_fresh(std::int64_t n, const std::int64_t* row_start, const vertex_t* col, AnalyseTimes* times) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point started = Clock::now();
  if (n < 0 || n > std::numeric_limits<std::int32_t>::max())
    throw InputError("vertex count " + std::to_string(n) + " is outside 0..2^31-1");
  Symbolic s;
  s.n = n;
  const Pattern pattern = symmetrise(n, row_start, col);

  // 1. Nested dissection, then a postorder of its elimination tree.
  ++fresh_orderings;
  std::vector<std::int32_t> nd_perm = nested_dissection(n, pattern.start, pattern.adj);
  const Clock::time_point ordered = Clock::now();
  std::vector<std::int32_t> nd_iperm(static_cast<std::size_t>(n));
  for (std::int32_t j = 0; j < n; ++j) nd_iperm[nd_perm[j]] = j;
  const std::vector<std::int32_t> nd_parent = elimination_tree(pattern, nd_perm, nd_iperm);
  const std::vector<std::int32_t> post = postorder(nd_parent);
  s.perm.resize(static_cast<std::size_t>(n));
  s.iperm.resize(static_cast<std::size_t>(n));
  for (std::int32_t j = 0; j < n; ++j) {
    s.perm[j] = nd_perm[post[j]];
    s.iperm[s.perm[j]] = j;
  }
  // The etree relabelled by the postorder is the etree of the new order.
  std::vector<std::int32_t> col_parent(static_cast<std::size_t>(n), -1);
  {
    std::vector<std::int32_t> where(static_cast<std::size_t>(n));
    for (std::int32_t j = 0; j < n; ++j) where[post[j]] = j;
    for (std::int32_t j = 0; j < n; ++j) col_parent[j] = nd_parent[post[j]] == -1 ? -1 : where[nd_parent[post[j]]];
  }
  const std::vector<std::int64_t> cc = column_counts(pattern, s.perm, s.iperm, col_parent);

  // 2. Supernodes of identical structure: column j + 1 joins j's when it is
  // j's parent and struct(j) = {j + 1} u struct(j + 1).
  std::vector<std::int32_t> fund_first{0};
  for (std::int32_t j = 1; j < n; ++j)
    if (!(col_parent[j - 1] == j && cc[j - 1] == cc[j] + 1)) fund_first.push_back(j);
  if (n > 0)
    fund_first.push_back(static_cast<std::int32_t>(n));
  else
    fund_first.assign(1, 0);
  const auto fund_count = static_cast<std::int32_t>(fund_first.size()) - 1;
  std::vector<std::int32_t> fund_of(static_cast<std::size_t>(n));
  for (std::int32_t K = 0; K < fund_count; ++K)
    for (std::int32_t j = fund_first[K]; j < fund_first[K + 1]; ++j) fund_of[j] = K;
  std::vector<std::int32_t> fund_parent(static_cast<std::size_t>(fund_count), -1);
  for (std::int32_t K = 0; K < fund_count; ++K) {
    const std::int32_t up = col_parent[fund_first[K + 1] - 1];
    fund_parent[K] = up == -1 ? -1 : fund_of[up];
  }

  // 3. Relaxed amalgamation, from the top down: a group is a contiguous range
  // [a, b] of supernodes rooted at b; a - 1 joins it when its parent is in
  // the group (then its structure is inside the group's columns and structure,
  // so the merged structure is the group's) and the merge is cheap.
  using Traits = AmalgamationTraits;
  double group_k = 0, group_s = 0, group_true = 0;
  const std::vector<char> joins_next = group_top_down(
      fund_count, fund_parent,
      [&](std::int32_t K) {
        group_k = fund_first[K + 1] - fund_first[K];
        group_s = static_cast<double>(cc[fund_first[K + 1] - 1]);
        group_true = group_k * group_k + 2 * group_k * group_s;
      },
      [&](std::int32_t c) {
        const double kc = fund_first[c + 1] - fund_first[c];
        const double sc = static_cast<double>(cc[fund_first[c + 1] - 1]);
        const double merged_k = kc + group_k;
        const double stored = merged_k * merged_k + 2 * merged_k * group_s;
        const double truth = group_true + kc * kc + 2 * kc * sc;
        const bool small = kc < Traits::small_columns && group_k < Traits::small_columns;
        const bool sparse_enough = (stored - truth) <= Traits::max_extra_fraction * stored &&
                                   merged_k <= Traits::max_merged_columns;
        if (!(small || sparse_enough)) return false;
        group_k = merged_k;
        group_true = truth;
        return true;
      });
  s.first.assign(1, 0);
  for (std::int32_t K = 0; K < fund_count; ++K)
    if (!joins_next[K]) s.first.push_back(fund_first[K + 1]);
  if (n == 0) s.first.assign(1, 0);
  s.count = static_cast<std::int32_t>(s.first.size()) - 1;
  s.supernode_of.resize(static_cast<std::size_t>(n));
  for (std::int32_t K = 0; K < s.count; ++K)
    for (std::int32_t j = s.first[K]; j < s.first[K + 1]; ++j) s.supernode_of[j] = K;
  s.parent.assign(static_cast<std::size_t>(s.count), -1);
  for (std::int32_t K = 0; K < s.count; ++K) {
    const std::int32_t up = col_parent[s.first[K + 1] - 1];
    s.parent[K] = up == -1 ? -1 : s.supernode_of[up];
  }

  // 4. Structures: S_K = rows > last(K) of K's columns in the pattern, and of
  // the children's structures.
  build_children(s);
  s.struct_ptr.assign(static_cast<std::size_t>(s.count) + 1, 0);
  std::vector<std::int32_t> mark(static_cast<std::size_t>(n), -1), rows;
  for (std::int32_t K = 0; K < s.count; ++K) {
    const std::int32_t last = s.first[K + 1] - 1;
    rows.clear();
    for (std::int32_t j = s.first[K]; j <= last; ++j) {
      const std::int32_t u = s.perm[j];
      for (std::int64_t e = pattern.start[u]; e < pattern.start[u + 1]; ++e) {
        const std::int32_t i = s.iperm[pattern.adj[e]];
        if (i > last && mark[i] != K) {
          mark[i] = K;
          rows.push_back(i);
        }
      }
    }
    for (std::int32_t c = s.child_ptr[K]; c < s.child_ptr[K + 1]; ++c) {
      const std::int32_t C = s.child_idx[c];
      for (std::int64_t e = s.struct_ptr[C]; e < s.struct_ptr[C + 1]; ++e) {
        const std::int32_t i = s.struct_idx[e];
        if (i > last && mark[i] != K) {
          mark[i] = K;
          rows.push_back(i);
        }
      }
    }
    std::sort(rows.begin(), rows.end());
    s.struct_idx.insert(s.struct_idx.end(), rows.begin(), rows.end());
    s.struct_ptr[K + 1] = static_cast<std::int64_t>(s.struct_idx.size());
  }
  finish_from_structures(s);
  if (times) {
    times->ordering = std::chrono::duration<double>(ordered - started).count();
    times->symbolic = std::chrono::duration<double>(Clock::now() - ordered).count();
  }
  return s;
}

}  // namespace

Symbolic merge_chains(const Symbolic& s, const ChainMerge& rule) {
  // Groups as the amalgamation's (group_top_down), with the chain rule.
  double group_k = 0, group_s = 0, group_ops = 0;
  auto ops = [](double k, double sk) { return (k + sk) * (k + sk) * k; };
  const std::vector<char> joins_next = group_top_down(
      s.count, s.parent,
      [&](std::int32_t K) {
        group_k = s.columns(K);
        group_s = static_cast<double>(s.structure_size(K));
        group_ops = ops(group_k, group_s);
      },
      [&](std::int32_t c) {
        const double kc = s.columns(c), sc = static_cast<double>(s.structure_size(c));
        const double merged_k = group_k + kc, parts = group_ops + ops(kc, sc);
        const auto min_front = static_cast<double>(rule.min_front);
        if (kc + sc < min_front || group_k + group_s < min_front || merged_k > rule.max_columns ||
            ops(merged_k, group_s) > (1.0 + rule.max_extra_ops) * parts)
          return false;
        group_k = merged_k;
        group_ops = parts;
        return true;
      });
  Symbolic m;
  m.n = s.n;
  m.perm = s.perm;
  m.iperm = s.iperm;
  std::vector<std::int32_t> new_of(static_cast<std::size_t>(s.count), 0);  // old supernode -> merged one
  m.first.assign(1, 0);
  for (std::int32_t K = 0; K < s.count; ++K) {
    new_of[K] = static_cast<std::int32_t>(m.first.size()) - 1;
    if (!joins_next[K]) m.first.push_back(s.first[K + 1]);
  }
  if (s.count == 0) m.first = s.first;
  m.count = static_cast<std::int32_t>(m.first.size()) - 1;
  m.supernode_of.resize(s.supernode_of.size());
  for (std::size_t j = 0; j < s.supernode_of.size(); ++j) m.supernode_of[j] = new_of[s.supernode_of[j]];
  // A group's parent and structure are its root's (the last old supernode in it).
  m.parent.assign(static_cast<std::size_t>(m.count), -1);
  m.struct_ptr.assign(static_cast<std::size_t>(m.count) + 1, 0);
  for (std::int32_t K = 0; K < s.count; ++K) {
    if (joins_next[K]) continue;
    const std::int32_t M = new_of[K];
    m.parent[M] = s.parent[K] == -1 ? -1 : new_of[s.parent[K]];
    m.struct_idx.insert(m.struct_idx.end(), s.struct_idx.begin() + s.struct_ptr[K],
                        s.struct_idx.begin() + s.struct_ptr[K + 1]);
    m.struct_ptr[M + 1] = static_cast<std::int64_t>(m.struct_idx.size());
  }
  build_children(m);
  finish_from_structures(m);
  return m;
}

void check_invariants(const Symbolic& s) {
  auto fail = [](const std::string& what) { throw std::logic_error("supernodal symbolic: " + what); };
  const std::int64_t n = s.n;
  if (static_cast<std::int64_t>(s.perm.size()) != n || static_cast<std::int64_t>(s.iperm.size()) != n)
    fail("perm/iperm sizes differ from n");
  for (std::int64_t j = 0; j < n; ++j) {
    if (s.perm[j] < 0 || s.perm[j] >= n) fail("perm[" + std::to_string(j) + "] outside 0..n-1");
    if (s.iperm[s.perm[j]] != j) fail("iperm is not the inverse of perm at " + std::to_string(j));
  }
  if (static_cast<std::int64_t>(s.first.size()) != s.count + 1 || s.first.front() != 0 || s.first.back() != n)
    fail("first[] does not span 0..n");
  for (std::int32_t K = 0; K < s.count; ++K) {
    if (s.first[K + 1] <= s.first[K]) fail("supernode " + std::to_string(K) + " is empty");
    for (std::int32_t j = s.first[K]; j < s.first[K + 1]; ++j)
      if (s.supernode_of[j] != K) fail("supernode_of disagrees with first at column " + std::to_string(j));
    if (s.parent[K] != -1 && s.parent[K] <= K) fail("parent of " + std::to_string(K) + " is not after it");
  }
  // Subtrees are contiguous ranges ending at their root (a postorder).
  std::vector<std::int32_t> size(static_cast<std::size_t>(s.count), 1);
  for (std::int32_t K = 0; K < s.count; ++K)
    if (s.parent[K] != -1) size[s.parent[K]] += size[K];
  for (std::int32_t K = 0; K < s.count; ++K)
    if (s.parent[K] != -1) {
      const std::int32_t P = s.parent[K];
      if (K < P - size[P] + 1) fail("supernode " + std::to_string(K) + " lies outside its parent's subtree range");
    }
  auto is_ancestor = [&](std::int32_t A, std::int32_t K) {
    for (std::int32_t at = s.parent[K]; at != -1; at = s.parent[at])
      if (at == A) return true;
    return false;
  };
  if (static_cast<std::int64_t>(s.struct_ptr.size()) != s.count + 1 || s.struct_ptr.front() != 0 ||
      s.struct_ptr.back() != static_cast<std::int64_t>(s.struct_idx.size()) ||
      s.struct_rel.size() != s.struct_idx.size())
    fail("structure arrays are inconsistent");
  for (std::int32_t K = 0; K < s.count; ++K) {
    const std::int32_t P = s.parent[K];
    if (P == -1 && s.structure_size(K) != 0) fail("root " + std::to_string(K) + " has a structure");
    for (std::int64_t e = s.struct_ptr[K]; e < s.struct_ptr[K + 1]; ++e) {
      const std::int32_t i = s.struct_idx[e];
      if (i < s.first[K + 1] || i >= n)
        fail("S_" + std::to_string(K) + " holds " + std::to_string(i) + ", not above K");
      if (e > s.struct_ptr[K] && s.struct_idx[e - 1] >= i) fail("S_" + std::to_string(K) + " is not sorted");
      if (!is_ancestor(s.supernode_of[i], K)) fail("S_" + std::to_string(K) + " holds a non-ancestor column");
      const std::int32_t rel = s.struct_rel[e];
      const bool rel_ok = rel >= 0 &&
                          (rel < s.columns(P) ? s.first[P] + rel == i
                                              : rel - s.columns(P) < s.structure_size(P) &&
                                                    s.struct_idx[s.struct_ptr[P] + rel - s.columns(P)] == i);
      if (!rel_ok)
        fail("struct_rel of S_" + std::to_string(K) + " does not place " + std::to_string(i) +
             " in the parent's front");
    }
  }
  std::vector<char> seen(static_cast<std::size_t>(s.count), 0);
  for (std::int32_t l = 0; l < s.levels(); ++l)
    for (std::int32_t e = s.level_ptr[l]; e < s.level_ptr[l + 1]; ++e) {
      const std::int32_t K = s.level_idx[e];
      if (seen[K]) fail("supernode " + std::to_string(K) + " is on two levels");
      seen[K] = 1;
      for (std::int32_t c = s.child_ptr[K]; c < s.child_ptr[K + 1]; ++c)
        if (!seen[s.child_idx[c]]) fail("a child of " + std::to_string(K) + " is not on a lower level");
    }
  if (std::count(seen.begin(), seen.end(), 1) != s.count) fail("levels miss a supernode");
  for (std::int32_t K = 0; K < s.count; ++K) {
    const std::int64_t k = s.columns(K), sk = s.structure_size(K);
    if (s.diag_offset[K + 1] - s.diag_offset[K] != k * k || s.panel_offset[K + 1] - s.panel_offset[K] != k * sk)
      fail("factor offsets of " + std::to_string(K) + " do not match its shape");
  }
}

}  // namespace apsp::supernodal
