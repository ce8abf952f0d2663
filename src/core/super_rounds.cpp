#include "core/super_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"

namespace apsp::core {

std::vector<SuperJob> super_round_jobs(std::int64_t blocks, std::int64_t round) {
  if (blocks < 1 || round < 0 || round >= blocks)
    throw UsageError("super-round " + std::to_string(round) + " of " + std::to_string(blocks) + " blocks", "round");
  using Step = SuperJob::Step;
  std::vector<SuperJob> jobs;
  jobs.reserve(static_cast<std::size_t>(blocks * blocks));
  jobs.push_back({Step::diagonal, round, round, round});
  for (std::int64_t j = 0; j < blocks; ++j)
    if (j != round) jobs.push_back({Step::row_panel, round, round, j});
  for (std::int64_t i = 0; i < blocks; ++i)
    if (i != round) jobs.push_back({Step::column_panel, round, i, round});
  for (std::int64_t i = 0; i < blocks; ++i)
    for (std::int64_t j = 0; j < blocks; ++j)
      if (i != round && j != round) jobs.push_back({Step::update, round, i, j});
  return jobs;
}

void run_super_rounds(SuperRoundExecutor& executor, std::int64_t blocks, std::int64_t first_round,
                      const RoundBoundary& at_boundary) {
  if (first_round < 0 || first_round > blocks)
    throw UsageError("first super-round " + std::to_string(first_round) + " of " + std::to_string(blocks),
                     "first_round");
  for (std::int64_t round = first_round; round < blocks; ++round) {
    for (const SuperJob& job : super_round_jobs(blocks, round)) executor.run(job);
    executor.end_round(round);
    if (at_boundary) at_boundary(round + 1, blocks);
  }
}

std::uint64_t super_device_bytes(const SuperShape& shape, std::int64_t cell_bytes, bool predecessors) {
  const auto order = static_cast<std::uint64_t>(shape.order());
  const auto width = static_cast<std::uint64_t>(shape.width);
  const auto cell = static_cast<std::uint64_t>(cell_bytes);
  constexpr std::uint64_t kWord = 4;
  // super-row (cells) + transposed super-column (words); ring of three,
  // diagonal, row-panel scratch (cells); diagonal transposed (words); the
  // closure's 128 x width panel words.
  const std::uint64_t midpoints = predecessors ? width * width * 5 * kWord + 128 * width * kWord : 0;
  return order * width * (cell + kWord) + width * width * (5 * cell + kWord) + 128 * width * kWord + midpoints;
}

SuperShape choose_super_shape(const SuperShapeInputs& in) {
  if (in.granule < 1 || in.cell_bytes < 1 || in.n < 0) throw UsageError("super-tile shape inputs", "granule");
  const std::int64_t g = in.granule;
  const std::int64_t n_g = round_up(std::max<std::int64_t>(in.n, 1), g);
  auto fits = [&](const SuperShape& s) {
    return super_device_bytes(s, in.cell_bytes, in.predecessors) <= in.device_bytes;
  };
  if (in.forced_width > 0) {
    if (in.forced_width % g != 0)
      throw UsageError("the super-tile width " + std::to_string(in.forced_width) + " is not a multiple of " +
                           std::to_string(g),
                       "super_width");
    const SuperShape s{in.forced_width, ceil_div(n_g, in.forced_width)};
    if (!fits(s))
      throw ResourceError("out-of-core fw: super-tiles " + std::to_string(s.width) + " wide need " +
                          std::to_string(super_device_bytes(s, in.cell_bytes, in.predecessors)) +
                          " bytes of device memory, " + std::to_string(in.device_bytes) + " available");
    return s;
  }
  const bool rated = in.link_bytes_per_second > 0 && in.updates_per_second > 0;
  const double updates = rated ? in.updates_per_second : 1.0;
  const double link = rated ? in.link_bytes_per_second : std::numeric_limits<double>::infinity();
  // Bytes each cell moves over the link: its distance, and its midpoint in
  // predecessor mode.
  const auto cell = static_cast<double>(in.cell_bytes + (in.predecessors ? 4 : 0));
  SuperShape best;
  double best_seconds = std::numeric_limits<double>::infinity();
  for (std::int64_t blocks = 1; blocks <= n_g / g; ++blocks) {
    const SuperShape s{round_up(ceil_div(n_g, blocks), g), blocks};
    if (!fits(s)) continue;
    const double b = static_cast<double>(blocks), width = static_cast<double>(s.width);
    // Each super-tile of each round: its product or its two copies over one
    // direction of the link with the margin, whichever is longer; and per
    // round one super-tile in and one out that nothing overlaps (fill and
    // drain).
    const double tile_seconds =
        std::max(width * width * width / updates, kSuperCopyMargin * 2.0 * width * width * cell / link);
    const double seconds = b * b * b * tile_seconds + b * 2.0 * width * width * cell / link;
    if (seconds < best_seconds) {
      best_seconds = seconds;
      best = s;
    }
  }
  if (best.blocks == 0)
    throw ResourceError("out-of-core fw on " + std::to_string(in.n) + " vertices: no super-tile width fits " +
                        std::to_string(in.device_bytes) + " bytes of device memory");
  return best;
}

}  // namespace apsp::core
