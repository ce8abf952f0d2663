// Internal: the CPU verifier's check of a single row, so that the GPU
// certificate (src/cuda/verify.cpp), which finds the lowest failing row on the
// device, reports exactly the message apsp::verify gives for that row.
#pragma once

#include <cstdint>
#include <string>

#include "apsp/graph.hpp"

namespace apsp {

// The first violation apsp::verify reports for row i of a distance matrix
// (`row` holds n = normalized.n entries, distances from i), or empty when the
// row passes every check.
std::string first_violation_in_row(const Graph& normalized, const dist_t* row, std::int64_t i);

}  // namespace apsp
