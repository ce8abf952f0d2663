// Graphs from the arrays of a sparse matrix, read in place: COO (row, col,
// data) and CSR / CSC (indptr, indices, data), with scipy.sparse.csgraph's
// meaning of a stored entry (apsp::cell_weight, apsp/dense.hpp). What the
// Python binding builds a scipy.sparse input with; the file readers build
// theirs edge by edge (io::detail::GraphBuilder). Host-only.
#pragma once

#include <cstdint>

#include "apsp/dense.hpp"
#include "apsp/graph.hpp"

namespace apsp {

// A 1-d array read in place: element k is
// static_cast<const T*>(data)[k * stride], k in 0..size-1, T the C++ type of
// `element` (bool, the fixed-width integers, float, double). The stride is in
// elements and may be anything. The memory must stay valid and unchanged
// while a function below reads it.
struct ArrayView {
  const void* data = nullptr;  // may be null when size == 0
  std::int64_t size = 0;
  std::int64_t stride = 1;
  DenseElement element = DenseElement::float64;
};

// `g` in normalize()'s form (normalized unless is_normalized says it is
// already, or `known_normalized` that its builder checked it) with the auto
// weight type of apsp::choose_weight_type: an int32 graph whose distances
// int32 cannot hold becomes float64, a float64 graph of integers whose
// distances int32 holds becomes int32.
template <class W>
AnyGraph normalized_with_auto_weights(BasicGraph<W> g, bool known_normalized = false);

// The normalized graph of an n x n sparse matrix's stored entries, in the
// auto weight type (normalized_with_auto_weights): entry k is the edge
// row[k] -> col[k] (COO), or r -> indices[k] for k in [indptr[r],
// indptr[r + 1]) (CSR; CSC with `transposed`: indices[k] -> r), weighing
// data[k] (1 when `unweighted`); `directed` false adds every edge both ways.
// A stored entry is an edge, an explicit zero a zero-weight one, except
// +inf and NaN (no edge unless `unweighted`); duplicates keep the lightest,
// self-loops are dropped (a negative one is a NegativeCycleError).
//
// Built in parallel parts of 2048 entries (OpenMP; parts fixed by the entry
// count, not by the threads), each written in place and checking its own
// order, so a sorted input (a CSR with sorted indices) is not sorted again.
// Float and int64 / uint32 / uint64 data are read as int32 weights first;
// the first weight that is not an integer inside int32 stops that attempt and
// the graph is built again in float64 (integers beyond 2^53 round as scipy's
// conversion rounds them).
//
// Throws InputError naming the first bad entry in entry order, whatever part
// holds it: a vertex outside 0..n-1, a -inf weight, index arrays of
// different lengths or of a non-integer type, an indptr that is not n + 1
// non-decreasing entries from 0 to nnz; and for n outside 0..int32 max.
AnyGraph graph_from_coo(std::int64_t n, const ArrayView& row, const ArrayView& col, const ArrayView& data,
                        bool directed, bool unweighted);
AnyGraph graph_from_csr(std::int64_t n, const ArrayView& indptr, const ArrayView& indices, const ArrayView& data,
                        bool directed, bool unweighted, bool transposed);

}  // namespace apsp
