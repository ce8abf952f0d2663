// The fill-reducing ordering of the supernodal solver: nested dissection by
// METIS (METIS_NodeND) when the build has it (APSP_WITH_METIS). Host-only;
// only ordering.cpp includes metis.h.
#pragma once

#include <cstdint>
#include <vector>

namespace apsp::supernodal {

// A nested-dissection ordering of the symmetric pattern of n vertices given
// as CSR (start: n + 1 offsets into adj; no self-loops, no duplicates, every
// edge stored both ways): perm[new] = old. Graphs without edges (and n <= 2)
// keep the identity. Deterministic (fixed seed). Throws UsageError (option
// "algorithm") naming METIS when the build lacks it, Error naming the failed
// METIS call otherwise.
std::vector<std::int32_t> nested_dissection(std::int64_t n, const std::vector<std::int64_t>& start,
                                            const std::vector<std::int32_t>& adj);

}  // namespace apsp::supernodal
