// Row blocks for producers that hand an n-row matrix over in pieces: the
// block size, and a parallel loop over the blocks that stops at the first
// error. Used by the file writers (io), the sinks and the CPU backend.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/first_error.hpp"

namespace apsp {

// Rows per block for a producer that stages rows in a buffer of its own
// before put(): about 1 MiB of `row_bytes`-byte rows, at most 64 rows, and
// small enough that `threads` threads get about four blocks each.
std::int64_t staging_rows(std::int64_t n, std::size_t row_bytes, int threads);

// Calls put(first_row, rows) for blocks of about 1 MiB of `row_bytes`-byte
// rows covering [0, n), from several threads (outside a parallel region);
// the first exception stops the others and is rethrown.
template <class Put>
void put_in_blocks(std::int64_t n, std::size_t row_bytes, Put put) {
  if (n <= 0) return;
  const std::int64_t block = staging_rows(n, row_bytes, omp_get_max_threads());
  const std::int64_t blocks = (n + block - 1) / block;
  FirstError errors;
#pragma omp parallel for schedule(dynamic) if (blocks > 1 && !omp_in_parallel())
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (errors.stopped()) continue;
    errors.run([&] { put(b * block, std::min(block, n - b * block)); });
  }
  errors.rethrow();
}

}  // namespace apsp
