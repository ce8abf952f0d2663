// Private to src/distributed: the per-rank memory choice of distributed fw
// (issue 24). Each rank measures what it may use (its device's free memory
// less a reserve, or DistributedOptions::memory_budget; the host's available
// memory, core/resources.hpp) and what its share of the tiles needs, decides
// locally (in core, out of core at the widest super width that fits, or
// neither), and the ranks agree in one all-reduce: every rank in core, or
// every rank out of core at the narrowest of the ranks' widths (the round
// schedule's tile is one width for all). A share that fits neither is
// refused before any work, naming the rank (agree's "rank R: ") and the
// sizes. Host-safe and free of CUDA: the CPU tests drive it with made-up
// budgets.
#pragma once

#include <cstdint>
#include <string>

#include "apsp/comm.hpp"
#include "distributed/grid.hpp"

namespace apsp::dist {

// What one rank may use.
struct RankMemory {
  bool gpu = false;            // a GPU rank: `device` counts; a CPU rank keeps its share in host memory
  std::uint64_t device = 0;    // device bytes this rank may use
  bool device_budget = false;  // `device` is DistributedOptions::memory_budget, not the free memory
  std::uint64_t host = 0;      // host bytes available
  bool host_known = false;     // false: the host could not be asked; nothing is refused for host memory
  bool host_budget = false;    // `host` is the memory budget (CPU ranks)
};

// Bytes a rank's share needs where it lives.
struct ShareBytes {
  std::uint64_t device = 0;
  std::uint64_t host = 0;
};

// The grid of `grid`'s ranks for n vertices in tiles of `tile`.
ProcessGrid grid_for_tile(const ProcessGrid& grid, std::int64_t n, std::int64_t tile);

// A GPU rank in core (src/distributed/gpu_engine.cu): its R x C tiles of b
// (R*b rows of round_up(C, unit)*b cells of cell_bytes), two slots of panels
// (row, column, pivot in cells; the column panel's and pivot's transposed
// int32 words) and 64 MiB for the kernels. `unit`: tile columns per phase-3
// C tile (2 for int16).
std::uint64_t gpu_in_core_device_bytes(const ProcessGrid& grid, std::int64_t tile, std::int64_t cell_bytes,
                                       std::int64_t unit);
// A GPU rank out of core at super width W (grid in tiles of W): its share
// in pinned host memory (R*W x C*W cells) with two slots of panels beside
// it (row W x C*W, column R*W x W, pivot W x W); on the device the
// super-round buffers: per slot the row panel, the column panel as int32
// words and the pivot with its transposed words, plus fw_out_of_core's ring
// of three W x W super-tiles, its scratch tile and the closure's 128 x W
// workspace. (The engine, gpu_ooc_engine.cu, keeps one set of device
// panels, and with look-ahead a second executor of one slot for the panel
// phase, which it leaves out when the device cannot hold it.)
ShareBytes gpu_out_of_core_bytes(const ProcessGrid& grid_at_width, std::int64_t width, std::int64_t cell_bytes);
// A CPU rank: its R*b x C*b cells (distances, and predecessors when asked)
// and two slots of panels, in host memory.
std::uint64_t cpu_share_bytes(const ProcessGrid& grid, std::int64_t tile, std::int64_t cell_bytes, bool predecessors);

// What a rank's share is.
struct ShareShape {
  std::int64_t n = 0;
  ProcessGrid grid;             // this rank's place; tiles are recomputed per width
  std::int64_t tile = 128;      // the in-core tile b
  std::int64_t cell_bytes = 4;  // int32 distances (an int16 attempt needs less and may widen to int32)
  std::int64_t unit = 1;        // tile columns per phase-3 C tile
  std::int64_t granule = 128;   // super widths are multiples of it
  bool predecessors = false;    // CPU ranks: a predecessor plane beside the distances
};

// This rank's verdict before the agreement.
struct LocalChoice {
  // kInCore when the share fits in core; else the widest super width whose
  // out-of-core buffers fit (device and host); 0 when none does.
  std::int64_t width = 0;
  std::string why;  // the sizes behind the verdict, for the summary or the refusal
};
inline constexpr std::int64_t kInCore = INT64_MAX;

// The local verdict for `shape` under `memory`. CPU ranks: in core when the
// share fits the host, else 0 (out of core keeps the share in host memory
// too). GPU ranks: in core when the tiles fit the device (and, when known,
// the staging fits the host); else the widest multiple of the granule up to
// a super-tile per rank and dimension whose out-of-core bytes fit.
LocalChoice choose_locally(const ShareShape& shape, const RankMemory& memory);

// The agreed plan.
struct MemoryPlan {
  std::int64_t super_width = 0;  // 0: in core on every rank; else every rank out of core at this width
  std::string summary;           // which ranks went out of core and why
};

// Collective: refuses (agree: ResourceError "rank R: ...", on every rank)
// when some rank's share fits neither way; otherwise one all-reduce of P + 1
// values (min): the narrowest local width, and for each rank whether it
// fits in core, from which the summary names the ranks that need out of
// core. For an out-of-core plan every rank then checks that the agreed
// width fits it too (the sizes are not monotone in the width: padding) and
// refuses otherwise.
MemoryPlan agree_memory_plan(Communicator& comm, const ShareShape& shape, const RankMemory& memory);

}  // namespace apsp::dist
