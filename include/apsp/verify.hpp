// Certificate check of a distance matrix in O(n*m), without recomputing APSP.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp {

struct VerifyReport {
  bool ok = true;
  std::string first_violation;  // empty when ok; names i, j and the values
};

// Both functions throw InputError unless the graph is normalized
// (check_normalized); a matrix of the wrong shape is a failed report.
//
// Checks: d[i][i] == 0; every edge is relaxed (d[i][v] <= d[i][u] + w);
// every finite d[i][j], i != j, is attained through some in-edge of j
// (d[i][j] == d[i][u] + w(u,j)); entries are finite or kInf.
VerifyReport verify(const Graph& normalized, const std::vector<dist_t>& d);

// Checks that following pred from j reaches i and that the path weight equals d[i][j].
VerifyReport verify_predecessors(const Graph& normalized, const std::vector<dist_t>& d,
                                 const std::vector<vertex_t>& pred);

}  // namespace apsp
