#include "download.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <string>

#include "apsp/error.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "rows_to_int32.hpp"
#include "staging.hpp"
#include "stored_distance.hpp"

namespace apsp::cuda {
namespace {

using Traits = StagingTraits;
constexpr unsigned long long kNoOverflow = ~0ull;
// Host widening hands rows to the sink in pieces of about this many int32
// bytes, so a piece is still in the thread's cache when the sink copies it.
constexpr std::size_t kWidenPieceBytes = std::size_t{512} << 10;

// How one download moves its blocks.
struct Plan {
  bool device_staging = false;       // a kernel writes int32 rows to device staging, then one contiguous copy
  bool host_widening = false;        // int16 crosses the link; the host widens
  Element element = Element::int32;  // what the sink receives
  std::size_t link_element_bytes = 4;
  std::int64_t rows_per_block = 0;  // rows whose link bytes fill one pinned buffer
};

Plan plan_for(const DeviceRows& m, bool has_potentials, Int16Widening widening) {
  Plan p;
  const bool int16 = m.stored == Stored::int16;
  p.host_widening = int16 && !has_potentials && widening == Int16Widening::host;
  p.device_staging = has_potentials || (int16 && !p.host_widening);
  p.element = m.stored == Stored::float32   ? Element::float32
              : m.stored == Stored::float64 ? Element::float64
                                            : Element::int32;
  p.link_element_bytes = p.host_widening ? 2 : m.real() ? m.element_bytes() : 4;
  const std::size_t row_bytes = static_cast<std::size_t>(m.columns()) * p.link_element_bytes;
  if (row_bytes > Traits::kBufferBytes)
    throw ResourceError("a row of " + std::to_string(m.columns()) + " entries exceeds the " +
                        std::to_string(Traits::kBufferBytes >> 20) + " MiB download staging buffer");
  // A host-widened block (rows x n int32) is twice its link bytes: the widen
  // buffer holds 2 * kBufferBytes.
  p.rows_per_block = static_cast<std::int64_t>(Traits::kBufferBytes / row_bytes);
  return p;
}

// The sink's own memory for rows [first_row, first_row + rows) of `plane`,
// page-locked for the download so copies land there directly. Inactive when
// not wanted, when the sink has no such memory, or when registering fails
// (the download then uses staging); memory that is page-locked already is
// used as it is.
class SinkMemory {
 public:
  SinkMemory(Sink& sink, Plane plane, std::int64_t first_row, std::int64_t rows, std::int64_t n,
             std::size_t element_bytes, bool wanted) {
    if (!wanted) return;
    void* base = sink.row_address(plane, first_row);
    if (!base) return;
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, base) == cudaSuccess && attributes.type == cudaMemoryTypeHost) {
      base_ = base;
      return;
    }
    cudaGetLastError();  // an unknown pointer is not an error here
    const std::size_t bytes = static_cast<std::size_t>(rows) * static_cast<std::size_t>(n) * element_bytes;
    if (cudaHostRegister(base, bytes, cudaHostRegisterDefault) != cudaSuccess) {
      cudaGetLastError();  // not page-lockable: fall back to staging
      return;
    }
    base_ = base;
    registered_ = true;
  }
  SinkMemory(const SinkMemory&) = delete;
  SinkMemory& operator=(const SinkMemory&) = delete;
  ~SinkMemory() {
    if (registered_) cudaHostUnregister(base_);
  }
  bool active() const { return base_ != nullptr; }

 private:
  void* base_ = nullptr;
  bool registered_ = false;
};

// Runs part(first, count) over contiguous parts of rows [0, rows) on OpenMP
// threads, about one part per MiB of `bytes` up to the thread count, and
// rethrows the first exception a part threw.
template <class Part>
void in_parallel_parts(std::int64_t rows, std::size_t bytes, Part part) {
  const std::int64_t by_size = std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes >> 20));
  const int parts = static_cast<int>(std::min<std::int64_t>({rows, by_size, omp_get_max_threads()}));
  if (parts <= 1) {
    part(std::int64_t{0}, rows);
    return;
  }
  std::exception_ptr failure;
#pragma omp parallel for num_threads(parts) schedule(static)
  for (int t = 0; t < parts; ++t) {
    const std::int64_t begin = rows * t / parts, end = rows * (t + 1) / parts;
    try {
      part(begin, end - begin);
    } catch (...) {
#pragma omp critical(apsp_download_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

// The error for the entry at row-major index `index`: its stored value is
// read back from the device (one element) and un-reweighted on the host.
OverflowError overflow_at(const DeviceRows& m, const DevicePotentials& potentials, unsigned long long index) {
  const auto n = static_cast<unsigned long long>(m.columns());
  const std::int64_t i = static_cast<std::int64_t>(index / n), j = static_cast<std::int64_t>(index % n);
  const auto* at = static_cast<const char*>(m.data) + static_cast<std::size_t>(i * m.ld + j) * m.element_bytes();
  std::int32_t v = 0;
  if (m.stored == Stored::int16) {
    std::int16_t s = 0;
    APSP_CUDA_CHECK(cudaMemcpy(&s, at, sizeof s, cudaMemcpyDeviceToHost));
    v = stored_to_int32(s, m.int16_infinity);
  } else {
    APSP_CUDA_CHECK(cudaMemcpy(&v, at, sizeof v, cudaMemcpyDeviceToHost));
  }
  const std::int64_t d = std::int64_t{v} - potentials.host()[static_cast<std::size_t>(i)] +
                         potentials.host()[static_cast<std::size_t>(j)];
  return OverflowError("distance " + std::to_string(i) + "->" + std::to_string(j) + " = " + std::to_string(d) +
                       " does not fit the int32 output");
}

// One row of a distance matrix, collected from put().
class RowCapture final : public Sink {
 public:
  explicit RowCapture(std::int64_t n) : row_(static_cast<std::size_t>(n)) {}
  void begin(const SinkLayout&) override {}
  void put(const RowBlock& block) override { std::memcpy(row_.data(), block.data, row_.size() * sizeof(dist_t)); }
  void commit() override {}
  std::vector<dist_t>& row() { return row_; }

 private:
  std::vector<dist_t> row_;
};

}  // namespace

DownloadStats download_to_sink(const DeviceRows& matrix, Plane plane, const DevicePotentials& potentials, Sink& sink,
                               const DownloadOptions& options, cudaStream_t producer) {
  check_device_rows(matrix, "download_to_sink");
  const std::int64_t n = matrix.n;
  // Values a row holds (n, or fewer for gathered columns: no potentials).
  const std::int64_t w = matrix.columns();
  const std::int64_t first = options.first_row;
  const std::int64_t count = options.rows < 0 ? n - first : options.rows;
  if (first < 0 || count < 0 || first + count > n)
    throw UsageError("download_to_sink: rows " + std::to_string(first) + "+" + std::to_string(count) +
                     " are not inside a " + std::to_string(n) + "-row matrix");
  if (plane == Plane::predecessors && (matrix.stored != Stored::int32 || !potentials.empty()))
    throw UsageError("download_to_sink: predecessors are stored as int32 and carry no potentials");
  if (matrix.real() && (!potentials.empty() || options.patch || plane == Plane::predecessors))
    throw UsageError("download_to_sink: real-valued rows are distances without potentials or a patch");
  if ((!potentials.empty() || matrix.stored == Stored::int16) && w != n)
    throw UsageError("download_to_sink: potentials and int16 rows are whole rows, not " + std::to_string(w) +
                     " gathered columns");
  if (!potentials.empty() && potentials.size() != n)
    throw UsageError("download_to_sink: " + std::to_string(potentials.size()) + " potentials for " + std::to_string(n) +
                     " vertices");
  DownloadStats stats;
  if (count == 0) return stats;

  Plan plan = plan_for(matrix, !potentials.empty(), options.int16_widening);
  DeviceBuffer<std::int32_t> device_staging;
  DeviceBuffer<unsigned long long> device_overflow;
  if (plan.device_staging) {
    // Device memory may be nearly full with the result itself: smaller
    // blocks (down to one row) rather than an error after the compute.
    const std::size_t row_bytes = static_cast<std::size_t>(w) * sizeof(std::int32_t);
    std::size_t free_bytes = 0, total_bytes = 0;
    APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const auto affordable = static_cast<std::int64_t>(free_bytes / 2 / (Traits::kBuffers * row_bytes));
    plan.rows_per_block = std::max<std::int64_t>(1, std::min(plan.rows_per_block, affordable));
    const std::size_t slot_bytes = static_cast<std::size_t>(plan.rows_per_block) * row_bytes;
    require_device_memory(Traits::kBuffers * (slot_bytes + sizeof(unsigned long long)),
                          "the download's device staging");
    device_staging = DeviceBuffer<std::int32_t>(Traits::kBuffers * slot_bytes / sizeof(std::int32_t));
    device_overflow = DeviceBuffer<unsigned long long>(Traits::kBuffers);
  }
  const std::size_t slot_elements = static_cast<std::size_t>(plan.rows_per_block) * static_cast<std::size_t>(w);
  const SinkMemory sink_memory(sink, plane, first, count, w, plan.link_element_bytes,
                               options.register_sink_memory && !plan.host_widening);
  stats.registered_sink = sink_memory.active();
  // Declared after the buffers the copies use: its destructor waits for the
  // streams, so on an error they are idle before those buffers go away.
  StagingLease lease;
  Event produced;
  produced.record(producer);
  for (int s = 0; s < Traits::kStreams; ++s) APSP_CUDA_CHECK(cudaStreamWaitEvent(lease.stream(s), produced.get(), 0));

  struct InFlight {
    std::int64_t first_row = 0;
    std::int64_t rows = 0;  // 0: the slot is free
    void* host = nullptr;   // where the copy lands
  };
  std::array<InFlight, Traits::kBuffers> flight{};
  std::int64_t rows_done = 0;

  // Waits for the slot's copy, then widens, patches and puts its block.
  auto finish = [&](int slot) {
    InFlight& f = flight[static_cast<std::size_t>(slot)];
    if (f.rows == 0) return;
    APSP_CUDA_CHECK(cudaEventSynchronize(lease.event(slot)));
    if (plan.device_staging && *lease.overflow_word(slot) != kNoOverflow)
      throw overflow_at(matrix, potentials, *lease.overflow_word(slot));
    std::int32_t* data = static_cast<std::int32_t*>(f.host);
    bool in_sink_memory = sink_memory.active();
    if (plan.host_widening) {
      data = static_cast<std::int32_t*>(sink.row_address(plane, f.first_row));
      in_sink_memory = data != nullptr;
      if (!data) data = lease.widen_buffer();
    }
    // What the sink receives: int32 rows (widened or as copied), or the
    // real-valued rows as copied.
    const std::size_t sink_element_bytes = element_bytes(plan.element);
    auto block_of = [&](std::int64_t first_in_block, std::int64_t rows) {
      RowBlock b;
      b.plane = plane;
      b.element = plan.element;
      b.first_row = f.first_row + first_in_block;
      b.rows = rows;
      b.row_stride = w;
      b.data = reinterpret_cast<const char*>(data) + static_cast<std::size_t>(first_in_block * w) * sink_element_bytes;
      return b;
    };
    // Without a patch, each thread puts the rows it widened in pieces small
    // enough to be still in its cache; a sink's own memory needs one put()
    // (it skips it).
    const bool put_per_part = !options.patch && !in_sink_memory;
    const std::size_t block_bytes = static_cast<std::size_t>(f.rows * w) * sink_element_bytes;
    if (plan.host_widening || put_per_part) {
      const auto* staged = static_cast<const std::int16_t*>(f.host);
      const std::int64_t rows_per_piece =
          plan.host_widening
              ? std::max<std::int64_t>(1, static_cast<std::int64_t>(
                                              kWidenPieceBytes / (static_cast<std::size_t>(w) * sizeof(std::int32_t))))
              : f.rows;
      in_parallel_parts(f.rows, block_bytes, [&](std::int64_t r0, std::int64_t rows) {
        for (std::int64_t p0 = r0; p0 < r0 + rows; p0 += rows_per_piece) {
          const std::int64_t piece = std::min(rows_per_piece, r0 + rows - p0);
          if (plan.host_widening) {
            const std::int64_t begin = p0 * w, end = (p0 + piece) * w;
            for (std::int64_t x = begin; x < end; ++x) data[x] = stored_to_int32(staged[x], matrix.int16_infinity);
          }
          if (put_per_part) sink.put(block_of(p0, piece));
        }
      });
    }
    if (!put_per_part) {
      if (options.patch) options.patch(f.first_row, f.rows, data, w);
      if (in_sink_memory)
        sink.put(block_of(0, f.rows));
      else
        in_parallel_parts(f.rows, block_bytes,
                          [&](std::int64_t r0, std::int64_t rows) { sink.put(block_of(r0, rows)); });
    }
    rows_done += f.rows;
    ++stats.blocks;
    f.rows = 0;
    if (options.progress) options.progress(static_cast<double>(rows_done) / static_cast<double>(count));
  };

  const std::int64_t blocks = (count + plan.rows_per_block - 1) / plan.rows_per_block;
  for (std::int64_t b = 0; b < blocks; ++b) {
    const int slot = static_cast<int>(b % Traits::kBuffers);
    finish(slot);  // the oldest block in flight
    const std::int64_t row0 = first + b * plan.rows_per_block;
    const std::int64_t rows = std::min(plan.rows_per_block, first + count - row0);
    const cudaStream_t stream = lease.stream(static_cast<int>(b % Traits::kStreams));
    void* host = sink_memory.active() ? sink.row_address(plane, row0) : lease.buffer(slot);
    const std::size_t row_bytes = static_cast<std::size_t>(w) * plan.link_element_bytes;
    if (plan.device_staging) {
      std::int32_t* staged = device_staging.get() + static_cast<std::size_t>(slot) * slot_elements;
      unsigned long long* overflow = device_overflow.get() + slot;
      APSP_CUDA_CHECK(cudaMemsetAsync(overflow, 0xff, sizeof *overflow, stream));
      launch_rows_to_int32(matrix, row0, rows, potentials.device(), staged, overflow, stream);
      APSP_CUDA_CHECK(
          cudaMemcpyAsync(host, staged, static_cast<std::size_t>(rows) * row_bytes, cudaMemcpyDeviceToHost, stream));
      APSP_CUDA_CHECK(
          cudaMemcpyAsync(lease.overflow_word(slot), overflow, sizeof *overflow, cudaMemcpyDeviceToHost, stream));
    } else {
      const std::size_t e = matrix.element_bytes();
      const auto* source = static_cast<const char*>(matrix.data) + static_cast<std::size_t>(row0 * matrix.ld) * e;
      APSP_CUDA_CHECK(cudaMemcpy2DAsync(host, row_bytes, source, static_cast<std::size_t>(matrix.ld) * e, row_bytes,
                                        static_cast<std::size_t>(rows), cudaMemcpyDeviceToHost, stream));
    }
    APSP_CUDA_CHECK(cudaEventRecord(lease.event(slot), stream));
    flight[static_cast<std::size_t>(slot)] = InFlight{row0, rows, host};
    stats.link_bytes += static_cast<std::int64_t>(static_cast<std::size_t>(rows) * row_bytes);
  }
  for (std::int64_t b = std::max<std::int64_t>(0, blocks - Traits::kBuffers); b < blocks; ++b)
    finish(static_cast<int>(b % Traits::kBuffers));
  return stats;
}

std::vector<dist_t> download_distance_row(const DeviceRows& matrix, const DevicePotentials& potentials,
                                          std::int64_t row, cudaStream_t producer) {
  RowCapture capture(matrix.n);
  DownloadOptions one_row;
  one_row.first_row = row;
  one_row.rows = 1;
  download_to_sink(matrix, Plane::distances, potentials, capture, one_row, producer);
  return std::move(capture.row());
}

}  // namespace apsp::cuda
