// Graphs from the arrays of a sparse matrix (apsp/array_graph.hpp): COO and
// CSR/CSC entries built in parallel parts, each checking its own order, with
// an int32 attempt first for float and wide integer data. Host-only.
#include "apsp/array_graph.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/dense.hpp"
#include "apsp/error.hpp"
#include "core/dense_cells.hpp"

namespace apsp {

template <class W>
AnyGraph normalized_with_auto_weights(BasicGraph<W> g, bool known_normalized) {
  if (!known_normalized && !is_normalized(g)) g = normalize(g);
  const WeightType chosen = choose_weight_type(g);
  if (chosen == weight_type_of<W>) return AnyGraph(std::move(g));
  return convert_weights(AnyGraph(std::move(g)), chosen);
}
template AnyGraph normalized_with_auto_weights(Graph g, bool known_normalized);
template AnyGraph normalized_with_auto_weights(GraphF64 g, bool known_normalized);

namespace {

// Calls f(k, as_int64) over a 1-d integer array, by its stride, without copying.
template <class F>
void for_each_index(const ArrayView& a, const char* what, F&& f) {
  core::visit_dense(a.element, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point<T>::value || std::is_same<T, bool>::value) {
      throw InputError(std::string(what) + " must hold integers");
    } else {
      const T* p = static_cast<const T*>(a.data);
      const std::int64_t stride = a.stride;
      for (std::int64_t k = 0; k < a.size; ++k)
        f(static_cast<std::size_t>(k), static_cast<std::int64_t>(p[k * stride]));
    }
  });
}

// The entries of a 1-d integer array as int64, read by its stride.
std::vector<std::int64_t> int64_values(const ArrayView& a, const char* what) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(a.size));
  for_each_index(a, what, [&](std::size_t k, std::int64_t v) { values[k] = v; });
  return values;
}

// The error for stored entry k at (i, j) outside an n x n matrix (out of
// line: the entry loop stays small enough to inline).
[[noreturn, gnu::noinline, gnu::cold]] void throw_entry_outside(std::int64_t k, std::int64_t i, std::int64_t j,
                                                                std::int64_t n) {
  throw InputError("entry " + std::to_string(k) + " (" + std::to_string(i) + ", " + std::to_string(j) +
                   ") is outside the " + std::to_string(n) + " x " + std::to_string(n) + " matrix");
}

// InputError unless a graph of n vertices can be numbered by vertex_t.
void check_vertex_count(std::int64_t n) {
  if (n < 0 || n > std::numeric_limits<vertex_t>::max())
    throw InputError("vertex count " + std::to_string(n) + " is outside 0.." +
                     std::to_string(std::numeric_limits<vertex_t>::max()));
}

// An edge list built from a sparse matrix, and whether it came out in
// normalize()'s form (sorted by (src, dst), no duplicates, no self-loops),
// checked while it was written: then no second pass checks it.
template <class W>
struct BuiltGraph {
  BasicGraph<W> graph;
  bool normalized = false;
  bool real = false;  // an attempt at int32 weights met a weight that is not one: build it again as float64
};

// The parts a sparse matrix's m stored entries are built in: one per
// kEntriesPerPart (an OpenMP team costs microseconds, about what 2048
// entries take), at most kMaxParts. The count depends on m alone, not on
// the threads there are, so the parts' seams are the same (and tested the
// same) on any machine; the threads share the parts.
constexpr std::int64_t kEntriesPerPart = 2048;
constexpr std::int64_t kMaxParts = 256;

int entry_parts(std::size_t m) {
  return static_cast<int>(std::clamp<std::int64_t>(static_cast<std::int64_t>(m) / kEntriesPerPart, 1, kMaxParts));
}

// What graph_from_entries made of one part of the entries.
struct BuiltPart {
  std::int64_t kept = 0;  // edges written
  bool sorted = true;     // its edges strictly increasing in (src, dst), none a self-loop
  vertex_t first_src = 0, first_dst = 0, last_src = 0, last_dst = 0;  // its first and last edge, if kept > 0
  std::exception_ptr error;                                           // its first bad entry's (the part stops there)
  bool real = false;  // it stopped at a weight the exact engine does not take (integer attempts)
};

// Whether data of T may hold a weight that is not an int32 one: floats, and
// the integer types wider than int32 (int64, uint32, uint64). Their builds
// try int32 weights first.
template <class T>
inline constexpr bool kWiderThanInt32 = std::is_floating_point<T>::value ||
                                        (std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                                         sizeof(T) >= 4 && !std::is_same<T, std::int32_t>::value);

// A float or wide integer weight as the exact engine's int32 weight, for a
// build that tries int32 first (a float array of integers, scipy's usual
// float64 matrix, then needs no float64 edge list to scan and convert):
// false for "no edge" (+inf, NaN; -inf throws cell_weight's error).
// `integer` is false where choose_weight_type would pick float64 for the
// weight alone (is_auto_int_weight): the build stops and starts again
// in float64 (the graph's bound, (n-1) * max|w|, is normalized()'s).
template <class T>
bool integer_weight(T value, std::int64_t i, std::int64_t j, weight_t& w, bool& integer) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(value) || value == std::numeric_limits<T>::infinity()) return false;
    if (value == -std::numeric_limits<T>::infinity()) {
      double unused = 0;
      return cell_weight(value, false, i, j, unused);  // throws
    }
  }
  const auto v = static_cast<double>(value);
  integer = is_auto_int_weight(v);
  w = integer ? static_cast<weight_t>(v) : 0;
  return integer;
}

// One part of graph_from_entries: the edges of the entries walk(entry)
// hands over, written from `first` on, with their order. The flags are
// template arguments and every scalar comes by value, so the loop keeps
// them in registers (through references it reloaded each one after every
// edge it stored).
template <class W, bool directed, bool unweighted, bool kTryInteger, class T, class Walk>
BuiltPart build_part(BasicEdge<W>* const first, const std::int64_t n, const T* const weights, const std::int64_t stride,
                     Walk&& walk) {
  BasicEdge<W>* out = first;
  vertex_t last_src = -1, last_dst = -1;  // the last edge written; (-1, -1), below every edge, before the first
  bool sorted = true;
  bool integer = true;  // kTryInteger: every weight so far one the exact engine takes
  const auto emit = [&](vertex_t i, vertex_t j, W weight) __attribute__((always_inline)) {
    sorted &= (i > last_src || (i == last_src && j > last_dst)) && i != j;
    last_src = i;
    last_dst = j;
    *out++ = BasicEdge<W>{i, j, weight};
  };
  // Returns whether the walk goes on (false only when an integer attempt
  // meets a weight it cannot take).
  walk([&](std::int64_t k, std::int64_t i, std::int64_t j) __attribute__((always_inline)) {
    if (i < 0 || i >= n || j < 0 || j >= n) throw_entry_outside(k, i, j, n);
    W weight = 0;
    if constexpr (kTryInteger) {
      static_assert(std::is_same<W, weight_t>::value && kWiderThanInt32<T> && !unweighted,
                    "an integer attempt reads float or wide integer weights into int32 ones");
      if (!integer_weight(weights[k * stride], i, j, weight, integer)) return integer;
    } else {
      if (!cell_weight(weights[k * stride], unweighted, i, j, weight)) return true;
    }
    emit(static_cast<vertex_t>(i), static_cast<vertex_t>(j), weight);
    if (!directed) emit(static_cast<vertex_t>(j), static_cast<vertex_t>(i), weight);
    return true;
  });
  BuiltPart part;
  part.real = !integer;
  part.kept = out - first;
  part.sorted = sorted;
  if (part.kept > 0) {
    part.first_src = first->src;
    part.first_dst = first->dst;
    part.last_src = last_src;
    part.last_dst = last_dst;
  }
  return part;
}

// The graph of a sparse matrix's stored entries: entry k is i -> j with
// weight data[k] (every stored entry is an edge, explicit zeros too; +inf
// and NaN are none), and j -> i too when undirected. The entries are split
// into parts: part p is entries [cuts[p], cuts[p + 1]), and walk(p, entry)
// calls entry(k, i, j) for each of them in order (COO: row[k], col[k]; CSR:
// the rows the part covers, from indptr; CSC the same, swapped). Parts are
// built in parallel, each into its own slice of the edge list (sized for
// every entry, written by index, then closed up where entries were
// dropped), and each checks its own order; `data` is read in place. A bad
// entry throws the error of the first one in entry order, as a sequential
// pass would.
template <class W, bool kTryInteger, class Walk>
BuiltGraph<W> graph_from_entries(std::int64_t n, std::size_t m, const std::vector<std::int64_t>& cuts, Walk&& walk,
                                 const ArrayView& data, bool directed, bool unweighted) {
  check_vertex_count(n);
  if (data.size != static_cast<std::int64_t>(m))
    throw InputError("the sparse matrix's index and data arrays differ in length");
  const std::int64_t per_entry = directed ? 1 : 2;
  const auto parts = static_cast<std::int64_t>(cuts.size()) - 1;
  BuiltGraph<W> built;
  built.graph.n = n;
  built.graph.edges.resize(static_cast<std::size_t>(per_entry) * m);
  BasicEdge<W>* const edges = built.graph.edges.data();
  std::vector<BuiltPart> results(static_cast<std::size_t>(parts));
  // A plain local pointer, not the forwarding reference: clang's OpenMP
  // outlining rejects a reference parameter used from a lambda inside the
  // parallel region of a generic lambda.
  std::remove_reference_t<Walk>* const walk_ptr = &walk;
  core::visit_dense(data.element, [&](auto zero) {
    using T = decltype(zero);
    const auto* w = static_cast<const T*>(data.data);
    const std::int64_t stride = data.stride;
    const int threads = static_cast<int>(std::min<std::int64_t>(parts, omp_get_max_threads()));
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (std::int64_t p = 0; p < parts; ++p) {
      BuiltPart& part = results[static_cast<std::size_t>(p)];
      try {
        BasicEdge<W>* const first = edges + per_entry * cuts[static_cast<std::size_t>(p)];
        const auto part_walk = [walk_ptr, p](auto&& entry) { (*walk_ptr)(p, entry); };
        if constexpr (kTryInteger) {
          if constexpr (kWiderThanInt32<T>)
            part = directed ? build_part<W, true, false, true>(first, n, w, stride, part_walk)
                            : build_part<W, false, false, true>(first, n, w, stride, part_walk);
        } else if (directed) {
          part = unweighted ? build_part<W, true, true, false>(first, n, w, stride, part_walk)
                            : build_part<W, true, false, false>(first, n, w, stride, part_walk);
        } else {
          part = unweighted ? build_part<W, false, true, false>(first, n, w, stride, part_walk)
                            : build_part<W, false, false, false>(first, n, w, stride, part_walk);
        }
      } catch (...) {
        part.error = std::current_exception();
      }
    }
  });
  // An integer attempt that met a real weight is over: the float64 build
  // reads every entry again (and reports the first bad one, which may lie
  // after the real weight in a part that stopped there).
  if (std::any_of(results.begin(), results.end(), [](const BuiltPart& part) { return part.real; })) {
    built.real = true;
    return built;
  }
  // The first bad entry is in the first part that failed (each part stops at
  // its own first).
  for (const BuiltPart& part : results)
    if (part.error) std::rethrow_exception(part.error);
  // Close up the parts (left moves: a part's edges never land past where
  // they were written) and check the order across their seams.
  BasicEdge<W>* end = edges;
  bool sorted = true;
  const BuiltPart* before = nullptr;  // the last part with an edge
  for (std::int64_t p = 0; p < parts; ++p) {
    const BuiltPart& part = results[static_cast<std::size_t>(p)];
    BasicEdge<W>* const first = edges + per_entry * cuts[static_cast<std::size_t>(p)];
    if (end != first) std::copy(first, first + part.kept, end);
    end += part.kept;
    sorted &= part.sorted;
    if (part.kept == 0) continue;
    if (before && (before->last_src > part.first_src ||
                   (before->last_src == part.first_src && before->last_dst >= part.first_dst)))
      sorted = false;
    before = &part;
  }
  built.graph.edges.resize(static_cast<std::size_t>(end - edges));
  built.normalized = sorted;
  return built;
}

// `m` entries cut into entry_parts(m) equal parts (cuts[0] = 0, cuts[P] = m).
std::vector<std::int64_t> equal_cuts(std::size_t m) {
  const int parts = entry_parts(m);
  std::vector<std::int64_t> cuts(static_cast<std::size_t>(parts) + 1);
  for (int p = 0; p <= parts; ++p) cuts[static_cast<std::size_t>(p)] = static_cast<std::int64_t>(m) * p / parts;
  return cuts;
}

// A COO matrix's entries for graph_from_entries: row[k] -> col[k].
template <class W, bool kTryInteger>
BuiltGraph<W> coo_entries(std::int64_t n, const std::vector<std::int64_t>& row, const std::vector<std::int64_t>& col,
                          const ArrayView& data, bool directed, bool unweighted) {
  if (static_cast<std::int64_t>(row.size()) != data.size || static_cast<std::int64_t>(col.size()) != data.size)
    throw InputError("the sparse matrix's index and data arrays differ in length");
  const std::vector<std::int64_t> cuts = equal_cuts(row.size());
  return graph_from_entries<W, kTryInteger>(
      n, static_cast<std::size_t>(data.size), cuts,
      [&](std::int64_t p, auto&& entry) {
        const std::int64_t* const from = row.data();  // locals in the loop (see build_part)
        const std::int64_t* const to = col.data();
        for (std::int64_t k = cuts[static_cast<std::size_t>(p)], end = cuts[static_cast<std::size_t>(p) + 1]; k < end;
             ++k)
          if (!entry(k, from[k], to[k])) return;
      },
      data, directed, unweighted);
}

// A CSR matrix's entries for graph_from_entries (CSC's with `transposed`:
// column -> row), row by row from indptr (n + 1 non-decreasing entries from
// 0 to nnz, checked), the column indices read in place: scipy's int32 and
// int64 index arrays by their stride, other integer types through an int64
// copy. Parts are whole rows, about equal in entries.
template <class W, bool kTryInteger>
BuiltGraph<W> csr_entries(std::int64_t n, const ArrayView& indptr, const ArrayView& indices, const ArrayView& data,
                          bool directed, bool unweighted, bool transposed) {
  check_vertex_count(n);
  const auto nnz = static_cast<std::size_t>(data.size);
  const std::vector<std::int64_t> starts = int64_values(indptr, "indptr");
  if (static_cast<std::int64_t>(starts.size()) != n + 1)
    throw InputError("indptr must have n + 1 = " + std::to_string(n + 1) + " entries");
  for (std::int64_t r = 0; r < n; ++r)
    if ((r == 0 && starts[0] != 0) || starts[r + 1] < starts[r] || starts[r + 1] > static_cast<std::int64_t>(nnz))
      throw InputError("indptr is not a non-decreasing list from 0 to nnz at row " + std::to_string(r));
  if (n >= 0 && starts[n] != static_cast<std::int64_t>(nnz))
    throw InputError("indptr ends at " + std::to_string(starts[n]) + ", not at nnz = " + std::to_string(nnz));
  if (indices.size != static_cast<std::int64_t>(nnz))
    throw InputError("the sparse matrix's index and data arrays differ in length");
  // Part p is rows [row_cuts[p], row_cuts[p + 1]): from the first row that
  // starts at or after its share of the entries.
  const int parts = n > 0 ? entry_parts(nnz) : 1;
  std::vector<std::int64_t> row_cuts(static_cast<std::size_t>(parts) + 1, 0), cuts(row_cuts.size(), 0);
  for (int p = 1; p <= parts; ++p) {
    const std::int64_t share = static_cast<std::int64_t>(nnz) * p / parts;
    row_cuts[static_cast<std::size_t>(p)] =
        p == parts ? n : std::lower_bound(starts.begin(), starts.end() - 1, share) - starts.begin();
    cuts[static_cast<std::size_t>(p)] = starts[static_cast<std::size_t>(row_cuts[static_cast<std::size_t>(p)])];
  }
  const auto rows = [&](const auto* column, std::int64_t stride) {
    return graph_from_entries<W, kTryInteger>(
        n, nnz, cuts,
        [&](std::int64_t p, auto&& entry) {
          // Locals, not the captured references, in the loop (see build_part).
          const auto* const col = column;
          const std::int64_t col_stride = stride;
          const std::int64_t* const start = starts.data();
          const bool swap = transposed;
          for (std::int64_t r = row_cuts[static_cast<std::size_t>(p)]; r < row_cuts[static_cast<std::size_t>(p) + 1];
               ++r)
            for (std::int64_t k = start[r], end = start[r + 1]; k < end; ++k) {
              const auto c = static_cast<std::int64_t>(col[k * col_stride]);
              if (!(swap ? entry(k, c, r) : entry(k, r, c))) return;
            }
        },
        data, directed, unweighted);
  };
  if (indices.element == DenseElement::int32)
    return rows(static_cast<const std::int32_t*>(indices.data), indices.stride);
  if (indices.element == DenseElement::int64)
    return rows(static_cast<const std::int64_t*>(indices.data), indices.stride);
  const std::vector<std::int64_t> columns = int64_values(indices, "indices");
  return rows(columns.data(), std::int64_t{1});
}


// The graph `build(W{}, try_integer)` makes of a sparse matrix, normalized
// with the auto weight type: int32 weights for data up to int32 wide; for
// float data and wider integers (unless unweighted) an attempt at int32
// first (std::true_type: every weight an integer the exact engine takes,
// choose_weight_type's per-weight rule, one pass), and float64 weights (as
// given, integers beyond 2^53 rounded as scipy rounds them) only when the
// attempt meets one that is not.
template <class Build>
AnyGraph built(const ArrayView& data, bool unweighted, Build build) {
  const bool wide = core::visit_dense(data.element, [](auto zero) { return kWiderThanInt32<decltype(zero)>; });
  if (wide && !unweighted) {
    BuiltGraph<weight_t> integers = build(weight_t{}, std::true_type{});
    if (!integers.real) return normalized_with_auto_weights(std::move(integers.graph), integers.normalized);
    BuiltGraph<double> reals = build(double{}, std::false_type{});
    return normalized_with_auto_weights(std::move(reals.graph), reals.normalized);
  }
  BuiltGraph<weight_t> integers = build(weight_t{}, std::false_type{});
  return normalized_with_auto_weights(std::move(integers.graph), integers.normalized);
}

}  // namespace

AnyGraph graph_from_coo(std::int64_t n, const ArrayView& row, const ArrayView& col, const ArrayView& data,
                        bool directed, bool unweighted) {
  const std::vector<std::int64_t> rows = int64_values(row, "row");
  const std::vector<std::int64_t> cols = int64_values(col, "col");
  return built(data, unweighted, [&](auto w, auto try_integer) {
    return coo_entries<decltype(w), decltype(try_integer)::value>(n, rows, cols, data, directed, unweighted);
  });
}

AnyGraph graph_from_csr(std::int64_t n, const ArrayView& indptr, const ArrayView& indices, const ArrayView& data,
                        bool directed, bool unweighted, bool transposed) {
  return built(data, unweighted, [&](auto w, auto try_integer) {
    return csr_entries<decltype(w), decltype(try_integer)::value>(n, indptr, indices, data, directed, unweighted,
                                                                  transposed);
  });
}

}  // namespace apsp
