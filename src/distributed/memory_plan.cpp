// The per-rank memory choice of distributed fw (distributed/memory_plan.hpp).
#include "distributed/memory_plan.hpp"

#include <algorithm>
#include <vector>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "core/resources.hpp"

namespace apsp::dist {
namespace {

constexpr std::uint64_t kKernelReserve = std::uint64_t{64} << 20;  // the GPU engine's margin for its kernels
constexpr std::int64_t kClosureTile = 128;                         // fw_out_of_core's closure workspace rows

std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0)); }

std::string where(const RankMemory& m, bool device) {
  if (device) return m.device_budget ? "allowed (memory budget)" : "free on its device";
  return m.host_budget ? "allowed (memory budget)" : "available on the host";
}

}  // namespace

ProcessGrid grid_for_tile(const ProcessGrid& grid, std::int64_t n, std::int64_t tile) {
  ProcessGrid g = grid;
  g.tiles = tile > 0 ? ceil_div(n, tile) : 0;
  return g;
}

std::uint64_t gpu_in_core_device_bytes(const ProcessGrid& grid, std::int64_t tile, std::int64_t cell_bytes,
                                       std::int64_t unit) {
  const std::int64_t rows = grid.local_rows(), cols = grid.local_cols();
  const std::int64_t width = round_up(cols, unit) * tile;  // L
  const std::int64_t chunks = width > 0 ? ceil_div(rows, width / tile) : 0;
  const std::uint64_t cells = u(rows * tile * width);
  // Per slot: row (b x L), column (R b x b), pivot (b x b) cells; panel_t
  // (chunks x b x L) and pivot_t (b x L) int32 words.
  const std::uint64_t slot = (u(tile * width) + u(rows * tile * tile) + u(tile * tile)) * u(cell_bytes) +
                             (u(chunks * tile * width) + u(tile * width)) * 4;
  return cells * u(cell_bytes) + 2 * slot + kKernelReserve;
}

ShareBytes gpu_out_of_core_bytes(const ProcessGrid& grid_at_width, std::int64_t width, std::int64_t cell_bytes) {
  const std::int64_t rows = grid_at_width.local_rows(), cols = grid_at_width.local_cols();
  const std::uint64_t w = u(width), c = u(cell_bytes);
  const std::uint64_t row_panel = w * u(cols * width), column_panel = u(rows * width) * w, pivot = w * w;
  ShareBytes b;
  b.host = (u(rows * width) * u(cols * width) + 2 * (row_panel + column_panel + pivot)) * c;
  // Per slot: row panel cells, column panel as int32 words, pivot cells and
  // its int32 words; then the ring of three, the scratch tile, the workspace.
  b.device = 2 * (row_panel * c + column_panel * 4 + pivot * (c + 4)) + 4 * pivot * c + u(kClosureTile) * w * 4 +
             kKernelReserve;
  return b;
}

std::uint64_t cpu_share_bytes(const ProcessGrid& grid, std::int64_t tile, std::int64_t cell_bytes, bool predecessors) {
  const std::uint64_t rows = u(grid.local_rows() * tile), cols = u(grid.local_cols() * tile), b = u(tile);
  const std::uint64_t plane = u(cell_bytes) + (predecessors ? 4 : 0);
  return (rows * cols + 2 * (b * cols + rows * b + b * b)) * plane;
}

LocalChoice choose_locally(const ShareShape& shape, const RankMemory& memory) {
  using resources::describe_bytes;
  LocalChoice choice;
  const ProcessGrid in_core_grid = grid_for_tile(shape.grid, shape.n, shape.tile);
  if (!memory.gpu) {
    const std::uint64_t need = cpu_share_bytes(in_core_grid, shape.tile, shape.cell_bytes, shape.predecessors);
    if (!memory.host_known || need <= memory.host) {
      choice.width = kInCore;
      choice.why = "its share needs " + describe_bytes(need) + " of host memory";
    } else {
      choice.why = "its share of fw (n = " + std::to_string(shape.n) + ") needs " + describe_bytes(need) +
                   " of host memory, " + describe_bytes(memory.host) + " " + where(memory, false) +
                   " (a CPU rank keeps its share in host memory in core and out of core alike)";
    }
    return choice;
  }
  const std::uint64_t in_core = gpu_in_core_device_bytes(in_core_grid, shape.tile, shape.cell_bytes, shape.unit);
  const std::string in_core_text = "its share of fw (n = " + std::to_string(shape.n) + ") needs " +
                                   describe_bytes(in_core) + " of device memory in core, " +
                                   describe_bytes(memory.device) + " " + where(memory, true);
  if (in_core <= memory.device) {
    choice.width = kInCore;
    choice.why = "its share needs " + describe_bytes(in_core) + " of device memory, " + describe_bytes(memory.device) +
                 " " + where(memory, true);
    return choice;
  }
  // The widest super width that fits, up to one super-tile per process row
  // and column (wider would leave ranks without tiles).
  const int parts = std::max(shape.grid.rows, shape.grid.cols);
  const std::int64_t widest = std::max(shape.granule, round_up(ceil_div(shape.n, parts), shape.granule));
  ShareBytes narrowest;
  for (std::int64_t w = widest; w >= shape.granule; w -= shape.granule) {
    const ShareBytes need = gpu_out_of_core_bytes(grid_for_tile(shape.grid, shape.n, w), w, shape.cell_bytes);
    if (w == shape.granule) narrowest = need;
    if (need.device <= memory.device && (!memory.host_known || need.host <= memory.host)) {
      choice.width = w;
      choice.why = in_core_text + "; out of core at super width " + std::to_string(w) + " it needs " +
                   describe_bytes(need.device) + " of device and " + describe_bytes(need.host) +
                   " of pinned host memory";
      return choice;
    }
  }
  choice.why = in_core_text + "; out of core (super width " + std::to_string(shape.granule) +
               ", the narrowest) it needs " + describe_bytes(narrowest.device) + " of device and " +
               describe_bytes(narrowest.host) + " of pinned host memory, " +
               (memory.host_known ? describe_bytes(memory.host) + " " + where(memory, false) : "host unknown");
  return choice;
}

MemoryPlan agree_memory_plan(Communicator& comm, const ShareShape& shape, const RankMemory& memory) {
  LocalChoice local;
  try {
    agree(comm, [&] {
      local = choose_locally(shape, memory);
      if (local.width == 0) throw ResourceError(local.why + ": it fits neither in core nor out of core");
    });
  } catch (const Agreed<ResourceError>& e) {
    if (e.origin_rank() >= 0) throw;
    // Every rank failed (agree names none): the message is rank 0's.
    throw Agreed<ResourceError>(-1, "rank 0 (and every other rank): " + std::string(e.what()));
  }
  const auto ranks = static_cast<std::size_t>(comm.size());
  std::vector<std::int64_t> verdicts(ranks + 1, 1);
  verdicts[0] = local.width;
  verdicts[1 + static_cast<std::size_t>(comm.rank())] = local.width == kInCore ? 1 : 0;
  comm.all_reduce(verdicts.data(), verdicts.data(), verdicts.size(), ReduceOp::min);
  MemoryPlan plan;
  if (verdicts[0] == kInCore) {
    plan.summary = "in core on every rank";
    return plan;
  }
  plan.super_width = verdicts[0];
  agree(comm, [&] {
    if (local.width == kInCore || local.width == plan.super_width) return;
    const ShareBytes need =
        gpu_out_of_core_bytes(grid_for_tile(shape.grid, shape.n, plan.super_width), plan.super_width, shape.cell_bytes);
    if (need.device > memory.device || (memory.host_known && need.host > memory.host))
      throw ResourceError(
          "out of core at the agreed super width " + std::to_string(plan.super_width) + " its share needs " +
          resources::describe_bytes(need.device) + " of device and " + resources::describe_bytes(need.host) +
          " of pinned host memory, " + resources::describe_bytes(memory.device) + " " + where(memory, true) +
          (memory.host_known ? ", " + resources::describe_bytes(memory.host) + " " + where(memory, false)
                             : std::string()));
  });
  std::string out;
  for (std::size_t r = 0; r < ranks; ++r)
    if (verdicts[1 + r] == 0) out += (out.empty() ? "" : ", ") + std::to_string(r);
  plan.summary = "out of core on every rank at super width " + std::to_string(plan.super_width) +
                 " (the share of rank" + (out.find(',') == std::string::npos ? " " : "s ") + out +
                 " exceeds its device memory in core)";
  return plan;
}

}  // namespace apsp::dist
