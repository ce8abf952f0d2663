#include "supernodal/ordering.hpp"

#include <limits>
#include <numeric>
#include <string>

#include "apsp/error.hpp"
#include "supernodal/symbolic.hpp"

#if APSP_WITH_METIS
#include <metis.h>
#endif

namespace apsp::supernodal {

bool ordering_available() { return APSP_WITH_METIS != 0; }

std::vector<std::int32_t> nested_dissection(std::int64_t n, const std::vector<std::int64_t>& start,
                                            const std::vector<std::int32_t>& adj) {
  std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  if (!ordering_available())
    throw UsageError("the supernodal solver needs METIS for its ordering, and this build has none "
                     "(install libmetis-dev and rebuild with APSP_WITH_METIS)",
                     "algorithm");
  if (n <= 2 || adj.empty()) return perm;
#if APSP_WITH_METIS
  static_assert(sizeof(idx_t) == 4 || sizeof(idx_t) == 8, "METIS index width");
  if (sizeof(idx_t) == 4 && start[n] > std::numeric_limits<std::int32_t>::max())
    throw ResourceError("the symmetrised pattern has " + std::to_string(start[n]) +
                        " entries, more than this METIS build (32-bit idx_t) can order");
  idx_t nvtxs = static_cast<idx_t>(n);
  std::vector<idx_t> xadj(start.begin(), start.end()), adjncy(adj.begin(), adj.end());
  std::vector<idx_t> metis_perm(static_cast<std::size_t>(n)), metis_iperm(static_cast<std::size_t>(n));
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;
  const int status =
      METIS_NodeND(&nvtxs, xadj.data(), adjncy.data(), nullptr, options, metis_perm.data(), metis_iperm.data());
  if (status == METIS_ERROR_MEMORY)
    throw ResourceError("METIS_NodeND ran out of memory ordering " + std::to_string(n) + " vertices");
  if (status != METIS_OK)
    throw Error("METIS_NodeND failed (status " + std::to_string(status) + ") ordering " + std::to_string(n) +
                " vertices");
  // METIS: row i of the permuted matrix is row perm[i] of the original.
  for (std::int64_t j = 0; j < n; ++j) perm[j] = static_cast<std::int32_t>(metis_perm[j]);
#endif
  return perm;
}

}  // namespace apsp::supernodal
