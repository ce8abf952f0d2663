// The supernodal GPU solver: see supernodal_solver.hpp. The algorithm (the
// same as the CPU reference's, src/supernodal/): for supernode K with k
// columns and structure S_K (s rows), in etree postorder,
//   factor:   F_K = K's entries of the graph, min the children's update
//             matrices (extend-add); C_KK = closure of F_K[K,K];
//             L_K = F_K[S,K] (x) C_KK; U_K = C_KK (x) F_K[K,S];
//             F_K[S,S] min= L_K (x) U_K (K's update matrix, for its parent).
//   solve:    X (B x n, new-order columns) = unit rows of B sources;
//             forward, over the ancestors-or-self of the sources' supernodes,
//             bottom-up: X[:,K] = X[:,K] (x) C_KK; X[:,S_K] min= X[:,K] (x) U_K;
//             backward, every supernode top-down: X[:,K] min= X[:,S_K] (x) L_K.
//             X is stored transposed (XT, n x B): S_K's columns of X are then
//             whole contiguous rows of XT, gathered and scattered coalesced,
//             and each product is C = (a panel of F_K, transposed) (x) (rows
//             of XT), k or s rows by B columns (kernels/supernodal/rows.cuh).
//             Only the active supernodes' rows (and the roots') start as unit
//             rows; the backward product of any other K overwrites its rows
//             (they would be +inf), so those rows are written once, not
//             initialized, read and written again.
// All fronts live in one device array (kernels/supernodal/fronts.cuh), laid
// out level by level so that one level's fronts are one range. The fronts of
// one level are independent: each level is a few launches (kernels that take
// the level's supernode lists, and grouped min-plus products,
// kernels/supernodal/minplus_tasks.cuh); fronts with more than 64 columns
// are factored one at a time by the dense fw rounds on a padded copy (v6,
// the default), or, opt-in (testing::hooks.supernodal_batched_factor, not
// yet measured), fw's rounds close only their diagonal blocks and their
// panels and update matrices join the level's grouped launches; the tiled
// factor (testing::hooks.supernodal_tiled_factor, opt-in, not yet
// measured) is the batched one with the panels and update matrices of the
// fronts of >= 1024 vertices on fw's 128 x 128 phase-3 tile, two launches
// (a pack and the tiles) per level for each (kernels/supernodal/tiled_update.cuh).
// In any of these paths, opt-in (testing::hooks.supernodal_persistent_rounds,
// not yet measured; int32 rows), a dense front's rounds whose padded block is at most
// 2048 run as one cooperative launch instead of fw's launches
// (cuda/persistent_rounds.hpp). On the tiled path, opt-in
// (testing::hooks.supernodal_lookahead, not yet measured; int32 rows), the
// chains of large fronts look ahead: front l + 1's closure runs beside front
// l's s x s update, on two streams (factor(), supernodal/lookahead.hpp).
// By default for int32 rows (testing::hooks.supernodal_squaring_closure,
// kSquaringClosureDefaultMaxK; 0 turns it off), the batched, tiled and
// merged paths close a dense front's diagonal block of at most 640 columns
// by repeated min-plus squaring in one launch: on an H100 it took R-MAT
// 32768's large fronts from 25% to 38% of fw int32's rate and changed no
// other family's compute (docs/perf.md, "Squaring closure"). Above 640
// and up to 4096 columns, by default too (testing::hooks.
// supernodal_blocked_closure, kBlockedClosureDefaultMaxK; int32 rows),
// those paths close the diagonal block by the blocked (2 x 2, recursive)
// closure in one launch (cuda/persistent_rounds.hpp, BlockedClosure): on an
// H100 it took R-MAT 32768's large fronts from 38% to 46% of fw int32's rate
// (docs/perf.md, "Blocked closure").
// Opt-in (testing::hooks.supernodal_split_k; int32 rows), the tiled panels
// and updates of a level with fewer tiles than about two waves of the device
// split their depth into pieces that min into C atomically (split-K:
// supernodal/split_k.hpp decides, kernels/supernodal/tiled_update.cuh), or,
// opt-in too (testing::hooks.supernodal_stream_k), run as stream-K: each of
// the resident blocks an equal share of the launch's (tile, k-chunk) steps
// (kernels/supernodal/stream_k.cuh).
#include "cuda/supernodal_solver.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <deque>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "cuda/dispatch.hpp"
#include "cuda/fw_real.hpp"
#include "cuda/kernels/dense/real_rows.cuh"
#include "cuda/kernels/supernodal/fronts.cuh"
#include "cuda/kernels/supernodal/minplus_tasks.cuh"
#include "cuda/kernels/supernodal/rows.cuh"
#include "cuda/kernels/supernodal/stream_k.cuh"
#include "cuda/kernels/supernodal/tiled_update.cuh"
#include "cuda/launch.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/persistent_rounds.hpp"
#include "cuda/row_solver.hpp"
#include "cuda/testing.hpp"
#include "supernodal/lookahead.hpp"
#include "supernodal/split_k.hpp"
#include "supernodal/symbolic.hpp"
#include "supernodal/tile_choice.hpp"
#include "supernodal/tile_plan.hpp"

namespace apsp::cuda {
namespace {

namespace sn = kernels::supernodal;

// Most sources one batch of the solve holds: B x n working rows. A batch
// costs a chain of launches, one per etree level (twice for the forward
// pass), and the top levels hold few supernodes: B columns of the working
// rows are what gives their launches enough blocks. Past this the memory is
// better left to the result rows.
constexpr std::int64_t kMaxBatchRows = 4096;
// Share of the device memory free after the factor that the working rows may take.
constexpr std::size_t kBatchMemoryShare = 4;
// Fronts of at least this many vertices (columns plus structure) are the
// factor's large class: issue 21's rate target is on them, and the profile
// tags their dense passes with it (SupernodalLaunch::batch).
constexpr std::int64_t kLargeFrontVertices = 1024;
// The factor's per-level launches of min-plus products: panels then update
// matrices of the small fronts, then (the batched dense path only) of the
// dense fronts of the large class, then of the other dense fronts.
constexpr int kFactorGroups = 3;
constexpr int kFactorLaunchesPerLevel = 2 * kFactorGroups;
// Threads of the plain element-wise kernels.
constexpr int kElementThreads = 256;
// Row strides (gridDim.y) of the per-front kernels.
constexpr int kFrontRowBlocks = 32;
// Row strides (gridDim.y) of unit_rows per supernode, and the blocks of the
// range check (columns x rows, strided).
constexpr std::int64_t kUnitRowBlocks = 8;
constexpr std::int64_t kRangeColumnBlocks = 1024;
constexpr std::int64_t kRangeRowBlocks = 64;

// The dense fw rounds of the width and their tile (the padding of a dense front).
template <class D>
constexpr std::int64_t dense_pad() {
  if constexpr (std::is_same<D, double>::value)
    return real_fw_pad<double>();
  else
    return real_fw_pad<float>();  // the int32 and float32 rounds share the 128 tile
}
// `panels`: the int32 / float32 rounds' scratch (fw_panel_words(n_pad) words).
void dense_rounds(std::int32_t* d, std::int64_t n_pad, std::int64_t rounds, std::int32_t* panels, cudaStream_t stream) {
  fw_rounds_int32(d, n_pad, stream, ProgressSpan{}, rounds, panels);
}
void dense_rounds(float* d, std::int64_t n_pad, std::int64_t rounds, std::int32_t* panels, cudaStream_t stream) {
  fw_rounds_real(d, n_pad, stream, ProgressSpan{}, RealFwVariant::production, rounds, panels);
}
void dense_rounds(double* d, std::int64_t n_pad, std::int64_t rounds, std::int32_t*, cudaStream_t stream) {
  fw_rounds_real(d, n_pad, stream, ProgressSpan{}, rounds);
}

// Min-plus products grouped into launches (kernels/supernodal/minplus_tasks.cuh).
template <class D>
struct TaskLists {
  struct Launch {
    std::int64_t first = 0;       // index of its first task
    std::int64_t count = 0;       // tasks
    std::int64_t tile_first = 0;  // index of its first tile in tile_task
    std::int64_t tiles = 0;
  };
  std::vector<sn::MinPlusTask<D>> tasks;
  std::vector<Launch> launches;
  // Per tile of each launch, the index of its task within the launch (a
  // block finds its task in one read).
  std::vector<std::int32_t> tile_task;

  void clear() {
    tasks.clear();
    launches.clear();
    tile_task.clear();
  }
  void begin_launch() {
    launches.push_back(
        Launch{static_cast<std::int64_t>(tasks.size()), 0, static_cast<std::int64_t>(tile_task.size()), 0});
  }
  // Adds `t` to the open launch; an empty product changes nothing and is dropped.
  void add(sn::MinPlusTask<D> t) {
    if (t.m <= 0 || t.n <= 0 || t.k <= 0) return;
    Launch& l = launches.back();
    if (l.count >= INT_MAX)
      throw ResourceError("supernodal: a launch of more than " + std::to_string(INT_MAX) + " min-plus products");
    t.shape = sn::shape_for_rows(t.m);
    t.tiles_n = static_cast<std::int32_t>(ceil_div<std::int64_t>(t.n, sn::shape_cols(t.shape)));
    t.tile_begin = l.tiles;
    const std::int64_t tiles = ceil_div<std::int64_t>(t.m, sn::shape_rows(t.shape)) * t.tiles_n;
    if (l.tiles + tiles > INT_MAX)
      throw ResourceError("supernodal: a launch of " + std::to_string(l.tiles + tiles) +
                          " min-plus tiles exceeds CUDA's grid");
    l.tiles += tiles;
    tile_task.insert(tile_task.end(), static_cast<std::size_t>(tiles), static_cast<std::int32_t>(l.count));
    ++l.count;
    tasks.push_back(t);
  }
};

// TaskLists on the device.
template <class D>
struct DeviceTasks {
  DeviceBuffer<sn::MinPlusTask<D>> tasks;
  DeviceBuffer<std::int32_t> tile_task;
};
template <class D>
DeviceTasks<D> upload_tasks(const TaskLists<D>& lists, cudaStream_t stream) {
  return DeviceTasks<D>{upload(lists.tasks, stream), upload(lists.tile_task, stream)};
}

template <class D, bool kAtomic>
void launch_tasks(const DeviceTasks<D>& device, const typename TaskLists<D>::Launch& l, int col_limit, int stamp,
                  cudaStream_t stream) {
  if (l.count == 0 || l.tiles == 0) return;
  sn::minplus_tasks<D, kAtomic><<<static_cast<unsigned>(l.tiles), sn::kThreads, 0, stream>>>(
      device.tasks.get() + l.first, device.tile_task.get() + l.tile_first, col_limit, stamp);
  APSP_CUDA_CHECK_LAUNCH("minplus_tasks");
}

// The least bytes a launch's tiles move: A, B once per strip of C's rows
// (kernels/supernodal/minplus_tasks.cuh), C written; columns up to col_limit.
// Its add-mins: m * n * k per product.
struct LaunchCost {
  double bytes = 0, ops = 0;
};
template <class D>
LaunchCost launch_cost(const TaskLists<D>& lists, const typename TaskLists<D>::Launch& l, int col_limit) {
  LaunchCost cost;
  for (std::int64_t t = l.first; t < l.first + l.count; ++t) {
    const sn::MinPlusTask<D>& task = lists.tasks[static_cast<std::size_t>(t)];
    const double n = std::min(task.n, col_limit);
    const double strips = static_cast<double>(ceil_div<std::int64_t>(task.m, sn::shape_rows(task.shape)));
    cost.bytes += (static_cast<double>(task.m) * task.k + strips * task.k * n + static_cast<double>(task.m) * n) *
                  sizeof(D);
    cost.ops += static_cast<double>(task.m) * n * task.k;
  }
  return cost;
}

// Blocks of the 128-tile kernel `kernel` (kTiledThreads threads,
// kTiledSharedBytes of dynamic shared memory, allowed first) the device runs
// at once: the occupancy API's blocks per SM times the SMs.
template <class Kernel>
std::int64_t resident_128_blocks(Kernel kernel) {
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, sn::kTiledSharedBytes));
  int per_sm = 0, device = 0, sms = 0;
  APSP_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, sn::kTiledThreads, sn::kTiledSharedBytes));
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::int64_t{per_sm} * sms;
}

// The unsplit tiled kernel's: the tile choice's waves (supernodal::TileChoiceRule).
std::int64_t tiled_resident_blocks() { return resident_128_blocks(sn::tiled_products<std::int32_t>); }

// The split tiled kernel's (the stream-K kernel's too: the same tile,
// registers and shared memory, its dynamic shared memory allowed here).
std::int64_t split_k_resident_blocks() {
  APSP_CUDA_CHECK(cudaFuncSetAttribute(sn::tiled_stream_products, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       sn::kTiledSharedBytes));
  return resident_128_blocks(sn::tiled_products<std::int32_t, true>);
}

// Times the solve phase's launches one by one when testing::hooks.supernodal_profile
// is set (events around each launch; the records are appended by finish()).
class LaunchTimer {
 public:
  explicit LaunchTimer(cudaStream_t stream) : stream_(stream), out_(testing::hooks.supernodal_profile.load()) {}
  bool on() const { return out_ != nullptr; }
  template <class Launch>
  void time(const char* pass, std::int32_t level, std::int64_t batch, LaunchCost cost, Launch&& launch) {
    if (out_ == nullptr) {
      launch();
      return;
    }
    events_.emplace_back();
    events_.back().record(stream_);
    launch();
    events_.emplace_back();
    events_.back().record(stream_);
    pending_.push_back({pass, level, batch, cost.bytes, cost.ops, 0.0});
  }
  // Waits for the timed launches and appends their records.
  void finish() {
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      pending_[i].ms = elapsed_ms(events_[2 * i], events_[2 * i + 1]);
      out_->push_back(pending_[i]);
    }
    pending_.clear();
    events_.clear();
  }

 private:
  cudaStream_t stream_;
  std::vector<testing::SupernodalLaunch>* out_;
  std::deque<Event> events_;  // begin and end per pending record (a deque never moves them)
  std::vector<testing::SupernodalLaunch> pending_;
};

// A contiguous part [first, first + count) of a device list.
struct Part {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

// The supernodal factor of a reweighted graph on the device, and rows of its
// distance matrix computed against it.
// The int16 working rows of an int32 solve (issue 21): off; attempted (the
// certificate decides, int32 rows again when it fails); or required
// (--precision int16: refused where fw refuses int16, else attempted).
enum class NarrowRows { off, attempt, required };

// `automatic` attempts them only when testing::hooks.supernodal_int16_auto
// is set: the default waits for the measurement of int16 against int32
// working rows (docs/perf.md, v7).
NarrowRows narrow_rows_for(const SolveOptions& opts) {
  if (opts.precision == Precision::int16) return NarrowRows::required;
  if (opts.precision == Precision::automatic && testing::hooks.supernodal_int16_auto) return NarrowRows::attempt;
  return NarrowRows::off;
}

// The solve's working rows in width W (D, or int16 for int32 D) and their
// products: B rows (transposed), the backward products (one launch per
// level, built once), the forward products of every batch of the run at
// hand, planned and uploaded before its first batch runs (no copy between
// batches). `fronts`: the factor in width W.
template <class W>
struct WorkingRows {
  DeviceBuffer<W> x;
  const W* fronts = nullptr;
  TaskLists<W> backward_tasks;
  DeviceTasks<W> d_backward_tasks;
  TaskLists<W> forward_tasks;
  DeviceTasks<W> d_forward_tasks;
  bool prepared = false;
};

template <class D>
class SupernodalRows final : public RowSource<D> {
 public:
  SupernodalRows(const RowInput<D>& in, NarrowRows narrow);
  void run(std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld) override;
  std::int64_t min_launch_rows() const override { return batch_rows_; }
  bool range_escaped() override;
  bool rows_in_int16() const override { return narrow_; }
  // The range certificate of the run's `count` rows in `view` (its infinity
  // the width's) into *escaped.
  void launch_range_check(const RangeView<std::int32_t>& view, std::int64_t count, int* escaped);

 private:
  std::int64_t columns(std::int32_t K) const { return sym_.columns(K); }
  std::int64_t structure(std::int32_t K) const { return sym_.structure_size(K); }
  std::int64_t front_ld(std::int32_t K) const { return columns(K) + structure(K); }
  D* front(std::int32_t K) const { return fronts_.get() + front_offset_[K]; }
  template <class W>
  W* front(const WorkingRows<W>& w, std::int32_t K) const {
    return const_cast<W*>(w.fronts) + front_offset_[K];
  }
  sn::FrontIndex front_index() const {
    return sn::FrontIndex{d_front_offset_.get(), d_columns_.get(),    d_structure_.get(),
                          d_struct_ptr_.get(),   d_struct_rel_.get(), d_parent_.get()};
  }

  void plan_and_upload(const RowInput<D>& in);
  // The tiled factor's packs and products of the fronts fronts_of_level[l]
  // (their panels, then their update matrices), their workspace, uploaded.
  void plan_tiled(const std::vector<std::vector<std::int32_t>>& fronts_of_level);
  // Level l's tiled panels (phase 0) or update matrices (phase 1): the pack
  // launch, then the tiled one, on `stream`.
  void launch_tiled(std::int32_t l, int phase, LaunchTimer& timer, cudaStream_t stream);
  // Their parts: the pack of stage x, and the tiled products `tasks` (blocks
  // `blocks`) timed as `pass`.
  void launch_pack(std::size_t x, std::int32_t l, LaunchTimer& timer, cudaStream_t stream);
  // `split`: the split-K kernel (tasks with pieces; int32 rows); `tile`:
  // the C tile the tasks were planned for (stage_tile_: 128 or 64).
  void launch_tiled_products(Part tasks, Part blocks, const char* pass, std::int32_t l, LaunchCost cost,
                             LaunchTimer& timer, cudaStream_t stream, bool split = false,
                             std::int32_t tile = sn::kTiledTile);
  // The split-K copies of the stages the rule splits (plan_tiled), appended
  // to `tasks` and `blocks`.
  void plan_split_k(std::vector<sn::TiledTask<D>>& tasks, std::vector<std::int32_t>& blocks);
  // The look-ahead's plan (plan_and_upload): which levels look ahead, their
  // fronts appended to `lists`; returns the per-supernode flags.
  std::vector<std::uint8_t> plan_lookahead(const std::vector<std::vector<std::int32_t>>& tiled_fronts,
                                           std::vector<std::int32_t>& lists);
  // Whether the rounds of the (k + s) x (k + s) block of a front (s = 0:
  // its diagonal block) run as the one persistent launch
  // (testing::hooks.supernodal_persistent_rounds; int32 rows, padded block
  // at most kPersistentRoundsMaxPad); counts the fronts it takes.
  bool persistent_rounds(std::int64_t k, std::int64_t s) const;
  // Those rounds on front K's block (its diagonal block when s = 0).
  void run_persistent_rounds(std::int32_t K, std::int64_t s, D* padded, std::int32_t* panels,
                             cudaStream_t stream) const;
  // Front K's k x k diagonal block closed by the squaring closure on
  // `stream` when it takes it (testing::hooks.supernodal_squaring_closure, k
  // at most that; int32 rows), through `padded` and the panel scratch (its
  // flags); counts the fronts it takes. False: nothing ran.
  bool close_by_squaring(std::int32_t K, D* padded, std::int32_t* panels, cudaStream_t stream) const;
  // The same by the blocked closure, for the fronts planned for it
  // (plan_and_upload: more columns than the squaring closure takes, at most
  // blocked_max_k_; int32 rows).
  bool close_blocked(std::int32_t K, D* padded, std::int32_t* panels, cudaStream_t stream) const;
  // Plans the blocked closure of dense front K when it takes K's diagonal
  // block (one plan per distinct k, shared).
  void plan_blocked(std::int32_t K);
  void factor();
  // The batch size and the stamps, once; then per width the working rows X
  // and the backward pass's products.
  void prepare_solve();
  template <class W>
  void prepare_rows(WorkingRows<W>& w);
  // The rows of the new-order sources new_ids (original ids old_ids, rows
  // slots of `dist`, uploaded as d_run_*) in width W.
  template <class W>
  void run_rows(WorkingRows<W>& w, const std::vector<std::int32_t>& new_ids, std::int64_t count, D* dist,
                std::int64_t ld);
  // Plans the batch of new-order sources ids[0 .. rows - 1]: its forward
  // products into forward_tasks_ (a closure launch and a scatter launch per
  // level with active supernodes), and the supernodes whose working rows it
  // initializes (the active ones and the inactive roots) onto `init`.
  template <class W>
  void plan_batch(WorkingRows<W>& w, const std::int32_t* ids, std::int64_t rows, std::vector<std::int32_t>& init);
  // Launches batch `batch` of the run (sources batch * B ..), the `local`-th
  // of the segment whose plan (forward_tasks_, d_forward_tasks_, d_run_init_)
  // is on the device: unit rows, forward, backward, the transpose into `dist`.
  template <class W>
  void launch_batch(WorkingRows<W>& w, std::int64_t batch, std::size_t local, std::int64_t count,
                    const std::vector<std::size_t>& batch_launches, const std::vector<std::size_t>& batch_init, D* dist,
                    std::int64_t ld, LaunchTimer& timer);

  std::int64_t n_;
  bool predecessors_;
  cudaStream_t stream_;
  supernodal::Symbolic sym_;
  std::vector<std::int32_t> level_of_;  // per supernode
  std::int64_t dense_above_ = sn::kSmallColumns;
  // The dense fronts' factor: false (v6, the measured default), each front
  // one at a time through fw's rounds on a padded copy of the whole front;
  // true (testing::hooks.supernodal_batched_factor, opt-in until measured),
  // fw's rounds close only the k x k diagonal block of each front, and the
  // panels and update matrices of all the level's dense fronts run as two
  // grouped min-plus launches per size class.
  bool batched_factor_ = false;
  // The tiled factor (testing::hooks.supernodal_tiled_factor; int32 and
  // float32 only): batched_factor_, with the panels and update matrices of
  // the dense fronts of >= 1024 vertices through
  // kernels/supernodal/tiled_update.cuh.
  bool tiled_factor_ = false;
  // The dense rounds as one persistent launch per front on this tile (0: no;
  // persistent_rounds()); int32 rows only.
  int persistent_tile_ = 0;
  // The squaring closure's largest k (0: off; close_by_squaring()).
  std::int64_t squaring_max_k_ = 0;
  // The blocked closure's largest k (0: off), its largest leaf, and its
  // plans: per supernode the index of its plan in blocked_ (-1: none), one
  // plan per distinct k (close_blocked()).
  std::int64_t blocked_max_k_ = 0;
  std::int64_t blocked_leaf_ = 0;
  std::vector<std::int32_t> blocked_of_;
  std::vector<std::unique_ptr<BlockedClosure>> blocked_;
  // Fronts of at least this many vertices are the tiled factor's large class
  // (kLargeFrontVertices; testing::hooks.supernodal_large_front lowers it).
  std::int64_t large_front_ = kLargeFrontVertices;
  // The look-ahead along chains of the tiled factor's large fronts
  // (testing::hooks.supernodal_lookahead; int32 rows, the tiled path; see
  // factor()). Per level: whether it looks ahead (every large front of it
  // with an update has a large parent on the next level), and its look-ahead
  // fronts in d_level_lists_; per supernode on the device: 1 for a
  // look-ahead front (extend_add merges only its pivot block early); per
  // level: its updates split in two launches (tiled tasks and blocks, after
  // the stages'), the pivot blocks' tiles and the rest, and their costs.
  bool lookahead_ = false;
  std::vector<char> level_looks_ahead_;
  std::vector<Part> level_lookahead_;
  DeviceBuffer<std::uint8_t> d_lookahead_;
  std::vector<Part> pivot_tiled_, pivot_tiled_blocks_, rest_tiled_, rest_tiled_blocks_;
  std::vector<LaunchCost> pivot_tiled_cost_, rest_tiled_cost_;
  // Split-K (testing::hooks.supernodal_split_k; int32 rows, the tiled path):
  // 0 off, 1 by shape, N >= 2 N pieces everywhere. Per stage, the split
  // copy of its tiled tasks and their blocks (count 0: the stage runs whole)
  // and its cost.
  std::int64_t split_k_ = 0;
  std::vector<Part> stage_split_, stage_split_blocks_;
  std::vector<LaunchCost> stage_split_cost_;
  // Stream-K (testing::hooks.supernodal_stream_k; the same rows and path):
  // 0 off, 1 by shape, N >= 2 N blocks everywhere. Per stage, its tasks'
  // copy with their first steps in tile_begin (count 0: not stream-K), its
  // blocks (in .count) and its steps.
  std::int64_t stream_k_ = 0;
  std::vector<Part> stage_stream_, stage_stream_blocks_;
  std::vector<std::int64_t> stage_stream_steps_;
  // The 64 x 64 C tile (testing::hooks.supernodal_tile64; int32 and float32
  // rows, the tiled path, neither split-K, stream-K nor the look-ahead on):
  // 0 off, 1 by shape (supernodal::choose_tile), 2 the panels, 3 every
  // launch. Per stage, the C tile its plan and launch use (128 or 64).
  std::int64_t tile64_ = 0;
  std::vector<std::int32_t> stage_tile_;
  // U-first (testing::hooks.supernodal_u_first; int32 rows, the tiled path,
  // neither split-K, stream-K nor the look-ahead on): the panels' stage
  // computes U_K alone, the update stage reads the raw F[S,K] and runs L_K
  // after the updates (plan_tiled says why the rows are the same).
  bool u_first_ = false;

  // Factor storage and its index.
  std::vector<std::int64_t> front_offset_;  // per supernode, level order
  DeviceBuffer<D> fronts_;
  DeviceBuffer<std::int64_t> d_front_offset_, d_struct_ptr_;
  DeviceBuffer<std::int32_t> d_columns_, d_structure_, d_struct_rel_, d_struct_idx_, d_parent_, d_iperm_;

  // The factor's plan: per level, its supernodes (init), its small-front
  // supernodes (closure), the children of its supernodes (extend-add), the
  // graph's entries of its fronts, and two launches of products (panels,
  // then update matrices); its dense fronts on the host.
  DeviceBuffer<std::int32_t> d_level_lists_;
  std::vector<Part> level_all_, level_small_, level_children_;
  std::vector<Part> level_entries_;
  std::vector<std::vector<std::int32_t>> level_dense_;
  DeviceBuffer<std::int64_t> d_entry_at_;
  DeviceBuffer<D> d_entry_w_;
  TaskLists<D> factor_tasks_;
  DeviceTasks<D> d_factor_tasks_;
  std::int64_t dense_cells_ = 0;        // the largest padded dense front
  // The tiled factor's plan: per stage (2 l: level l's panels, 2 l + 1:
  // its update matrices), its operand packs and its tiled products (one
  // pack launch, one tiled launch), the packed operands' workspace (the
  // largest stage's), and its blocks' task table.
  std::vector<Part> stage_packs_, stage_tiled_, stage_tiled_blocks_;
  std::vector<LaunchCost> stage_tiled_cost_;
  DeviceBuffer<D> tiled_work_;
  DeviceBuffer<sn::PackTask<D>> d_pack_tasks_;
  DeviceBuffer<sn::TiledTask<D>> d_tiled_tasks_;
  DeviceBuffer<std::int32_t> d_tiled_blocks_;
  std::int32_t pack_grid_x_ = 1, pack_grid_y_ = 1;
  std::int64_t dense_panel_words_ = 0;  // its rounds' panel scratch

  // The solve: B sources per batch; the working rows in D, and (int32 D,
  // narrow_ on) in int16 against an int16 copy of the factor (issue 21's
  // int16 working rows: half the traffic of the backward pass and the
  // transpose's read). narrow_ turns off for good, and the run's rows are
  // computed again in int32, when the int16 rows' range certificate fails.
  std::int64_t batch_rows_ = 1;
  WorkingRows<D> wide_;
  WorkingRows<std::int16_t> narrow_rows_;
  DeviceBuffer<std::int16_t> fronts16_;
  bool narrow_ = false;
  DeviceBuffer<int> d_escaped16_;
  std::vector<std::int32_t> stamp_;  // per supernode: the last batch that marked it active
  std::int32_t batch_id_ = 0;
  std::vector<std::int32_t> roots_;  // supernodes without structure: no backward product writes their rows
  // Per supernode on the device: the batch stamp that last initialized its
  // working rows (the backward pass overwrites rows of older stamps).
  DeviceBuffer<std::int32_t> d_first_, d_row_stamp_;
  std::int32_t row_stamp_ = 0;
  DeviceBuffer<std::int32_t> d_run_new_, d_run_old_, d_run_init_;
  DeviceBuffer<std::int64_t> d_run_slot_;

  // Rows leave in the original order: real D undoes the potentials there;
  // predecessors read tight in-edges; int32 checks the range.
  DeviceBuffer<double> d_potentials_;
  DeviceBuffer<std::int64_t> d_in_rows_, d_out_rows_;
  DeviceBuffer<vertex_t> d_in_cols_, d_out_cols_;
  DeviceBuffer<D> d_in_weights_;
  DeviceBuffer<weight_t> d_out_weights_;
  DeviceCsr out_edges_;
  weight_t max_weight_ = 0;
  DeviceBuffer<int> d_escaped_;
  // int32: the largest finite value of the rows so far (-1: none), raised by
  // the transpose; the range check's quick rule reads it on the device.
  DeviceBuffer<int> d_largest_finite_;
};

template <class D>
SupernodalRows<D>::SupernodalRows(const RowInput<D>& in, NarrowRows narrow)
    : n_(in.graph.n), predecessors_(in.predecessors) {
  if constexpr (std::is_same<D, std::int32_t>::value) {
    // fw's rule (kernels/dense/fw.cu): int16 needs the largest reweighted
    // weight below half the int16 infinity; the rest is the certificate's.
    const bool possible = in.max_weight < kernels::kInf16 / 2 && !predecessors_;
    if (narrow == NarrowRows::required && !possible)
      throw UsageError("int16: the largest (reweighted) edge weight " + std::to_string(in.max_weight) +
                           " leaves no room below the int16 infinity " + std::to_string(kernels::kInf16),
                       "precision");
    narrow_ = narrow != NarrowRows::off && possible;
  }
  // The factor's path: the hooks when one is set, else the merged chains for
  // int32 rows (the tiled factor after merge_chains; measured 1.47x v6's
  // compute on uniform 32768, 1.15x on R-MAT, equal on grid and geometric:
  // docs/perf.md, "Merged chains") and v6 for the other types, where the
  // tiled path was not measured.
  const bool hooked = testing::hooks.supernodal_v6_factor || testing::hooks.supernodal_batched_factor ||
                      testing::hooks.supernodal_tiled_factor || testing::hooks.supernodal_merge_chains > 0;
  const bool merged_default = !hooked && std::is_same_v<D, std::int32_t>;
  const bool tiled = !testing::hooks.supernodal_v6_factor && (testing::hooks.supernodal_tiled_factor || merged_default);
  const std::int64_t merge_percent =
      testing::hooks.supernodal_v6_factor
          ? 0
          : (merged_default ? supernodal::kDefaultMergePercent : testing::hooks.supernodal_merge_chains.load());
  {
    BasicGraph<D> pattern;
    pattern.n = n_;
    pattern.edges = in.reweighted;
    supernodal::AnalyseTimes analysed;
    sym_ = supernodal::analyse(to_csr(pattern), &analysed);
    if (merge_percent > 0) {
      const auto merge_start = std::chrono::steady_clock::now();
      supernodal::ChainMerge rule;
      rule.max_extra_ops = static_cast<double>(merge_percent) / 100.0;
      if (testing::hooks.supernodal_merge_min_front > 0) rule.min_front = testing::hooks.supernodal_merge_min_front;
      sym_ = supernodal::merge_chains(sym_, rule);
      analysed.symbolic += std::chrono::duration<double>(std::chrono::steady_clock::now() - merge_start).count();
    }
    in.times.add("ordering", analysed.ordering);
    in.times.add("symbolic", analysed.symbolic);
  }
  if (testing::hooks.supernodal_dense_columns > 0)
    dense_above_ = std::min<std::int64_t>(testing::hooks.supernodal_dense_columns, sn::kSmallColumns);
  tiled_factor_ = tiled && sizeof(D) == sizeof(std::int32_t);
  batched_factor_ = testing::hooks.supernodal_batched_factor || tiled;
  const std::int64_t tile = testing::hooks.supernodal_persistent_rounds;
  // int32 rows only: with float32 rows the solve's results differed from
  // fw's launches' in 1849 of 4.2 M entries on an H100 (rounding order;
  // GpuSupernodalClosure.Float32SolveWithPersistentRoundsMatches), so float32
  // keeps fw's launches until that is explained.
  persistent_tile_ = !std::is_same<D, std::int32_t>::value ? 0 : tile == 64 ? 64 : tile != 0 ? 128 : 0;
  squaring_max_k_ = std::is_same<D, std::int32_t>::value
                        ? std::clamp<std::int64_t>(testing::hooks.supernodal_squaring_closure, 0, kSquaringClosureMaxK)
                        : 0;
  blocked_max_k_ = std::is_same<D, std::int32_t>::value
                       ? std::clamp<std::int64_t>(testing::hooks.supernodal_blocked_closure, 0, kBlockedClosureMaxK)
                       : 0;
  blocked_leaf_ = testing::hooks.supernodal_blocked_leaf;
  if (testing::hooks.supernodal_large_front > 0) large_front_ = testing::hooks.supernodal_large_front;
  // The look-ahead: int32 rows on the tiled path (other types keep it off:
  // the tiled path is int32's default, float32's only by hook).
  lookahead_ = testing::hooks.supernodal_lookahead && tiled_factor_ && std::is_same<D, std::int32_t>::value;
  split_k_ = tiled_factor_ && std::is_same<D, std::int32_t>::value
                 ? std::max<std::int64_t>(0, testing::hooks.supernodal_split_k.load())
                 : 0;
  stream_k_ = tiled_factor_ && std::is_same<D, std::int32_t>::value
                  ? std::max<std::int64_t>(0, testing::hooks.supernodal_stream_k.load())
                  : 0;
  tile64_ = tiled_factor_ && !lookahead_ && split_k_ == 0 && stream_k_ == 0
                ? std::clamp<std::int64_t>(testing::hooks.supernodal_tile64.load(), 0, 3)
                : 0;
  u_first_ = tiled_factor_ && std::is_same<D, std::int32_t>::value && !lookahead_ && split_k_ == 0 && stream_k_ == 0 &&
             testing::hooks.supernodal_u_first.load() != 0;
  // The device from here on: the ordering and the symbolic analysis above
  // ran while the context was being created.
  stream_ = in.device.stream();
  plan_and_upload(in);
  Event begin, end;
  begin.record(stream_);
  factor();
  end.record(stream_);
  in.times.add("factor", elapsed_ms(begin, end) / 1000.0);
  prepare_solve();
}

template <class D>
void SupernodalRows<D>::plan_and_upload(const RowInput<D>& in) {
  const std::int32_t count = sym_.count;
  const std::int32_t levels = sym_.levels();
  level_of_.assign(static_cast<std::size_t>(count), 0);
  for (std::int32_t l = 0; l < levels; ++l)
    for (std::int32_t x = sym_.level_ptr[l]; x < sym_.level_ptr[l + 1]; ++x) level_of_[sym_.level_idx[x]] = l;

  // Fronts level by level; the offsets where each level's fronts begin.
  front_offset_.assign(static_cast<std::size_t>(count), 0);
  std::vector<std::int64_t> level_front_begin(static_cast<std::size_t>(levels) + 1, 0);
  std::int64_t cells = 0;
  for (std::int32_t l = 0; l < levels; ++l) {
    level_front_begin[l] = cells;
    for (std::int32_t x = sym_.level_ptr[l]; x < sym_.level_ptr[l + 1]; ++x) {
      const std::int32_t K = sym_.level_idx[x];
      front_offset_[K] = cells;
      cells += front_ld(K) * front_ld(K);
    }
  }
  level_front_begin[levels] = cells;

  // The graph's entries: edge (u, v) of new ids i, j sits in the front of
  // the supernode owning min(i, j), at (position of i, position of j).
  auto position = [&](std::int32_t K, std::int32_t id) -> std::int64_t {
    if (id < sym_.first[K + 1]) return id - sym_.first[K];
    const auto begin = sym_.struct_idx.begin() + sym_.struct_ptr[K];
    const auto end = sym_.struct_idx.begin() + sym_.struct_ptr[K + 1];
    const auto at = std::lower_bound(begin, end, id);
    if (at == end || *at != id)
      throw std::logic_error("supernodal: new-order vertex " + std::to_string(id) +
                             " is missing from the structure of supernode " + std::to_string(K));
    return columns(K) + (at - begin);
  };
  std::vector<std::pair<std::int64_t, D>> entries;
  entries.reserve(in.reweighted.size());
  for (const BasicEdge<D>& e : in.reweighted) {
    if (e.src == e.dst) continue;  // a non-negative self-loop never beats the empty path
    const std::int32_t i = sym_.iperm[e.src], j = sym_.iperm[e.dst];
    const std::int32_t K = sym_.supernode_of[std::min(i, j)];
    entries.emplace_back(front_offset_[K] + position(K, i) * front_ld(K) + position(K, j), e.w);
  }
  std::sort(entries.begin(), entries.end());
  std::vector<std::int64_t> entry_at;
  std::vector<D> entry_w;
  for (const auto& [at, w] : entries)
    if (entry_at.empty() || entry_at.back() != at) {  // duplicates: the first of the sorted run is the least
      entry_at.push_back(at);
      entry_w.push_back(w);
    }
  level_entries_.assign(static_cast<std::size_t>(levels), Part{});
  for (std::int32_t l = 0; l < levels; ++l) {
    const auto lo = std::lower_bound(entry_at.begin(), entry_at.end(), level_front_begin[l]);
    const auto hi = std::lower_bound(entry_at.begin(), entry_at.end(), level_front_begin[l + 1]);
    level_entries_[l] = Part{lo - entry_at.begin(), hi - lo};
  }

  // Per level: all its supernodes, the small ones, the children; dense ones on the host.
  std::vector<std::int32_t> lists;
  level_all_.assign(static_cast<std::size_t>(levels), Part{});
  level_small_ = level_children_ = level_all_;
  level_dense_.assign(static_cast<std::size_t>(levels), {});
  const std::int64_t pad = dense_pad<D>();
  factor_tasks_.clear();
  blocked_of_.assign(static_cast<std::size_t>(count), -1);
  for (std::int32_t l = 0; l < levels; ++l) {
    const auto level_begin = sym_.level_idx.begin() + sym_.level_ptr[l];
    const auto level_end = sym_.level_idx.begin() + sym_.level_ptr[l + 1];
    level_all_[l] = Part{static_cast<std::int64_t>(lists.size()), level_end - level_begin};
    lists.insert(lists.end(), level_begin, level_end);
    level_small_[l].first = static_cast<std::int64_t>(lists.size());
    for (auto it = level_begin; it != level_end; ++it) {
      if (columns(*it) <= dense_above_) {
        lists.push_back(*it);
      } else {
        level_dense_[l].push_back(*it);
        plan_blocked(*it);
        const std::int64_t k_pad = round_up(columns(*it), pad);
        const std::int64_t n_pad = batched_factor_ ? k_pad : round_up(k_pad + structure(*it), pad);
        dense_cells_ = std::max(dense_cells_, n_pad * n_pad);
        dense_panel_words_ = std::max(dense_panel_words_, fw_panel_words(n_pad));
      }
    }
    level_small_[l].count = static_cast<std::int64_t>(lists.size()) - level_small_[l].first;
    level_children_[l].first = static_cast<std::int64_t>(lists.size());
    for (auto it = level_begin; it != level_end; ++it)
      lists.insert(lists.end(), sym_.child_idx.begin() + sym_.child_ptr[*it],
                   sym_.child_idx.begin() + sym_.child_ptr[*it + 1]);
    level_children_[l].count = static_cast<std::int64_t>(lists.size()) - level_children_[l].first;
  }

  const std::size_t front_bytes = static_cast<std::size_t>(cells) * sizeof(D);
  require_device_memory(front_bytes + static_cast<std::size_t>(dense_cells_) * sizeof(D) +
                            static_cast<std::size_t>(dense_panel_words_) * sizeof(std::int32_t) +
                            entry_at.size() * (sizeof(std::int64_t) + sizeof(D)),
                        "the supernodal factor of the " + std::to_string(n_) + "-vertex graph (" +
                            std::to_string(count) + " fronts, largest " + std::to_string(sym_.max_front) + ")");
  fronts_ = DeviceBuffer<D>(static_cast<std::size_t>(std::max<std::int64_t>(1, cells)));

  // Per level, kFactorLaunchesPerLevel launches: the small fronts' panels
  // (one launch), then their update matrices (another); then the same for
  // the dense fronts of each size class when batched_factor_ (else empty).
  std::vector<std::vector<std::int32_t>> tiled_fronts(static_cast<std::size_t>(levels));
  auto add_front_tasks = [&](std::int32_t K, int phase) {
    const std::int64_t k = columns(K), s = structure(K), ld = front_ld(K);
    D* f = front(K);
    const auto k32 = static_cast<std::int32_t>(k), s32 = static_cast<std::int32_t>(s);
    if (phase == 0) {
      // L_K = F[S,K] (x) C_KK and U_K = C_KK (x) F[K,S], in place.
      factor_tasks_.add({f + k * ld, ld, 1, f, nullptr, ld, f + k * ld, nullptr, ld, s32, k32, k32, 0, 0, 0});
      factor_tasks_.add({f, ld, 1, f + k, nullptr, ld, f + k, nullptr, ld, k32, s32, k32, 0, 0, 0});
    } else {
      // F[S,S] min= L_K (x) U_K.
      factor_tasks_.add({f + k * ld, ld, 1, f + k, nullptr, ld, f + k * ld + k, nullptr, ld, s32, s32, k32, 0, 0, 0});
    }
  };
  for (std::int32_t l = 0; l < levels; ++l) {
    for (int group = 0; group < kFactorGroups; ++group) {
      for (int phase = 0; phase < 2; ++phase) {
        factor_tasks_.begin_launch();
        if (group == 0) {
          for (std::int64_t x = level_small_[l].first; x < level_small_[l].first + level_small_[l].count; ++x)
            add_front_tasks(lists[static_cast<std::size_t>(x)], phase);
        } else if (batched_factor_) {
          for (const std::int32_t K : level_dense_[l]) {
            if ((columns(K) + structure(K) >= large_front_) != (group == 1)) continue;
            if (!(tiled_factor_ && group == 1))
              add_front_tasks(K, phase);
            else if (phase == 0)
              tiled_fronts[l].push_back(K);  // its panels and update matrix: plan_tiled
          }
        }
      }
    }
  }
  const std::vector<std::uint8_t> lookahead_flags = plan_lookahead(tiled_fronts, lists);
  if (tiled_factor_) plan_tiled(tiled_fronts);

  std::vector<std::int32_t> k_of(static_cast<std::size_t>(count)), s_of(static_cast<std::size_t>(count));
  for (std::int32_t K = 0; K < count; ++K) {
    k_of[K] = static_cast<std::int32_t>(columns(K));
    s_of[K] = static_cast<std::int32_t>(structure(K));
  }
  d_front_offset_ = upload(front_offset_, stream_);
  d_columns_ = upload(k_of, stream_);
  d_structure_ = upload(s_of, stream_);
  d_struct_ptr_ = upload(sym_.struct_ptr, stream_);
  d_struct_rel_ = upload(sym_.struct_rel, stream_);
  d_struct_idx_ = upload(sym_.struct_idx, stream_);
  d_parent_ = upload(sym_.parent, stream_);
  d_iperm_ = upload(sym_.iperm, stream_);
  d_level_lists_ = upload(lists, stream_);
  d_lookahead_ = upload(lookahead_flags, stream_);
  d_entry_at_ = upload(entry_at, stream_);
  d_entry_w_ = upload(entry_w, stream_);
  d_factor_tasks_ = upload_tasks(factor_tasks_, stream_);

  // The rows' way out: potentials (real D), in-edges for predecessors
  // (int32: the reweighted ones, as its rows are; real D: the graph's own),
  // out-edges for the int32 range check.
  if (!in.potentials.empty()) d_potentials_ = upload(in.potentials, stream_);
  if (predecessors_) {
    BasicGraph<D> g;
    g.n = n_;
    if constexpr (std::is_integral<D>::value)
      g.edges = in.reweighted;
    else
      g.edges = in.graph.edges;
    const BasicCsr<D> in_edges = transpose(to_csr(g));
    d_in_rows_ = upload(in_edges.row_start, stream_);
    d_in_cols_ = upload(in_edges.col, stream_);
    d_in_weights_ = upload(in_edges.weight, stream_);
  }
  if constexpr (std::is_integral<D>::value) {
    Graph g;
    g.n = n_;
    g.edges = in.reweighted;
    const Csr out = to_csr(g);
    d_out_rows_ = upload(out.row_start, stream_);
    d_out_cols_ = upload(out.col, stream_);
    d_out_weights_ = upload(out.weight, stream_);
    out_edges_ = DeviceCsr{d_out_rows_.get(), d_out_cols_.get(), d_out_weights_.get(), n_,
                           static_cast<std::int64_t>(out.col.size())};
    max_weight_ = in.max_weight;
  }
  d_escaped_ = DeviceBuffer<int>(1);
  APSP_CUDA_CHECK(cudaMemsetAsync(d_escaped_.get(), 0, sizeof(int), stream_));
  if constexpr (std::is_integral<D>::value) {
    d_largest_finite_ = DeviceBuffer<int>(1);
    APSP_CUDA_CHECK(cudaMemsetAsync(d_largest_finite_.get(), 0xff, sizeof(int), stream_));  // -1
  }
  // The host vectors go out of scope: their copies must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class D>
void SupernodalRows<D>::plan_tiled(const std::vector<std::vector<std::int32_t>>& fronts_of_level) {
  // One product of a front: C (m x n, at c, row stride ldc) min= A (x) B
  // with A(r, t) = a[r * a_row + t * a_inner], B(t, x) = b[x * b_col + t * b_inner].
  struct FrontProduct {
    supernodal::TiledProduct dims;
    const D* a;
    std::int64_t a_row, a_inner;
    const D* b;
    std::int64_t b_col, b_inner;
    D* c;
    std::int64_t ldc;
    std::int32_t front;  // K
  };
  // Stage 2 l: level l's panels, L_K = F[S,K] (x) C_KK and U_K = C_KK (x)
  // F[K,S] (read from the packs, so not in place); stage 2 l + 1: its update
  // matrices F[S,S] min= L_K (x) U_K.
  // U-first (u_first_, int32 rows): stage 2 l computes U_K alone, and stage
  // 2 l + 1 the update matrices F[S,S] min= F[S,K] (x) U_K from the raw
  // panel F[S,K] (its pack runs before L_K exists), then L_K's tiles after
  // the updates' in the same launch (F[S,K] written in place, which that
  // launch reads only through its packs; nothing before the solve phase
  // reads L_K). The same int32 rows: C_KK is closed with a zero diagonal
  // (fronts.cuh starts it at 0; the weights are reweighted to >= 0), so
  // C_KK (x) C_KK = C_KK and L_K (x) U_K = F[S,K] (x) C_KK (x) F[K,S] =
  // F[S,K] (x) U_K entry for entry, min-plus over integers being exact; a
  // sum through an entry left at kInf is >= kInf and lowers no C <= kInf.
  // The panels' launch, on the critical path of a chain, halves, and L_K
  // fills the update launch's last wave.
  const std::int32_t levels = sym_.levels();
  const std::int32_t stages = 2 * levels;
  std::vector<std::vector<FrontProduct>> products(static_cast<std::size_t>(stages));
  for (std::int32_t l = 0; l < levels; ++l) {
    std::vector<FrontProduct> late_panels;  // U-first: the L_K after the level's updates
    for (const std::int32_t K : fronts_of_level[l]) {
      const std::int64_t k = columns(K), s = structure(K), ld = front_ld(K);
      D* f = front(K);
      if (s == 0) continue;  // a root: C_KK is its whole factor
      const FrontProduct lower{{s, k, k}, f + k * ld, ld, 1, f, 1, ld, f + k * ld, ld, K};
      (u_first_ ? late_panels : products[2 * l]).push_back(lower);
      products[2 * l].push_back({{k, s, k}, f, ld, 1, f + k, 1, ld, f + k, ld, K});
      products[2 * l + 1].push_back({{s, s, k}, f + k * ld, ld, 1, f + k, 1, ld, f + k * ld + k, ld, K});
    }
    products[2 * l + 1].insert(products[2 * l + 1].end(), late_panels.begin(), late_panels.end());
    testing::hooks.supernodal_u_first_fronts += static_cast<std::int64_t>(late_panels.size());
  }
  std::vector<supernodal::TilePlan> plans(static_cast<std::size_t>(stages));
  std::int64_t words = 0;
  stage_tile_.assign(static_cast<std::size_t>(stages), sn::kTiledTile);
  supernodal::TileChoiceRule tile_rule;
  if (tile64_ == 1) tile_rule.resident_128 = tiled_resident_blocks();
  for (std::int32_t x = 0; x < stages; ++x) {
    std::vector<supernodal::TiledProduct> dims;
    for (const FrontProduct& p : products[x]) dims.push_back(p.dims);
    if (tile64_ > 0) {
      tile_rule.forced = tile64_ == 3 || (tile64_ == 2 && x % 2 == 0) ? sn::kTiled64Tile
                         : tile64_ == 2                               ? sn::kTiledTile
                                                                      : 0;
      stage_tile_[x] = supernodal::choose_tile(dims, tile_rule);
    }
    plans[x] = supernodal::plan_tiles(dims, stage_tile_[x], sn::kTiledChunk, sn::kTiledAlign);
    words = std::max(words, plans[x].words);
  }
  require_device_memory(static_cast<std::size_t>(words) * sizeof(D),
                        "the supernodal tiled factor's packed panels (" + std::to_string(words) + " entries)");
  tiled_work_ = DeviceBuffer<D>(static_cast<std::size_t>(std::max<std::int64_t>(1, words)));
  std::vector<sn::PackTask<D>> packs;
  std::vector<sn::TiledTask<D>> tasks;
  std::vector<std::int32_t> blocks;
  stage_packs_.assign(static_cast<std::size_t>(stages), Part{});
  stage_tiled_ = stage_tiled_blocks_ = stage_packs_;
  stage_tiled_cost_.assign(static_cast<std::size_t>(stages), LaunchCost{});
  // Per look-ahead front, its update's task (the pivot-block update copies it).
  std::vector<std::int64_t> update_task(static_cast<std::size_t>(sym_.count), -1);
  for (std::int32_t x = 0; x < stages; ++x) {
    const supernodal::TilePlan& plan = plans[x];
    stage_packs_[x].first = static_cast<std::int64_t>(packs.size());
    stage_tiled_[x].first = static_cast<std::int64_t>(tasks.size());
    stage_tiled_blocks_[x].first = static_cast<std::int64_t>(blocks.size());
    // The plan's product p is the stage's task task_of[p] (empty products have no task and no blocks).
    std::vector<std::int32_t> task_of(products[x].size(), -1);
    for (std::size_t p = 0; p < products[x].size(); ++p) {
      const supernodal::TiledLayout& layout = plan.layouts[p];
      if (layout.tiles_n == 0) continue;
      const FrontProduct& fp = products[x][p];
      const auto m32 = static_cast<std::int32_t>(fp.dims.m), n32 = static_cast<std::int32_t>(fp.dims.n);
      const auto k32 = static_cast<std::int32_t>(fp.dims.k);
      const auto m_pad32 = static_cast<std::int32_t>(layout.m_pad), n_pad32 = static_cast<std::int32_t>(layout.n_pad);
      const auto k_pad32 = static_cast<std::int32_t>(layout.k_pad);
      D* a = tiled_work_.get() + layout.a_offset;
      D* b = tiled_work_.get() + layout.b_offset;
      packs.push_back({fp.a, fp.a_row, fp.a_inner, a, layout.m_pad, m32, k32, m_pad32, k_pad32});
      packs.push_back({fp.b, fp.b_col, fp.b_inner, b, layout.n_pad, n32, k32, n_pad32, k_pad32});
      pack_grid_x_ =
          std::max(pack_grid_x_, static_cast<std::int32_t>(std::max(layout.m_pad, layout.n_pad) / sn::kPackTile));
      pack_grid_y_ = std::max(pack_grid_y_, static_cast<std::int32_t>(layout.k_pad / sn::kPackTile));
      task_of[p] = static_cast<std::int32_t>(tasks.size() - static_cast<std::size_t>(stage_tiled_[x].first));
      // A front's update is its stage's first product (U-first's L_K follows).
      if (x % 2 == 1 && update_task[static_cast<std::size_t>(fp.front)] < 0)
        update_task[static_cast<std::size_t>(fp.front)] = static_cast<std::int64_t>(tasks.size());
      tasks.push_back({a, b, fp.c, fp.ldc, layout.m_pad, layout.n_pad, m32, n32,
                       static_cast<std::int32_t>(layout.k_pad / sn::kTiledChunk),
                       static_cast<std::int32_t>(layout.tiles_n), layout.tile_begin});
      // Useful add-mins; bytes: the packs (read and written), C read and
      // written, A once per tile column and B once per tile row.
      const double m = static_cast<double>(fp.dims.m), n = static_cast<double>(fp.dims.n);
      const double k = static_cast<double>(fp.dims.k);
      const double tiles_m = static_cast<double>(layout.m_pad / stage_tile_[x]);
      stage_tiled_cost_[x].ops += m * n * k;
      stage_tiled_cost_[x].bytes +=
          (2.0 * k * (m + n) + 2.0 * m * n +
           static_cast<double>(layout.k_pad) *
               (static_cast<double>(layout.tiles_n) * layout.m_pad + tiles_m * layout.n_pad)) *
          sizeof(D);
    }
    for (const std::int32_t p : plan.tile_task) blocks.push_back(task_of[static_cast<std::size_t>(p)]);
    stage_packs_[x].count = static_cast<std::int64_t>(packs.size()) - stage_packs_[x].first;
    stage_tiled_[x].count = static_cast<std::int64_t>(tasks.size()) - stage_tiled_[x].first;
    stage_tiled_blocks_[x].count = static_cast<std::int64_t>(blocks.size()) - stage_tiled_blocks_[x].first;
    if (stage_packs_[x].count > 65535)
      throw ResourceError("supernodal: " + std::to_string(stage_packs_[x].count) +
                          " tiled packs in one launch exceed CUDA's grid");
  }
  // The look-ahead's updates, two launches per level that looks ahead, on
  // the stage's packed operands: of front K's update F_K[S, S] (s x s), the
  // C tiles that hold its leading p x p block (p = pivot_rows: what the
  // parent's closure needs), rows and columns [0, r) with r = min(s, p
  // rounded up to the tile), and the rest, rows [0, r) x columns [r, s) and
  // rows [r, s) x columns [0, s). The two cover every cell of the update
  // once, as the stage's one launch does, with the same tiles.
  pivot_tiled_.assign(static_cast<std::size_t>(levels), Part{});
  pivot_tiled_blocks_ = rest_tiled_ = rest_tiled_blocks_ = pivot_tiled_;
  pivot_tiled_cost_.assign(static_cast<std::size_t>(levels), LaunchCost{});
  rest_tiled_cost_ = pivot_tiled_cost_;
  auto add_part = [&](const sn::TiledTask<D>& whole, double k, std::int64_t row0, std::int64_t rows, std::int64_t col0,
                      std::int64_t cols, Part& part, Part& part_blocks, LaunchCost& cost, std::int64_t& begin) {
    if (rows <= 0 || cols <= 0) return;
    sn::TiledTask<D> t = whole;
    t.a = whole.a + row0;  // A packed k-major (a[t * m_pad + r]): rows row0 ..
    t.b = whole.b + col0;  // B (b[t * n_pad + c]): columns col0 ..
    t.c = whole.c + row0 * whole.ldc + col0;
    t.m = static_cast<std::int32_t>(rows);
    t.n = static_cast<std::int32_t>(cols);
    const std::int64_t tiles_m = ceil_div<std::int64_t>(rows, sn::kTiledTile);
    const std::int64_t tiles_n = ceil_div<std::int64_t>(cols, sn::kTiledTile);
    t.tiles_n = static_cast<std::int32_t>(tiles_n);
    t.tile_begin = begin;
    blocks.insert(blocks.end(), static_cast<std::size_t>(tiles_m * tiles_n),
                  static_cast<std::int32_t>(tasks.size() - static_cast<std::size_t>(part.first)));
    tasks.push_back(t);
    begin += tiles_m * tiles_n;
    const double k_pad = static_cast<double>(t.chunks) * sn::kTiledChunk;
    cost.ops += static_cast<double>(rows) * static_cast<double>(cols) * k;
    cost.bytes += (2.0 * static_cast<double>(rows) * static_cast<double>(cols) +
                   2.0 * static_cast<double>(tiles_m * tiles_n) * k_pad * sn::kTiledTile) *
                  sizeof(D);
    part_blocks.count = static_cast<std::int64_t>(blocks.size()) - part_blocks.first;
    part.count = static_cast<std::int64_t>(tasks.size()) - part.first;
  };
  for (std::int32_t l = 0; l < levels; ++l) {
    if (!level_looks_ahead_[l]) continue;
    for (const bool pivot : {true, false}) {
      Part& part = pivot ? pivot_tiled_[l] : rest_tiled_[l];
      Part& part_blocks = pivot ? pivot_tiled_blocks_[l] : rest_tiled_blocks_[l];
      LaunchCost& cost = pivot ? pivot_tiled_cost_[l] : rest_tiled_cost_[l];
      part.first = static_cast<std::int64_t>(tasks.size());
      part_blocks.first = static_cast<std::int64_t>(blocks.size());
      std::int64_t begin = 0;
      for (const std::int32_t K : fronts_of_level[l]) {
        const std::int64_t whole = update_task[static_cast<std::size_t>(K)];
        if (whole < 0) continue;  // no update (a root)
        const sn::TiledTask<D> t = tasks[static_cast<std::size_t>(whole)];
        const std::int64_t s_rows = t.m;
        const std::int64_t r =
            std::min(s_rows, round_up(supernodal::pivot_rows(sym_, K), std::int64_t{sn::kTiledTile}));
        const double k = static_cast<double>(columns(K));
        if (pivot) {
          add_part(t, k, 0, r, 0, r, part, part_blocks, cost, begin);
        } else {
          add_part(t, k, 0, r, r, s_rows - r, part, part_blocks, cost, begin);
          add_part(t, k, r, s_rows - r, 0, s_rows, part, part_blocks, cost, begin);
        }
      }
    }
  }
  plan_split_k(tasks, blocks);
  d_pack_tasks_ = upload(packs, stream_);
  d_tiled_tasks_ = upload(tasks, stream_);
  d_tiled_blocks_ = upload(blocks, stream_);
  // The host vectors go out of scope: their copies must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class D>
void SupernodalRows<D>::plan_split_k(std::vector<sn::TiledTask<D>>& tasks, std::vector<std::int32_t>& blocks) {
  const std::size_t stages = stage_tiled_.size();
  stage_split_.assign(stages, Part{});
  stage_split_blocks_ = stage_split_;
  stage_split_cost_.assign(stages, LaunchCost{});
  stage_stream_.assign(stages, Part{});
  stage_stream_blocks_ = stage_stream_;
  stage_stream_steps_.assign(stages, 0);
  if constexpr (std::is_same<D, std::int32_t>::value) {
    if (split_k_ == 0 && stream_k_ == 0) return;
    using Traits = sn::SplitKTraits;
    supernodal::SplitKRule rule;
    rule.resident = split_k_resident_blocks();
    if (rule.resident <= 0) return;  // the kernel cannot run here: the whole launches report it
    rule.min_piece_chunks = Traits::kMinPieceChunks;
    rule.max_pieces = Traits::kMaxPieces;
    rule.target_waves = Traits::kTargetWaves;
    rule.overhead_chunks = Traits::kOverheadChunks;
    supernodal::SplitKRule stream_rule = rule;
    rule.forced = split_k_ >= 2 ? split_k_ : 0;
    stream_rule.forced = stream_k_ >= 2 ? stream_k_ : 0;
    for (std::size_t x = 0; x < stages; ++x) {
      const Part whole = stage_tiled_[x];
      // A look-ahead level's update runs as its pivot tiles and the rest, whole.
      if (whole.count == 0 || (x % 2 == 1 && level_looks_ahead_[x / 2])) continue;
      std::vector<supernodal::SplitKProduct> shape;
      for (std::int64_t t = whole.first; t < whole.first + whole.count; ++t) {
        const sn::TiledTask<D>& task = tasks[static_cast<std::size_t>(t)];
        shape.push_back({task.m_pad / sn::kTiledTile * task.tiles_n, task.chunks});
      }
      const std::int64_t stream_blocks = stream_k_ > 0 ? supernodal::stream_k_blocks(shape, stream_rule) : 0;
      if (stream_blocks > 0) {  // stream-K: the tasks again, each with its first step
        if (stream_blocks > INT_MAX || whole.count > INT_MAX)
          throw ResourceError("supernodal: a stream-K launch of " + std::to_string(stream_blocks) + " blocks and " +
                              std::to_string(whole.count) + " products exceeds CUDA's grid");
        stage_stream_[x] = Part{static_cast<std::int64_t>(tasks.size()), whole.count};
        stage_stream_blocks_[x].count = stream_blocks;
        std::int64_t step = 0;
        for (std::int64_t t = 0; t < whole.count; ++t) {
          sn::TiledTask<D> task = tasks[static_cast<std::size_t>(whole.first + t)];
          task.tile_begin = step;
          step += shape[static_cast<std::size_t>(t)].tiles * task.chunks;
          tasks.push_back(task);
        }
        stage_stream_steps_[x] = step;
        continue;
      }
      if (split_k_ == 0) continue;
      const std::vector<std::int64_t> pieces = supernodal::split_k_pieces(shape, rule);
      if (std::all_of(pieces.begin(), pieces.end(), [](std::int64_t p) { return p == 1; })) continue;
      stage_split_[x] = Part{static_cast<std::int64_t>(tasks.size()), whole.count};
      stage_split_blocks_[x].first = static_cast<std::int64_t>(blocks.size());
      LaunchCost cost = stage_tiled_cost_[x];
      std::int64_t begin = 0;
      for (std::int64_t t = 0; t < whole.count; ++t) {
        sn::TiledTask<D> task = tasks[static_cast<std::size_t>(whole.first + t)];
        const std::int64_t count = shape[static_cast<std::size_t>(t)].tiles * pieces[static_cast<std::size_t>(t)];
        if (begin + count > INT_MAX)
          throw ResourceError("supernodal: a split tiled launch of " + std::to_string(begin + count) +
                              " blocks exceeds CUDA's grid");
        task.pieces = static_cast<std::int32_t>(pieces[static_cast<std::size_t>(t)]);
        task.tile_begin = begin;
        blocks.insert(blocks.end(), static_cast<std::size_t>(count), static_cast<std::int32_t>(t));
        tasks.push_back(task);
        begin += count;
        // Each piece after the first reads and mins C once more.
        cost.bytes += 2.0 * static_cast<double>(task.m) * static_cast<double>(task.n) *
                      static_cast<double>(task.pieces - 1) * sizeof(D);
      }
      stage_split_blocks_[x].count = begin;
      stage_split_cost_[x] = cost;
    }
  } else {
    (void)tasks, (void)blocks;
  }
}

template <class D>
void SupernodalRows<D>::launch_pack(std::size_t x, std::int32_t l, LaunchTimer& timer, cudaStream_t stream) {
  if constexpr (sizeof(D) == sizeof(std::int32_t)) {
    const Part packs = stage_packs_[x];
    if (packs.count == 0) return;
    timer.time("dense tiled pack", l, kLargeFrontVertices, {}, [&] {
      sn::pack_operands<D><<<dim3(static_cast<unsigned>(pack_grid_x_), static_cast<unsigned>(pack_grid_y_),
                                  static_cast<unsigned>(packs.count)),
                             dim3(sn::kPackTile, sn::kPackRows), 0, stream>>>(d_pack_tasks_.get() + packs.first);
      APSP_CUDA_CHECK_LAUNCH("pack_operands");
    });
  } else {
    (void)x, (void)l, (void)timer, (void)stream;
  }
}

template <class D>
void SupernodalRows<D>::launch_tiled_products(Part tasks, Part blocks, const char* pass, std::int32_t l,
                                              LaunchCost cost, LaunchTimer& timer, cudaStream_t stream, bool split,
                                              std::int32_t tile) {
  if constexpr (sizeof(D) == sizeof(std::int32_t)) {
    if (tasks.count == 0 || blocks.count == 0) return;
    timer.time(pass, l, kLargeFrontVertices, cost, [&] {
      const auto grid = static_cast<unsigned>(blocks.count);
      const sn::TiledTask<D>* task_list = d_tiled_tasks_.get() + tasks.first;
      const std::int32_t* block_list = d_tiled_blocks_.get() + blocks.first;
      if constexpr (std::is_same<D, std::int32_t>::value) {
        if (split) {
          sn::tiled_products<D, true>
              <<<grid, sn::kTiledThreads, sn::kTiledSharedBytes, stream>>>(task_list, block_list);
          APSP_CUDA_CHECK_LAUNCH("tiled_products (split-K)");
          ++testing::hooks.supernodal_split_k_launches;
          return;
        }
      }
      if (tile == sn::kTiled64Tile) {
        sn::tiled_products<D, false, sn::Tiled64Traits>
            <<<grid, sn::kTiled64Threads, sn::kTiled64SharedBytes, stream>>>(task_list, block_list);
        APSP_CUDA_CHECK_LAUNCH("tiled_products (64 tile)");
        ++testing::hooks.supernodal_tile64_launches;
        return;
      }
      sn::tiled_products<D><<<grid, sn::kTiledThreads, sn::kTiledSharedBytes, stream>>>(task_list, block_list);
      APSP_CUDA_CHECK_LAUNCH("tiled_products");
    });
  } else {
    (void)tasks, (void)blocks, (void)pass, (void)l, (void)cost, (void)timer, (void)stream, (void)split, (void)tile;
  }
}

template <class D>
void SupernodalRows<D>::launch_tiled(std::int32_t l, int phase, LaunchTimer& timer, cudaStream_t stream) {
  const std::size_t x = static_cast<std::size_t>(2 * l + phase);
  if (stage_tiled_[x].count == 0 || stage_tiled_blocks_[x].count == 0) return;
  launch_pack(x, l, timer, stream);
  const char* pass = phase == 0 ? "dense tiled panels" : "dense tiled update";
  if (stage_stream_[x].count > 0) {  // stream-K: the same products, an equal share of steps a block
    if constexpr (std::is_same<D, std::int32_t>::value) {
      const Part tasks = stage_stream_[x];
      const std::int64_t blocks = stage_stream_blocks_[x].count, steps = stage_stream_steps_[x];
      timer.time(pass, l, kLargeFrontVertices, stage_tiled_cost_[x], [&] {
        sn::tiled_stream_products<<<static_cast<unsigned>(blocks), sn::kTiledThreads, sn::kTiledSharedBytes, stream>>>(
            d_tiled_tasks_.get() + tasks.first, static_cast<std::int32_t>(tasks.count), steps);
        APSP_CUDA_CHECK_LAUNCH("tiled_stream_products");
      });
      ++testing::hooks.supernodal_stream_k_launches;
    }
    return;
  }
  if (stage_split_[x].count > 0)  // split-K: the same products, their depth in pieces
    launch_tiled_products(stage_split_[x], stage_split_blocks_[x], pass, l, stage_split_cost_[x], timer, stream, true);
  else
    launch_tiled_products(stage_tiled_[x], stage_tiled_blocks_[x], pass, l, stage_tiled_cost_[x], timer, stream, false,
                          stage_tile_.empty() ? sn::kTiledTile : stage_tile_[x]);
}

template <class D>
std::vector<std::uint8_t> SupernodalRows<D>::plan_lookahead(const std::vector<std::vector<std::int32_t>>& tiled_fronts,
                                                            std::vector<std::int32_t>& lists) {
  const std::int32_t levels = sym_.levels();
  level_looks_ahead_.assign(static_cast<std::size_t>(levels), 0);
  level_lookahead_.assign(static_cast<std::size_t>(levels), Part{});
  std::vector<std::uint8_t> flag(static_cast<std::size_t>(sym_.count), 0);
  if (!lookahead_) return flag;
  // Only where it can pay: chains of the tiled factor's large fronts (>=
  // large_front_ vertices, dense), whose closures are latency-bound rounds,
  // one front a level, and whose updates are a few waves of tiles
  // (docs/perf.md, "Why R-MAT stays at 12%"). The smaller fronts' levels are
  // batched already (many fronts a level): nothing to overlap there.
  std::vector<char> tiled(static_cast<std::size_t>(sym_.count), 0);
  for (const auto& fronts : tiled_fronts)
    for (const std::int32_t K : fronts) tiled[static_cast<std::size_t>(K)] = 1;
  const std::vector<std::vector<std::int32_t>> ahead = supernodal::lookahead_fronts(sym_, tiled);
  for (std::int32_t l = 0; l < levels; ++l) {
    const std::vector<std::int32_t>& fronts = ahead[static_cast<std::size_t>(l)];
    if (fronts.empty()) continue;
    level_looks_ahead_[l] = 1;
    level_lookahead_[l] = Part{static_cast<std::int64_t>(lists.size()), static_cast<std::int64_t>(fronts.size())};
    lists.insert(lists.end(), fronts.begin(), fronts.end());
    for (const std::int32_t K : fronts) flag[static_cast<std::size_t>(K)] = 1;
  }
  return flag;
}

template <class D>
bool SupernodalRows<D>::persistent_rounds(std::int64_t k, std::int64_t s) const {
  // persistent_tile_ is 0 for every row type but int32.
  if (persistent_tile_ == 0 || !persistent_rounds_fit(persistent_rounds_pad(k, s, persistent_tile_))) return false;
  ++testing::hooks.supernodal_persistent_fronts;
  return true;
}

template <class D>
void SupernodalRows<D>::run_persistent_rounds(std::int32_t K, std::int64_t s, D* padded, std::int32_t* panels,
                                              cudaStream_t stream) const {
  if constexpr (std::is_same<D, std::int32_t>::value)
    persistent_front_rounds(front(K), columns(K), s, front_ld(K), padded, panels, stream, persistent_tile_);
  else
    throw Error("the persistent rounds take int32 rows only");  // persistent_rounds() says no first
}

template <class D>
bool SupernodalRows<D>::close_by_squaring(std::int32_t K, D* padded, std::int32_t* panels, cudaStream_t stream) const {
  // squaring_max_k_ is 0 for every row type but int32.
  if (columns(K) > squaring_max_k_ || !squaring_closure_fit()) return false;
  if constexpr (std::is_same<D, std::int32_t>::value)
    squaring_front_closure(front(K), columns(K), front_ld(K), padded, panels, stream);
  else
    throw Error("the squaring closure takes int32 rows only");
  ++testing::hooks.supernodal_squaring_fronts;
  return true;
}

template <class D>
void SupernodalRows<D>::plan_blocked(std::int32_t K) {
  const std::int64_t k = columns(K);
  // The paths that close diagonal blocks alone (batched, tiled, merged), the
  // blocks the squaring closure leaves (close_by_squaring's test, the same
  // on every front); blocked_max_k_ is 0 for every row type but int32.
  if (!batched_factor_ || k > blocked_max_k_ || (k <= squaring_max_k_ && squaring_closure_fit()) ||
      !blocked_closure_fit())
    return;
  for (std::size_t x = 0; x < blocked_.size(); ++x)
    if (blocked_[x]->k() == k) {
      blocked_of_[static_cast<std::size_t>(K)] = static_cast<std::int32_t>(x);
      return;
    }
  blocked_.push_back(std::make_unique<BlockedClosure>(k, blocked_leaf_, stream_));
  blocked_of_[static_cast<std::size_t>(K)] = static_cast<std::int32_t>(blocked_.size() - 1);
}

template <class D>
bool SupernodalRows<D>::close_blocked(std::int32_t K, D* padded, std::int32_t* panels, cudaStream_t stream) const {
  const std::int32_t plan = blocked_of_[static_cast<std::size_t>(K)];
  if (plan < 0) return false;
  // The padded scratch holds the k_pad^2 of fw's 128 tile (dense_cells_),
  // at least the 32 tile's; the panel scratch the flags, as for squaring.
  if constexpr (std::is_same<D, std::int32_t>::value)
    blocked_[static_cast<std::size_t>(plan)]->run(front(K), front_ld(K), padded, panels, stream);
  else
    throw Error("the blocked closure takes int32 rows only");  // plan_blocked plans none
  ++testing::hooks.supernodal_blocked_fronts;
  return true;
}

template <class D>
void SupernodalRows<D>::factor() {
  const std::int32_t levels = sym_.levels();
  const sn::FrontIndex index = front_index();
  const std::int32_t* lists = d_level_lists_.get();
  DeviceBuffer<D> dense(static_cast<std::size_t>(dense_cells_));
  // The rounds' panel scratch for the largest padded front, allocated once.
  DeviceBuffer<std::int32_t> panels(std::is_same<D, double>::value ? 0 : static_cast<std::size_t>(dense_panel_words_));
  const std::int64_t pad = dense_pad<D>();
  if constexpr (sizeof(D) == sizeof(std::int32_t)) {
    if (tiled_factor_)
      APSP_CUDA_CHECK(cudaFuncSetAttribute(sn::tiled_products<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           sn::kTiledSharedBytes));
  }
  // The look-ahead (lookahead_, where plan_lookahead found chains): the
  // factor runs on two streams, the critical path (inits, extend-adds,
  // closures, panels, packs and the updates' pivot tiles) on `fs`, at the
  // highest priority so that its blocks start first, and the rest of the
  // updates of the levels that look ahead, with the rest of their
  // extend-adds, on `bs` beside it. For front K on level l (k columns,
  // structure S_K of s rows, p of them mapping into its parent P's k_P pivot
  // columns: a prefix, S_K being sorted) and P on level l + 1:
  //  - P's closure needs F_P[K_P, K_P] fully assembled: the graph's entries,
  //    and of each child C's update F_C[S_C, S_C] the entries that map into
  //    P's pivot block. For K that is its update's leading p x p block, and
  //    F_K[S_p, S_p] min= L_K[S_p, :] (x) U_K[:, S_p] needs only K's panels.
  //    So `fs` runs the C tiles of K's update that hold that block
  //    (pivot_tiled_: rows and columns [0, r), r = p rounded up to the tile),
  //    and level l + 1's extend-add merges only the pivot block of the
  //    look-ahead children (ExtendPart::pivot_block), all other children
  //    whole (their updates ran on `fs` before).
  //  - P's panels L_P = F_P[S_P, K_P] (x) C_PP and U_P need the rest of P's
  //    front assembled, which the rest of K's update reaches: `bs` runs the
  //    rest of its tiles (rest_tiled_), then K's extend-add outside P's
  //    pivot block (ExtendPart::outside) after P's init (event
  //    `initialized`: else the init would wipe it; `fs` records it after K's
  //    pivot tiles, whose cells this extend-add reads too); `fs` waits for
  //    that (event `updated`) before level l + 1's panels. P's pivot tiles
  //    need those panels and F_P[S_P, S_P]'s leading block, which K's outside
  //    extend-add reaches too: after the same wait. So the critical path per
  //    chain level is the closure, the panels, the packs and one wave of
  //    pivot tiles; the rest of K's s x s update (the bulk of the add-mins)
  //    runs beside P's closure.
  //  - The pivot tiles and the rest are disjoint cells of F_K[S, S], read
  //    from the same packed operands (the stage's pack, event `packed`): the
  //    two launches run at once and neither reads what the other writes;
  //    `fs` reads F_K's pivot block (the early extend-add) after its own
  //    pivot tiles. The extend-add outside the pivot block writes no cell of
  //    P's pivot block, which P's closure reads and writes.
  //  - The packs' workspace (tiled_work_) is one: `bs`'s update of level l
  //    reads level l's update pack, and the next pack `fs` writes is level
  //    l + 1's panels', after the wait for `updated`.
  // Min is idempotent and the merges are exact, so the factor equals the
  // one-stream factor bit for bit.
  const bool two_streams =
      lookahead_ && std::any_of(level_looks_ahead_.begin(), level_looks_ahead_.end(), [](char x) { return x != 0; });
  std::unique_ptr<Stream> critical, beside;
  Event ready, initialized, updated, packed, joined;
  cudaStream_t fs = stream_, bs = stream_;
  if (two_streams) {
    critical = std::make_unique<Stream>(StreamPriority::highest);
    beside = std::make_unique<Stream>();
    fs = critical->get();
    bs = beside->get();
    ready.record(stream_);
    APSP_CUDA_CHECK(cudaStreamWaitEvent(fs, ready.get(), 0));
    APSP_CUDA_CHECK(cudaStreamWaitEvent(bs, ready.get(), 0));
  }
  LaunchTimer timer(fs), beside_timer(bs);
  for (std::int32_t l = 0; l < levels; ++l) {
    const Part all = level_all_[l], small = level_small_[l], children = level_children_[l], entries = level_entries_[l];
    // Level l - 1 looked ahead: its fronts' parents are on this level.
    const bool after_lookahead = l > 0 && level_looks_ahead_[l - 1];
    timer.time("factor init", l, -1, {}, [&] {
      sn::init_fronts<D><<<grid_of(all.count, kFrontRowBlocks, "supernodal"), kElementThreads, 0, fs>>>(
          fronts_.get(), index, lists + all.first);
      APSP_CUDA_CHECK_LAUNCH("init_fronts");
      if (entries.count > 0) {
        sn::assemble_entries<D><<<grid_for(entries.count, kElementThreads), kElementThreads, 0, fs>>>(
            fronts_.get(), d_entry_at_.get() + entries.first, d_entry_w_.get() + entries.first, entries.count);
        APSP_CUDA_CHECK_LAUNCH("assemble_entries");
      }
    });
    if (after_lookahead) {
      const Part ahead = level_lookahead_[l - 1];
      initialized.record(fs);
      APSP_CUDA_CHECK(cudaStreamWaitEvent(bs, initialized.get(), 0));
      beside_timer.time("beside extend-add", l, -1, {}, [&] {
        sn::extend_add<D><<<grid_of(ahead.count, kFrontRowBlocks, "supernodal"), kElementThreads, 0, bs>>>(
            fronts_.get(), index, lists + ahead.first, sn::ExtendPart::outside);
        APSP_CUDA_CHECK_LAUNCH("extend_add");
      });
      updated.record(bs);
    }
    if (children.count > 0) {
      timer.time("factor extend-add", l, -1, {}, [&] {
        sn::extend_add<D><<<grid_of(children.count, kFrontRowBlocks, "supernodal"), kElementThreads, 0, fs>>>(
            fronts_.get(), index, lists + children.first,
            after_lookahead ? sn::ExtendPart::pivot_block : sn::ExtendPart::whole, d_lookahead_.get());
        APSP_CUDA_CHECK_LAUNCH("extend_add");
      });
    }
    if (small.count > 0) {
      timer.time("factor small closure", l, -1, {}, [&] {
        sn::close_small_fronts<D><<<grid_of(small.count, 1, "supernodal"), kElementThreads, 0, fs>>>(
            fronts_.get(), index, lists + small.first);
        APSP_CUDA_CHECK_LAUNCH("close_small_fronts");
      });
    }
    if (batched_factor_) {
      // Each dense front's diagonal block closed by fw's rounds on a padded copy of it alone.
      for (const std::int32_t K : level_dense_[l]) {
        const std::int64_t k = columns(K), s = structure(K), k_pad = round_up(k, pad);
        const sn::PaddedFront shape{k, 0, k_pad, k_pad, k + s};
        const std::int64_t size_class = k + s >= large_front_ ? kLargeFrontVertices : 0;
        const double kp = static_cast<double>(k_pad);
        timer.time("dense closure", l, size_class, {0.0, kp * kp * kp}, [&] {
          if (close_by_squaring(K, dense.get(), panels.get(), fs)) return;
          if (close_blocked(K, dense.get(), panels.get(), fs)) return;
          if (persistent_rounds(k, 0)) {
            run_persistent_rounds(K, 0, dense.get(), panels.get(), fs);
            return;
          }
          sn::pad_front<D>
              <<<grid_for(k_pad * k_pad, kElementThreads), kElementThreads, 0, fs>>>(front(K), shape, dense.get());
          APSP_CUDA_CHECK_LAUNCH("pad_front");
          dense_rounds(dense.get(), k_pad, k_pad / pad, panels.get(), fs);
          sn::unpad_front<D>
              <<<grid_for(k * k, kElementThreads), kElementThreads, 0, fs>>>(dense.get(), shape, front(K));
          APSP_CUDA_CHECK_LAUNCH("unpad_front");
        });
        ++testing::hooks.supernodal_dense_fronts;
      }
    }
    // The panels read what the look-ahead fronts' whole updates and their
    // extend-adds outside the pivot blocks wrote (`bs`); the wait is timed as
    // the large fronts' pass it delays.
    if (after_lookahead)
      timer.time("dense lookahead wait", l, kLargeFrontVertices, {},
                 [&] { APSP_CUDA_CHECK(cudaStreamWaitEvent(fs, updated.get(), 0)); });
    // The grouped products: panels, then update matrices, per group.
    static constexpr const char* kPanelPass[kFactorGroups] = {"factor small panels", "dense batched panels",
                                                              "dense batched panels"};
    static constexpr const char* kUpdatePass[kFactorGroups] = {"factor small update", "dense batched update",
                                                               "dense batched update"};
    for (int group = 0; group < kFactorGroups; ++group) {
      const std::int64_t size_class = group == 0 ? -1 : group == 1 ? kLargeFrontVertices : 0;
      for (int phase = 0; phase < 2; ++phase) {
        if (tiled_factor_ && group == 1 && phase == 1 && level_looks_ahead_[l]) {
          // The pack and the pivot tiles on `fs`; the rest of the updates beside.
          const std::size_t x = static_cast<std::size_t>(2 * l + 1);
          launch_pack(x, l, timer, fs);
          packed.record(fs);
          APSP_CUDA_CHECK(cudaStreamWaitEvent(bs, packed.get(), 0));
          launch_tiled_products(pivot_tiled_[l], pivot_tiled_blocks_[l], "dense tiled pivot update", l,
                                pivot_tiled_cost_[l], timer, fs);
          launch_tiled_products(rest_tiled_[l], rest_tiled_blocks_[l], "beside tiled update", l, rest_tiled_cost_[l],
                                beside_timer, bs);
          ++testing::hooks.supernodal_lookahead_levels;
          continue;
        }
        if (tiled_factor_ && group == 1) {  // its panels and update matrices, tiled (no grouped tasks)
          launch_tiled(l, phase, timer, fs);
          continue;
        }
        const auto& launch =
            factor_tasks_.launches[static_cast<std::size_t>(kFactorLaunchesPerLevel * l + 2 * group + phase)];
        if (launch.count == 0) continue;
        timer.time(phase == 0 ? kPanelPass[group] : kUpdatePass[group], l, size_class,
                   timer.on() ? launch_cost(factor_tasks_, launch, INT_MAX) : LaunchCost{},
                   [&] { launch_tasks<D, false>(d_factor_tasks_, launch, INT_MAX, 0, fs); });
      }
    }
    if (batched_factor_) continue;
    for (const std::int32_t K : level_dense_[l]) {
      const std::int64_t k = columns(K), s = structure(K);
      const std::int64_t k_pad = round_up(k, pad);
      const sn::PaddedFront shape{k, s, k_pad, round_up(k_pad + s, pad)};
      const double n_pad = static_cast<double>(shape.n_pad);
      const std::int64_t size_class = k + s >= large_front_ ? kLargeFrontVertices : 0;
      if (persistent_rounds(k, s)) {
        timer.time("dense rounds", l, size_class, {0.0, n_pad * n_pad * static_cast<double>(k_pad)},
                   [&] { run_persistent_rounds(K, s, dense.get(), panels.get(), fs); });
        ++testing::hooks.supernodal_dense_fronts;
        continue;
      }
      timer.time("dense pad", l, size_class, {}, [&] {
        sn::pad_front<D><<<grid_for(shape.n_pad * shape.n_pad, kElementThreads), kElementThreads, 0, fs>>>(
            front(K), shape, dense.get());
        APSP_CUDA_CHECK_LAUNCH("pad_front");
      });
      timer.time("dense rounds", l, size_class, {0.0, n_pad * n_pad * static_cast<double>(k_pad)},
                 [&] { dense_rounds(dense.get(), shape.n_pad, k_pad / pad, panels.get(), fs); });
      timer.time("dense unpad", l, size_class, {}, [&] {
        sn::unpad_front<D>
            <<<grid_for((k + s) * (k + s), kElementThreads), kElementThreads, 0, fs>>>(dense.get(), shape, front(K));
        APSP_CUDA_CHECK_LAUNCH("unpad_front");
      });
      ++testing::hooks.supernodal_dense_fronts;
    }
  }
  if (two_streams) {  // the caller's stream after both
    joined.record(bs);
    APSP_CUDA_CHECK(cudaStreamWaitEvent(fs, joined.get(), 0));
    joined.record(fs);
    APSP_CUDA_CHECK(cudaStreamWaitEvent(stream_, joined.get(), 0));
  }
  timer.finish();
  beside_timer.finish();
  // `dense` is freed on return: the rounds must be done (and the streams
  // `critical` and `beside` destroyed with nothing queued).
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class D>
void SupernodalRows<D>::prepare_solve() {
  // The working rows: what a quarter of the memory left holds, at most kMaxBatchRows.
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::int64_t row_bytes = n_ * static_cast<std::int64_t>(sizeof(D));
  batch_rows_ = testing::hooks.supernodal_batch_rows > 0
                    ? testing::hooks.supernodal_batch_rows.load()
                    : static_cast<std::int64_t>(free_bytes / kBatchMemoryShare) / row_bytes;
  batch_rows_ = std::clamp<std::int64_t>(batch_rows_, 1, std::min(kMaxBatchRows, n_));
  require_device_memory(static_cast<std::size_t>(batch_rows_ * row_bytes), std::to_string(batch_rows_) +
                                                                               " supernodal working rows of " +
                                                                               std::to_string(n_) + " vertices");
  stamp_.assign(static_cast<std::size_t>(sym_.count), -1);
  for (std::int32_t K = 0; K < sym_.count; ++K)
    if (structure(K) == 0) roots_.push_back(K);
  d_first_ = upload(sym_.first, stream_);
  d_row_stamp_ = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(std::max<std::int32_t>(1, sym_.count)));
  APSP_CUDA_CHECK(cudaMemsetAsync(d_row_stamp_.get(), 0, d_row_stamp_.size() * sizeof(std::int32_t), stream_));
  wide_.fronts = fronts_.get();
  if constexpr (std::is_same<D, std::int32_t>::value) {
    if (narrow_) {
      // The factor in int16: min(entry, kInf16) (entries are lengths of
      // real paths, >= 0: a clamped one is at least the int16 infinity).
      fronts16_ = DeviceBuffer<std::int16_t>(fronts_.size());
      sn::narrow_fronts<<<grid_for(static_cast<std::int64_t>(fronts_.size()), kElementThreads), kElementThreads, 0,
                          stream_>>>(fronts_.get(), static_cast<std::int64_t>(fronts_.size()), fronts16_.get());
      APSP_CUDA_CHECK_LAUNCH("narrow_fronts");
      narrow_rows_.fronts = fronts16_.get();
      d_escaped16_ = DeviceBuffer<int>(1);
      APSP_CUDA_CHECK(cudaMemsetAsync(d_escaped16_.get(), 0, sizeof(int), stream_));
      prepare_rows(narrow_rows_);
      return;
    }
  }
  prepare_rows(wide_);
}

template <class D>
template <class W>
void SupernodalRows<D>::prepare_rows(WorkingRows<W>& w) {
  const std::int32_t levels = sym_.levels();
  require_device_memory(static_cast<std::size_t>(batch_rows_ * n_) * sizeof(W), std::to_string(batch_rows_) +
                                                                                    " supernodal working rows of " +
                                                                                    std::to_string(n_) + " vertices");
  w.x = DeviceBuffer<W>(static_cast<std::size_t>(batch_rows_ * n_));

  // Backward, top level first: X[:,K] min= X[:,S_K] (x) L_K for every K of
  // the level, transposed: XT[K rows] min= L_K^T (x) XT[S_K rows], where
  // L_K^T(r, t) = F_K[(k + t) * ld + r].
  const std::int64_t ldx = batch_rows_;
  const auto rows32 = static_cast<std::int32_t>(batch_rows_);
  for (std::int32_t l = levels - 1; l >= 0; --l) {
    w.backward_tasks.begin_launch();
    for (std::int32_t x = sym_.level_ptr[l]; x < sym_.level_ptr[l + 1]; ++x) {
      const std::int32_t K = sym_.level_idx[x];
      const std::int64_t k = columns(K), ld = front_ld(K);
      w.backward_tasks.add({front(w, K) + k * ld, 1, ld, w.x.get(), d_struct_idx_.get() + sym_.struct_ptr[K], ldx,
                            w.x.get() + sym_.first[K] * ldx, nullptr, ldx, static_cast<std::int32_t>(k), rows32,
                            static_cast<std::int32_t>(structure(K)), 0, 0, 0, d_row_stamp_.get() + K});
    }
  }
  w.d_backward_tasks = upload_tasks(w.backward_tasks, stream_);
  w.prepared = true;
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class D>
template <class W>
void SupernodalRows<D>::plan_batch(WorkingRows<W>& w, const std::int32_t* ids, std::int64_t rows,
                                   std::vector<std::int32_t>& init) {
  // Supernodes whose columns the forward pass touches: the sources' and their ancestors.
  ++batch_id_;
  std::vector<std::int32_t> active;
  for (std::int64_t b = 0; b < rows; ++b)
    for (std::int32_t K = sym_.supernode_of[ids[b]]; K >= 0 && stamp_[K] != batch_id_; K = sym_.parent[K]) {
      stamp_[K] = batch_id_;
      active.push_back(K);
    }
  std::sort(active.begin(), active.end(), [&](std::int32_t a, std::int32_t b) {
    return level_of_[a] != level_of_[b] ? level_of_[a] < level_of_[b] : a < b;
  });
  init.insert(init.end(), active.begin(), active.end());
  for (const std::int32_t K : roots_)
    if (stamp_[K] != batch_id_) init.push_back(K);
  // Forward, bottom level first: per level the closures X[:,K] (x) C_KK in
  // place, then the scatter X[:,S_K] min= X[:,K] (x) U_K (atomic: the
  // structures of one level's supernodes overlap); transposed,
  // XT[K rows] = C_KK^T (x) XT[K rows] and XT[S_K rows] min= U_K^T (x) XT[K rows].
  const std::int64_t ldx = batch_rows_;
  const auto rows32 = static_cast<std::int32_t>(rows);
  for (std::size_t x = 0; x < active.size();) {
    std::size_t y = x;
    while (y < active.size() && level_of_[active[y]] == level_of_[active[x]]) ++y;
    for (int phase = 0; phase < 2; ++phase) {
      w.forward_tasks.begin_launch();
      for (std::size_t z = x; z < y; ++z) {
        const std::int32_t K = active[z];
        const std::int64_t k = columns(K), ld = front_ld(K);
        const auto k32 = static_cast<std::int32_t>(k);
        W* xk = w.x.get() + sym_.first[K] * ldx;
        if (phase == 0)
          w.forward_tasks.add({front(w, K), 1, ld, xk, nullptr, ldx, xk, nullptr, ldx, k32, rows32, k32, 0, 0, 0});
        else
          w.forward_tasks.add({front(w, K) + k, 1, ld, xk, nullptr, ldx, w.x.get(),
                               d_struct_idx_.get() + sym_.struct_ptr[K], ldx, static_cast<std::int32_t>(structure(K)),
                               rows32, k32, 0, 0, 0});
      }
    }
    x = y;
  }
}

template <class D>
template <class W>
void SupernodalRows<D>::launch_batch(WorkingRows<W>& w, std::int64_t batch, std::size_t local, std::int64_t count,
                                     const std::vector<std::size_t>& batch_launches,
                                     const std::vector<std::size_t>& batch_init, D* dist, std::int64_t ld,
                                     LaunchTimer& timer) {
  const std::int64_t ldx = batch_rows_;
  const std::int64_t b = batch * batch_rows_;
  const std::int64_t rows = std::min(batch_rows_, count - b);
  const auto rows32 = static_cast<std::int32_t>(rows);
  if (row_stamp_ == INT_MAX) {  // the stamps start over
    APSP_CUDA_CHECK(cudaMemsetAsync(d_row_stamp_.get(), 0, d_row_stamp_.size() * sizeof(std::int32_t), stream_));
    row_stamp_ = 0;
  }
  const int stamp = ++row_stamp_;
  const auto inits = static_cast<std::int64_t>(batch_init[local + 1] - batch_init[local]);
  if (inits > 0) {
    timer.time("unit", -1, batch, {}, [&] {
      sn::unit_rows<W><<<grid_of(inits, kUnitRowBlocks, "supernodal"), kElementThreads, 0, stream_>>>(
          w.x.get(), ldx, d_first_.get(), d_run_init_.get() + batch_init[local], d_run_new_.get() + b, rows,
          d_row_stamp_.get(), stamp);
      APSP_CUDA_CHECK_LAUNCH("unit_rows");
    });
  }
  for (std::size_t l = batch_launches[local]; l < batch_launches[local + 1]; l += 2) {
    const auto step = static_cast<std::int32_t>((l - batch_launches[local]) / 2);
    const auto& closure = w.forward_tasks.launches[l];
    const auto& scatter = w.forward_tasks.launches[l + 1];
    timer.time("forward closure", step, batch,
               timer.on() ? launch_cost(w.forward_tasks, closure, rows32) : LaunchCost{},
               [&] { launch_tasks<W, false>(w.d_forward_tasks, closure, rows32, stamp, stream_); });
    timer.time("forward scatter", step, batch,
               timer.on() ? launch_cost(w.forward_tasks, scatter, rows32) : LaunchCost{},
               [&] { launch_tasks<W, true>(w.d_forward_tasks, scatter, rows32, stamp, stream_); });
  }
  for (std::size_t l = 0; l < w.backward_tasks.launches.size(); ++l) {
    const auto& launch = w.backward_tasks.launches[l];
    timer.time("backward", static_cast<std::int32_t>(w.backward_tasks.launches.size() - 1 - l), batch,
               timer.on() ? launch_cost(w.backward_tasks, launch, rows32) : LaunchCost{},
               [&] { launch_tasks<W, false>(w.d_backward_tasks, launch, rows32, stamp, stream_); });
  }
  // The transpose's bytes: XT read in W, the rows written in D.
  const double transposed = static_cast<double>(n_) * static_cast<double>(rows) * (sizeof(W) + sizeof(D));
  timer.time("transpose", -1, batch, {transposed, 0.0}, [&] {
    sn::rows_to_original<W, D><<<grid_of(ceil_div<std::int64_t>(n_, sn::kTransposeTile),
                                         ceil_div<std::int64_t>(rows, sn::kTransposeTile), "supernodal"),
                                 dim3(sn::kTransposeTile, sn::kTransposeRows), 0, stream_>>>(
        w.x.get(), n_, ldx, d_iperm_.get(), d_run_slot_.get() + b, d_run_old_.get() + b, rows, d_potentials_.get(),
        dist, ld, d_largest_finite_.get());
    APSP_CUDA_CHECK_LAUNCH("rows_to_original");
  });
}

template <class D>
void SupernodalRows<D>::run(std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld) {
  if (first < 0 || count < 0 || first + count > n_ || ld < n_ || (count > 0 && dist == nullptr))
    throw UsageError("supernodal rows " + std::to_string(first) + "+" + std::to_string(count) + " of a " +
                     std::to_string(n_) + "-vertex graph into rows of " + std::to_string(ld));
  if (pred != nullptr && !predecessors_)
    throw UsageError("supernodal rows: predecessors asked of a factor built without them", "predecessors");
  if (count == 0) return;
  // Batches of sources consecutive in the new order, so that each batch's
  // forward pass touches few supernodes (all of them only when the rows
  // asked for are few and scattered): the sources' new ids, original ids
  // and rows in `dist`.
  std::vector<std::pair<std::int32_t, std::int64_t>> sources(static_cast<std::size_t>(count));
  for (std::int64_t r = 0; r < count; ++r) sources[r] = {sym_.iperm[first + r], r};
  std::sort(sources.begin(), sources.end());
  std::vector<std::int32_t> new_ids(static_cast<std::size_t>(count)), old_ids(static_cast<std::size_t>(count));
  std::vector<std::int64_t> slots(static_cast<std::size_t>(count));
  for (std::int64_t r = 0; r < count; ++r) {
    new_ids[r] = sources[r].first;
    old_ids[r] = sym_.perm[sources[r].first];
    slots[r] = sources[r].second;
  }
  // Pageable copies return once the host data is staged; a previous run's
  // buffers are freed here, before this run launches anything (cudaFree
  // waits for the kernels reading them).
  d_run_new_ = upload(new_ids, stream_);
  d_run_old_ = upload(old_ids, stream_);
  d_run_slot_ = upload(slots, stream_);
  if constexpr (std::is_same<D, std::int32_t>::value) {
    if (narrow_) {
      run_rows(narrow_rows_, new_ids, count, dist, ld);
      // The int16 rows' certificate (range_rule.hpp, infinity kInf16: the
      // widened rows keep kInf16's saturation as kInf): a failure turns the
      // int16 rows off and computes this run's rows again in int32.
      const RangeView<std::int32_t> view{dist, n_, ld, 0, kernels::kInf16};
      launch_range_check(view, count, d_escaped16_.get());
      int escaped = 0;
      APSP_CUDA_CHECK(cudaMemcpyAsync(&escaped, d_escaped16_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
      APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
      if (testing::hooks.fail_int16_certificate) escaped = 1;
      if (escaped == 0) {
        testing::hooks.supernodal_int16_rows += count;
      } else {
        ++testing::hooks.supernodal_int16_fallbacks;
        narrow_ = false;
        narrow_rows_ = WorkingRows<std::int16_t>();
        fronts16_ = DeviceBuffer<std::int16_t>();
      }
    }
  }
  if (!narrow_) {
    if (!wide_.prepared) prepare_rows(wide_);
    run_rows(wide_, new_ids, count, dist, ld);
  }
  if (pred != nullptr) {
    kernels::real_predecessors<D><<<grid_for(count * n_, kElementThreads), kElementThreads, 0, stream_>>>(
        dist, pred, n_, ld, d_in_rows_.get(), d_in_cols_.get(), d_in_weights_.get(), count, first);
    APSP_CUDA_CHECK_LAUNCH("real_predecessors");
  }
  if constexpr (std::is_integral<D>::value) {
    const RangeView<std::int32_t> view{dist, n_, ld, 0, kInf};
    launch_range_check(view, count, d_escaped_.get());
  }
}

template <class D>
void SupernodalRows<D>::launch_range_check(const RangeView<std::int32_t>& view, std::int64_t count, int* escaped) {
  sn::chunk_escapes_range<<<grid_of(std::min<std::int64_t>(ceil_div<std::int64_t>(n_, kElementThreads),
                                                           kRangeColumnBlocks),
                                    std::min<std::int64_t>(count, kRangeRowBlocks), "supernodal"),
                            kElementThreads, 0, stream_>>>(view, count, out_edges_, max_weight_,
                                                           d_largest_finite_.get(), escaped);
  APSP_CUDA_CHECK_LAUNCH("chunk_escapes_range");
}

template <class D>
template <class W>
void SupernodalRows<D>::run_rows(WorkingRows<W>& w, const std::vector<std::int32_t>& new_ids, std::int64_t count,
                                 D* dist, std::int64_t ld) {
  d_run_init_ = DeviceBuffer<std::int32_t>();
  w.d_forward_tasks = DeviceTasks<W>();

  const std::int64_t batches = ceil_div(count, batch_rows_);
  LaunchTimer timer(stream_);
  // Two segments of batches: the first batch alone, then the others,
  // planned on the host while the device runs the first. Each segment's
  // batches are planned and uploaded before its first launch (no copy
  // between batches): batch b's forward launches are
  // batch_launches[b - begin] .. batch_launches[b - begin + 1] - 1, and it
  // initializes the working rows of supernodes
  // init[batch_init[b - begin] .. batch_init[b - begin + 1] - 1].
  std::vector<std::size_t> batch_launches, batch_init;
  std::vector<std::int32_t> init;
  for (std::int64_t segment_begin = 0; segment_begin < batches;) {
    const std::int64_t segment_end = segment_begin == 0 ? 1 : batches;
    const auto plan_start = std::chrono::steady_clock::now();
    w.forward_tasks.clear();
    batch_launches.clear();
    batch_init.clear();
    init.clear();
    for (std::int64_t batch = segment_begin; batch < segment_end; ++batch) {
      batch_launches.push_back(w.forward_tasks.launches.size());
      batch_init.push_back(init.size());
      const std::int64_t b = batch * batch_rows_;
      plan_batch(w, new_ids.data() + b, std::min(batch_rows_, count - b), init);
    }
    batch_launches.push_back(w.forward_tasks.launches.size());
    batch_init.push_back(init.size());
    // The second segment's copies wait for the first batch's kernels (a
    // pageable copy synchronizes its stream; the frees wait for the device).
    d_run_init_ = upload(init, stream_);
    w.d_forward_tasks = upload_tasks(w.forward_tasks, stream_);
    if (timer.on())  // the host's planning and uploads; the first segment's while the device waits
      testing::hooks.supernodal_profile.load()->push_back(
          {"plan (host)", static_cast<std::int32_t>(segment_begin == 0 ? 0 : 1), -1, 0.0, 0.0,
           std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - plan_start).count()});
    for (std::int64_t batch = segment_begin; batch < segment_end; ++batch)
      launch_batch(w, batch, static_cast<std::size_t>(batch - segment_begin), count, batch_launches, batch_init, dist,
                   ld, timer);
    segment_begin = segment_end;
  }
  timer.finish();
}

template <class D>
bool SupernodalRows<D>::range_escaped() {
  if constexpr (!std::is_integral<D>::value) return false;
  int host = 0;
  APSP_CUDA_CHECK(cudaMemcpyAsync(&host, d_escaped_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return host != 0;
}

template <class D>
RowSourceFactory<D> supernodal_rows(NarrowRows narrow = NarrowRows::off) {
  return [narrow](const RowInput<D>& in) -> std::unique_ptr<RowSource<D>> {
    return std::make_unique<SupernodalRows<D>>(in, narrow);
  };
}

}  // namespace

void solve_supernodal(const Graph& g, const SolveOptions& opts, Sink& sink, SolveSummary& out, ProgressSpan progress) {
  if (opts.precision == Precision::int16 && opts.predecessors)  // as fw refuses it, before any work
    throw UsageError("int16 cannot track predecessors (automatic or int32 can)", "precision");
  solve_rows(g, opts, supernodal_rows<std::int32_t>(narrow_rows_for(opts)), sink, out, progress);
}
void solve_supernodal(const GraphF32& g, const SolveOptions& opts, Sink& sink, SolveSummary& out,
                      ProgressSpan progress) {
  solve_rows(g, opts, supernodal_rows<float>(), sink, out, progress);
}
void solve_supernodal(const GraphF64& g, const SolveOptions& opts, Sink& sink, SolveSummary& out,
                      ProgressSpan progress) {
  solve_rows(g, opts, supernodal_rows<double>(), sink, out, progress);
}

}  // namespace apsp::cuda
