// The GPU executor of out-of-core fw (cuda/fw_out_of_core.hpp). Device
// memory, for a shape of `blocks` super-tiles of width w (order = blocks * w):
//   rows_       the pivot super-row after its panel step, blocks x w x w cells
//   columns_t_  the pivot super-column after its panel step, as phase-3 A
//               words (transposed, kernels/dense/transpose_panel.cuh)
//   ring_       three w x w super-tile buffers the jobs stream through
//   pivot_, pivot_t_, scratch_: the closed diagonal (cells and A words) and
//               the row panel step's copy of its own old tile
// (core::super_device_bytes). One super-tile job: copy in on in_, wait, the
// kernels on compute_, wait, copy out on out_; a buffer is refilled only
// after its copy out (drained_). A round ends with the three streams idle
// and the host matrix whole, which is where at_boundary is called.
//
// Predecessor mode (TaggedWords, the in-core solver's predecessor variant):
// the host holds tagged distances and a midpoint matrix beside them, whose
// tiles stream with the distance tiles through a second ring (mids_). Every
// product's B operand carries row tags (tag_rows: rows_ keeps the row panels
// tagged, pivot_tagged_ the diagonal), and each rank-128 launch names the
// vertex of its first pivot (update_rest's mid_k0), so mid records global
// vertices. The diagonal is closed by fw_rounds_tagged, whose midpoints are
// local to the super-tile: merge_midpoints moves them to global vertices.
#include "cuda/fw_out_of_core.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/fw_real.hpp"
#include "cuda/kernels/dense/traits.cuh"
#include "cuda/kernels/dense/transpose_panel.cuh"
#include "cuda/kernels/dense/update_rest.cuh"

namespace apsp::cuda {
namespace {

using Traits = kernels::ProductionTraits;
constexpr std::size_t kUpdateRestSharedBytes = sizeof(std::int32_t) * Traits::kStages * Traits::kChunk * 2 *
                                               Traits::kTile;
// update_rest skips tile row and column kb of a round; a product of two
// separate super-tiles skips none.
constexpr int kSkipNoTile = std::numeric_limits<int>::max();
constexpr int kSlots = 3;  // one buffer filling, one computing, one draining
constexpr std::int64_t kInt16Granule = 2 * Traits::kTile;

std::int64_t granule_of(Precision precision) { return precision == Precision::int16 ? kInt16Granule : Traits::kTile; }

void closure(std::int32_t* d, std::int64_t width, cudaStream_t stream, std::int32_t* workspace) {
  fw_rounds_int32(d, width, stream, ProgressSpan{}, -1, workspace);
}
void closure(std::int16_t* d, std::int64_t width, cudaStream_t stream, std::int32_t* workspace) {
  fw_rounds_int16(d, width, stream, ProgressSpan{}, workspace);
}

template <class W>
void configure_update_rest() {
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_rest<Traits, W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(kUpdateRestSharedBytes)));
}

// Predecessor mode, phase 3's B operand: to[i][j] = from[i][j] | (i % 128 + 1),
// the row's tag within its rank-128 launch (from's tags are 0). Grid-stride
// over width x width.
__global__ void tag_rows(const std::int32_t* __restrict__ from, std::int32_t* __restrict__ to, std::int64_t width) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < width * width;
       x += std::int64_t{gridDim.x} * blockDim.x)
    to[x] = from[x] | static_cast<std::int32_t>((x / width) % Traits::kTile + 1);
}

// Predecessor mode, after the diagonal's closure: the midpoints it recorded
// (local pivots 0 .. width-1, -1 for none) become vertices first + k in the
// streamed midpoint tile; the others keep the tile's earlier midpoints.
__global__ void merge_midpoints(const std::int32_t* __restrict__ local, std::int32_t* __restrict__ mid,
                                std::int64_t cells, std::int64_t first) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < cells;
       x += std::int64_t{gridDim.x} * blockDim.x)
    if (local[x] >= 0) mid[x] = static_cast<std::int32_t>(first + local[x]);
}

constexpr int kElementwiseThreads = 256;
unsigned elementwise_grid(std::int64_t cells) {
  return static_cast<unsigned>(std::min<std::int64_t>(ceil_div(cells, kElementwiseThreads), 4096));
}

// c = min(c, a (x) b) for w x w super-tiles: a given as panel words (a_t,
// transposed), b and c as cells; w / 128 rank-128 launches of update_rest.
// Predecessor mode (mid set): b carries row tags (tag_rows), and launch r
// records improvements in mid (w x w) as vertex first_pivot + r * 128 + k.
template <class W>
void product(typename W::storage_t* c, const std::int32_t* a_t, const typename W::storage_t* b, std::int64_t width,
             cudaStream_t stream, std::int32_t* mid = nullptr, std::int64_t first_pivot = 0) {
  const std::int64_t tiles = width / Traits::kTile;
  const std::int64_t row_words = width / W::kPerWord;
  const dim3 grid(static_cast<unsigned>(W::kPerWord == 1 ? tiles : tiles / 2), static_cast<unsigned>(tiles));
  const auto* b_words = reinterpret_cast<const std::int32_t*>(b);
  for (std::int64_t r = 0; r < tiles; ++r) {
    kernels::update_rest<Traits, W><<<grid, Traits::kThreads, kUpdateRestSharedBytes, stream>>>(
        c, a_t + r * Traits::kTile * width, b_words + r * Traits::kTile * row_words, width, kSkipNoTile, mid,
        first_pivot + r * Traits::kTile);
    APSP_CUDA_CHECK_LAUNCH("update_rest (out-of-core)");
  }
}

template <class W>
void transpose(const typename W::storage_t* from, std::int32_t* to, std::int64_t width, cudaStream_t stream) {
  const auto squares = static_cast<unsigned>(width / kernels::kTransposeEdge);
  kernels::transpose_to_panel<W>
      <<<dim3(squares, squares), dim3(kernels::kTransposeEdge, kernels::kTransposeRows), 0, stream>>>(from, to, width);
  APSP_CUDA_CHECK_LAUNCH("transpose_to_panel");
}

template <class W>
class GpuSuperExecutor final : public core::SuperRoundExecutor {
  using S = typename W::storage_t;

 public:
  // host_mid: the midpoint matrix beside `host` (predecessor mode, W tagged).
  GpuSuperExecutor(S* host, const core::SuperShape& shape, std::int32_t* host_mid = nullptr)
      : GpuSuperExecutor(shape.width, shape.blocks, shape.blocks,
                         core::super_device_bytes(shape, sizeof(S), W::kTagged),
                         "out-of-core fw (" + std::to_string(shape.blocks) + " x " + std::to_string(shape.width) +
                             " super-tiles" + (W::kTagged ? " with predecessors)" : ")")) {
    if (W::kTagged != (host_mid != nullptr)) throw Error("out-of-core fw: midpoints go with tagged words only");
    host_ = host;
    host_mid_ = host_mid;
    order_ = shape.order();
  }
  // Super-tiles wherever the caller keeps them (run_at names each one's
  // place): `row_tiles` column panels (job.row) and `col_tiles` row panels
  // (job.col) on the device; `device_bytes` checked first. No midpoints.
  GpuSuperExecutor(std::int64_t width, std::int64_t row_tiles, std::int64_t col_tiles, std::uint64_t device_bytes,
                   const std::string& what)
      : width_(width), cells_(static_cast<std::size_t>(width_ * width_)) {
    static_assert(!W::kTagged || sizeof(S) == sizeof(std::int32_t), "tagged words are int32");
    require_device_memory(device_bytes, what);
    rows_ = DeviceBuffer<S>(cells_ * static_cast<std::size_t>(std::max<std::int64_t>(col_tiles, 1)));
    columns_t_ = DeviceBuffer<std::int32_t>(cells_ * static_cast<std::size_t>(std::max<std::int64_t>(row_tiles, 1)));
    for (auto& buffer : ring_) buffer = DeviceBuffer<S>(cells_);
    pivot_ = DeviceBuffer<S>(cells_);
    scratch_ = DeviceBuffer<S>(cells_);
    pivot_t_ = DeviceBuffer<std::int32_t>(cells_);
    workspace_ = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(Traits::kTile * width_));
    if constexpr (W::kTagged) {
      for (auto& buffer : mids_) buffer = DeviceBuffer<std::int32_t>(cells_);
      local_mid_ = DeviceBuffer<std::int32_t>(cells_);
      pivot_tagged_ = DeviceBuffer<std::int32_t>(cells_);
      row_tagged_ = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(Traits::kTile * width_));
    }
    configure_update_rest<W>();
  }
  GpuSuperExecutor(const GpuSuperExecutor&) = delete;
  GpuSuperExecutor& operator=(const GpuSuperExecutor&) = delete;
  // After a throw the streams may still run: wait before the buffers go.
  ~GpuSuperExecutor() override {
    cudaStreamSynchronize(in_.get());
    cudaStreamSynchronize(compute_.get());
    cudaStreamSynchronize(out_.get());
  }

  void run(const core::SuperJob& job) override {
    const std::size_t offset = static_cast<std::size_t>(job.row * width_ * order_ + job.col * width_);
    run_at(job, host_ + offset, order_, host_mid_ ? host_mid_ + offset : nullptr);
  }

  // One job on the super-tile at `tile` (leading dimension `ld` cells) and,
  // in predecessor mode, its midpoint tile at `mid_tile` (same ld).
  void run_at(const core::SuperJob& job, S* tile, std::int64_t ld, std::int32_t* mid_tile = nullptr) {
    const std::size_t slot = copy_in(tile, ld, mid_tile);
    compute(job, ring_[slot].get(), mids_[slot].get());
    copy_out(slot, tile, ld, mid_tile);
  }

  // What a load puts on the device from a host super-tile: the closed
  // diagonal (cells and A words), row panel job.col, or column panel job.row
  // (as A words): the operands that another process closed or stepped.
  enum class Operand { pivot, row_panel, column_panel };
  void load(Operand operand, const S* tile, std::int64_t ld, std::int64_t index) {
    const std::size_t slot = copy_in(tile, ld, nullptr);
    const cudaStream_t stream = compute_.get();
    S* const buffer = ring_[slot].get();
    const std::size_t bytes = cells_ * sizeof(S);
    switch (operand) {
      case Operand::pivot:
        APSP_CUDA_CHECK(cudaMemcpyAsync(pivot_.get(), buffer, bytes, cudaMemcpyDeviceToDevice, stream));
        transpose<W>(pivot_.get(), pivot_t_.get(), width_, stream);
        break;
      case Operand::row_panel:
        APSP_CUDA_CHECK(cudaMemcpyAsync(rows_.get() + static_cast<std::size_t>(index) * cells_, buffer, bytes,
                                        cudaMemcpyDeviceToDevice, stream));
        break;
      case Operand::column_panel:
        transpose<W>(buffer, columns_t_.get() + static_cast<std::size_t>(index) * cells_, width_, stream);
        break;
    }
    copy_out(slot, nullptr, ld, nullptr);
  }

  void end_round(std::int64_t) override {
    in_.synchronize();
    compute_.synchronize();
    out_.synchronize();
  }

 private:
  // The next ring buffer, once drained, filled from `tile` (and `mid_tile`)
  // on in_; compute_ waits for it. Returns the buffer's slot.
  std::size_t copy_in(const S* tile, std::int64_t ld, const std::int32_t* mid_tile) {
    const std::size_t slot = sequence_++ % kSlots;
    const std::size_t row_bytes = static_cast<std::size_t>(width_) * sizeof(S);
    const std::size_t host_pitch = static_cast<std::size_t>(ld) * sizeof(S);
    APSP_CUDA_CHECK(cudaStreamWaitEvent(in_.get(), drained_[slot].get(), 0));
    APSP_CUDA_CHECK(cudaMemcpy2DAsync(ring_[slot].get(), row_bytes, tile, host_pitch, row_bytes,
                                      static_cast<std::size_t>(width_), cudaMemcpyHostToDevice, in_.get()));
    if (mid_tile)
      APSP_CUDA_CHECK(cudaMemcpy2DAsync(mids_[slot].get(), row_bytes, mid_tile, host_pitch, row_bytes,
                                        static_cast<std::size_t>(width_), cudaMemcpyHostToDevice, in_.get()));
    loaded_[slot].record(in_.get());
    APSP_CUDA_CHECK(cudaStreamWaitEvent(compute_.get(), loaded_[slot].get(), 0));
    return slot;
  }
  // After compute_'s work on the buffer of `slot`: its copy out to `tile`
  // (and `mid_tile`; none for a null tile) on out_, which then marks the
  // buffer drained.
  void copy_out(std::size_t slot, S* tile, std::int64_t ld, std::int32_t* mid_tile) {
    const std::size_t row_bytes = static_cast<std::size_t>(width_) * sizeof(S);
    const std::size_t host_pitch = static_cast<std::size_t>(ld) * sizeof(S);
    computed_[slot].record(compute_.get());
    APSP_CUDA_CHECK(cudaStreamWaitEvent(out_.get(), computed_[slot].get(), 0));
    if (tile)
      APSP_CUDA_CHECK(cudaMemcpy2DAsync(tile, host_pitch, ring_[slot].get(), row_bytes, row_bytes,
                                        static_cast<std::size_t>(width_), cudaMemcpyDeviceToHost, out_.get()));
    if (mid_tile)
      APSP_CUDA_CHECK(cudaMemcpy2DAsync(mid_tile, host_pitch, mids_[slot].get(), row_bytes, row_bytes,
                                        static_cast<std::size_t>(width_), cudaMemcpyDeviceToHost, out_.get()));
    drained_[slot].record(out_.get());
  }

  // One job on `buffer` (its super-tile) and, in predecessor mode, `mid`
  // (its midpoint tile; unused otherwise).
  void compute(const core::SuperJob& job, S* buffer, std::int32_t* mid) {
    using Step = core::SuperJob::Step;
    const cudaStream_t stream = compute_.get();
    const std::size_t bytes = cells_ * sizeof(S);
    const std::int64_t first_pivot = job.round * width_;
    S* const row_panel = rows_.get() + static_cast<std::size_t>(job.col) * cells_;
    std::int32_t* const column_panel_t = columns_t_.get() + static_cast<std::size_t>(job.row) * cells_;
    switch (job.step) {
      case Step::diagonal:
        if constexpr (W::kTagged) {
          APSP_CUDA_CHECK(cudaMemsetAsync(local_mid_.get(), 0xff, cells_ * sizeof(std::int32_t), stream));
          fw_rounds_tagged(buffer, width_, stream, local_mid_.get(), row_tagged_.get(), workspace_.get());
          merge_midpoints<<<elementwise_grid(width_ * width_), kElementwiseThreads, 0, stream>>>(
              local_mid_.get(), mid, width_ * width_, first_pivot);
          APSP_CUDA_CHECK_LAUNCH("merge_midpoints");
          tag(buffer, pivot_tagged_.get(), stream);
        } else {
          closure(buffer, width_, stream, workspace_.get());
        }
        APSP_CUDA_CHECK(cudaMemcpyAsync(pivot_.get(), buffer, bytes, cudaMemcpyDeviceToDevice, stream));
        transpose<W>(pivot_.get(), pivot_t_.get(), width_, stream);
        break;
      case Step::row_panel:  // (K, J) = D* (x) old (K, J)
        if constexpr (W::kTagged) {
          tag(buffer, scratch_.get(), stream);
          product<W>(buffer, pivot_t_.get(), scratch_.get(), width_, stream, mid, first_pivot);
          tag(buffer, row_panel, stream);
        } else {
          APSP_CUDA_CHECK(cudaMemcpyAsync(scratch_.get(), buffer, bytes, cudaMemcpyDeviceToDevice, stream));
          product<W>(buffer, pivot_t_.get(), scratch_.get(), width_, stream);
          APSP_CUDA_CHECK(cudaMemcpyAsync(row_panel, buffer, bytes, cudaMemcpyDeviceToDevice, stream));
        }
        break;
      case Step::column_panel:  // (I, K) = old (I, K) (x) D*
        transpose<W>(buffer, column_panel_t, width_, stream);
        if constexpr (W::kTagged)
          product<W>(buffer, column_panel_t, pivot_tagged_.get(), width_, stream, mid, first_pivot);
        else
          product<W>(buffer, column_panel_t, pivot_.get(), width_, stream);
        transpose<W>(buffer, column_panel_t, width_, stream);
        break;
      case Step::update:  // (I, J) = min((I, J), (I, K) (x) (K, J))
        product<W>(buffer, column_panel_t, row_panel, width_, stream, W::kTagged ? mid : nullptr, first_pivot);
        break;
    }
  }

  // Predecessor mode: `to` = `from` with phase 3's row tags (tag_rows).
  void tag(const S* from, S* to, cudaStream_t stream) {
    tag_rows<<<elementwise_grid(width_ * width_), kElementwiseThreads, 0, stream>>>(
        reinterpret_cast<const std::int32_t*>(from), reinterpret_cast<std::int32_t*>(to), width_);
    APSP_CUDA_CHECK_LAUNCH("tag_rows");
  }

  S* host_ = nullptr;
  std::int32_t* host_mid_ = nullptr;
  std::int64_t width_, order_ = 0;
  std::size_t cells_;
  Stream in_, compute_, out_;
  std::array<Event, kSlots> loaded_, computed_, drained_;
  std::array<DeviceBuffer<S>, kSlots> ring_;
  DeviceBuffer<S> rows_, pivot_, scratch_;
  DeviceBuffer<std::int32_t> columns_t_, pivot_t_, workspace_;
  // Predecessor mode only (empty otherwise): the midpoint ring, the
  // diagonal closure's own midpoints and B rows, the tagged diagonal.
  std::array<DeviceBuffer<std::int32_t>, kSlots> mids_;
  DeviceBuffer<std::int32_t> local_mid_, row_tagged_, pivot_tagged_;
  std::size_t sequence_ = 0;
};

// Registers `host` with CUDA for the run when it is not page-locked already
// (asynchronous copies from pageable memory would run synchronously).
class PinnedForRun {
 public:
  PinnedForRun(void* host, std::size_t bytes) {
    cudaPointerAttributes attributes{};
    APSP_CUDA_CHECK(cudaPointerGetAttributes(&attributes, host));
    if (attributes.type == cudaMemoryTypeHost) return;
    APSP_CUDA_CHECK(cudaHostRegister(host, bytes, cudaHostRegisterDefault));
    registered_ = host;
  }
  PinnedForRun(const PinnedForRun&) = delete;
  PinnedForRun& operator=(const PinnedForRun&) = delete;
  ~PinnedForRun() {
    if (registered_) cudaHostUnregister(registered_);
  }

 private:
  void* registered_ = nullptr;
};

template <class W>
void run_out_of_core(typename W::storage_t* host, const core::SuperShape& shape, const OutOfCoreRun& run,
                     std::int64_t granule, std::int32_t* host_mid = nullptr) {
  if (shape.blocks < 1 || shape.width < granule || shape.width % granule != 0)
    throw UsageError("out-of-core fw: super-tiles " + std::to_string(shape.width) + " wide, " +
                         std::to_string(shape.blocks) + " per side (the width must be a positive multiple of " +
                         std::to_string(granule) + ")",
                     "super_width");
  const auto cells = static_cast<std::size_t>(shape.order()) * static_cast<std::size_t>(shape.order());
  PinnedForRun pinned(host, cells * sizeof(typename W::storage_t));
  std::unique_ptr<PinnedForRun> pinned_mid =
      host_mid ? std::make_unique<PinnedForRun>(host_mid, cells * sizeof(std::int32_t)) : nullptr;
  GpuSuperExecutor<W> executor(host, shape, host_mid);
  core::run_super_rounds(executor, shape.blocks, run.first_round, run.at_boundary);
}

}  // namespace

OutOfCoreRates measure_out_of_core_rates(Precision precision) {
  OutOfCoreRates rates;
  // The link: 256 MiB host to device, once to warm up, then timed.
  constexpr std::size_t kLinkBytes = std::size_t{256} << 20;
  PinnedBuffer<char> host(kLinkBytes);
  DeviceBuffer<char> device(kLinkBytes);
  Stream stream;
  Event begin, end;
  for (int pass = 0; pass < 2; ++pass) {
    begin.record(stream.get());
    APSP_CUDA_CHECK(cudaMemcpyAsync(device.get(), host.get(), kLinkBytes, cudaMemcpyHostToDevice, stream.get()));
    end.record(stream.get());
  }
  rates.link_bytes_per_second = static_cast<double>(kLinkBytes) / (elapsed_ms(begin, end) * 1e-3);
  // The kernel: one 4096-wide super-tile product (32 rank-128 launches),
  // warm-up then timed, on zeros (the DPX add-min costs the same on any value).
  constexpr std::int64_t kWidth = 4096;
  const auto cells = static_cast<std::size_t>(kWidth * kWidth);
  DeviceBuffer<std::int32_t> a_t(cells), b(cells), c(cells);
  APSP_CUDA_CHECK(cudaMemsetAsync(a_t.get(), 0, cells * sizeof(std::int32_t), stream.get()));
  APSP_CUDA_CHECK(cudaMemsetAsync(b.get(), 0, cells * sizeof(std::int32_t), stream.get()));
  APSP_CUDA_CHECK(cudaMemsetAsync(c.get(), 0, cells * sizeof(std::int32_t), stream.get()));
  for (int pass = 0; pass < 2; ++pass) {
    begin.record(stream.get());
    if (precision == Precision::int16) {
      configure_update_rest<kernels::Int16Words>();
      product<kernels::Int16Words>(reinterpret_cast<std::int16_t*>(c.get()), a_t.get(),
                                   reinterpret_cast<const std::int16_t*>(b.get()), kWidth, stream.get());
    } else {
      configure_update_rest<kernels::Int32Words>();
      product<kernels::Int32Words>(c.get(), a_t.get(), b.get(), kWidth, stream.get());
    }
    end.record(stream.get());
  }
  const double updates = static_cast<double>(kWidth) * static_cast<double>(kWidth) * static_cast<double>(kWidth);
  rates.updates_per_second = updates / (elapsed_ms(begin, end) * 1e-3);
  return rates;
}

core::SuperShape out_of_core_shape(std::int64_t n, Precision precision, std::uint64_t device_budget,
                                   std::int64_t forced_width, const OutOfCoreRates* rates, bool predecessors) {
  core::SuperShapeInputs in;
  in.predecessors = predecessors;
  in.n = n;
  in.granule = granule_of(precision);
  in.cell_bytes = precision == Precision::int16 ? 2 : 4;
  in.forced_width = forced_width;
  if (device_budget > 0) {
    in.device_bytes = device_budget;
  } else {
    std::size_t free_bytes = 0, total_bytes = 0;
    APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    constexpr std::size_t kReserve = std::size_t{1} << 30;  // the runtime, the kernels' own allocations
    in.device_bytes = free_bytes > kReserve ? free_bytes - kReserve : 0;
  }
  if (forced_width <= 0) {
    const OutOfCoreRates measured = rates ? *rates : measure_out_of_core_rates(precision);
    in.link_bytes_per_second = measured.link_bytes_per_second;
    in.updates_per_second = measured.updates_per_second;
  }
  return core::choose_super_shape(in);
}

void fw_out_of_core(std::int32_t* host, const core::SuperShape& shape, const OutOfCoreRun& run) {
  run_out_of_core<kernels::Int32Words>(host, shape, run, granule_of(Precision::int32));
}
void fw_out_of_core(std::int16_t* host, const core::SuperShape& shape, const OutOfCoreRun& run) {
  run_out_of_core<kernels::Int16Words>(host, shape, run, granule_of(Precision::int16));
}
void fw_out_of_core_tagged(std::int32_t* tagged, std::int32_t* mid, const core::SuperShape& shape,
                           const OutOfCoreRun& run) {
  run_out_of_core<kernels::TaggedWords>(tagged, shape, run, granule_of(Precision::int32), mid);
}

struct SuperTileEngine::Impl {
  std::unique_ptr<GpuSuperExecutor<kernels::Int32Words>> int32;
  std::unique_ptr<GpuSuperExecutor<kernels::Int16Words>> int16;
  std::int64_t width = 0;

  // body(executor, S) on the executor of this engine's width.
  template <class F>
  void with(F&& body) {
    if (int32)
      body(*int32, std::int32_t{});
    else
      body(*int16, std::int16_t{});
  }
};

std::uint64_t SuperTileEngine::device_bytes(std::int64_t width, std::int64_t row_tiles, std::int64_t col_tiles,
                                            std::int64_t cell_bytes) {
  const auto w = static_cast<std::uint64_t>(width), cell = static_cast<std::uint64_t>(cell_bytes);
  constexpr std::uint64_t kWord = 4;
  // row panels (cells), column panels (words); ring of three, diagonal,
  // scratch (cells); diagonal transposed (words); the closure's 128 x width.
  return w * w *
             (static_cast<std::uint64_t>(std::max<std::int64_t>(col_tiles, 1)) * cell +
              static_cast<std::uint64_t>(std::max<std::int64_t>(row_tiles, 1)) * kWord + 5 * cell + kWord) +
         128 * w * kWord;
}

SuperTileEngine::SuperTileEngine(Precision precision, std::int64_t width, std::int64_t row_tiles,
                                 std::int64_t col_tiles)
    : impl_(std::make_unique<Impl>()) {
  if (precision != Precision::int32 && precision != Precision::int16)
    throw UsageError("out-of-core super-tiles hold int32 or int16, not " + std::string(to_string(precision)),
                     "precision");
  const std::int64_t granule = granule_of(precision);
  if (width < granule || width % granule != 0)
    throw UsageError("out-of-core fw: super-tiles " + std::to_string(width) +
                         " wide (the width must be a positive multiple of " + std::to_string(granule) + ")",
                     "super_width");
  impl_->width = width;
  const std::string what = "out-of-core super-tiles (" + std::to_string(row_tiles) + " x " + std::to_string(col_tiles) +
                           " of " + std::to_string(width) + ")";
  if (precision == Precision::int32)
    impl_->int32 = std::make_unique<GpuSuperExecutor<kernels::Int32Words>>(
        width, row_tiles, col_tiles, device_bytes(width, row_tiles, col_tiles, 4), what);
  else
    impl_->int16 = std::make_unique<GpuSuperExecutor<kernels::Int16Words>>(
        width, row_tiles, col_tiles, device_bytes(width, row_tiles, col_tiles, 2), what);
}

SuperTileEngine::~SuperTileEngine() = default;

void SuperTileEngine::step(core::SuperJob::Step step, void* tile, std::int64_t ld, std::int64_t row, std::int64_t col) {
  impl_->with([&](auto& executor, auto cell) {
    using S = decltype(cell);
    executor.run_at(core::SuperJob{step, 0, row, col}, static_cast<S*>(tile), ld);
  });
}

void SuperTileEngine::load_pivot(const void* tile, std::int64_t ld) {
  impl_->with([&](auto& executor, auto cell) {
    using E = std::remove_reference_t<decltype(executor)>;
    executor.load(E::Operand::pivot, static_cast<const decltype(cell)*>(tile), ld, 0);
  });
}

void SuperTileEngine::load_row_panel(const void* tile, std::int64_t ld, std::int64_t index) {
  impl_->with([&](auto& executor, auto cell) {
    using E = std::remove_reference_t<decltype(executor)>;
    executor.load(E::Operand::row_panel, static_cast<const decltype(cell)*>(tile), ld, index);
  });
}

void SuperTileEngine::load_column_panel(const void* tile, std::int64_t ld, std::int64_t index) {
  impl_->with([&](auto& executor, auto cell) {
    using E = std::remove_reference_t<decltype(executor)>;
    executor.load(E::Operand::column_panel, static_cast<const decltype(cell)*>(tile), ld, index);
  });
}

void SuperTileEngine::finish() {
  impl_->with([](auto& executor, auto) { executor.end_round(0); });
}

}  // namespace apsp::cuda
