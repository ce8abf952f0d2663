#include "core/row_blocks.hpp"

namespace apsp {

std::int64_t staging_rows(std::int64_t n, std::size_t row_bytes, int threads) {
  constexpr std::int64_t kBlockBytes = std::int64_t{1} << 20, kMaxRows = 64;
  const std::int64_t by_size =
      std::max<std::int64_t>(1, kBlockBytes / static_cast<std::int64_t>(std::max<std::size_t>(1, row_bytes)));
  const std::int64_t by_balance = std::max<std::int64_t>(1, n / (4 * std::max(1, threads)));
  return std::min({by_size, kMaxRows, by_balance});
}

}  // namespace apsp
