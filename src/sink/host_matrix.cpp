#include <omp.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <string>

#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "core/resources.hpp"
#include "sink/rows.hpp"

namespace apsp {
namespace {

// Copies of more cells than this are spread over threads (outside a parallel region).
constexpr std::int64_t kParallelCopyCells = std::int64_t{1} << 18;

// A rows x n matrix.
template <class T>
void allocate(HostVector<T>& v, std::int64_t rows, std::int64_t n, const char* what) {
  try {
    v.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(n));
  } catch (const std::bad_alloc&) {
    throw ResourceError(std::string("cannot allocate the ") + std::to_string(rows) + " x " + std::to_string(n) + " " +
                        what + " (" + resources::describe_bytes(static_cast<std::uint64_t>(rows) * n * sizeof(T)) +
                        ")");
  }
}

}  // namespace

HostMatrixSink::HostMatrixSink() = default;

HostMatrixSink::~HostMatrixSink() { resources::release_memory(reserved_bytes_); }

void HostMatrixSink::begin(const SinkLayout& layout) {
  if (layout.n < 0) throw UsageError("matrix order " + std::to_string(layout.n) + " is negative");
  resources::release_memory(reserved_bytes_);
  reserved_bytes_ = 0;
  dist_ = {};
  dist_f32_ = {};
  dist_f64_ = {};
  pred_ = {};
  if (layout.distance_element == Element::int16)
    throw UsageError("int16 is an output file type (--output-type); a host matrix holds the solve's own type");
  layout_ = layout;
  const std::int64_t rows = layout.row_count();
  const auto cells = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(layout.column_count());
  const std::uint64_t bytes = cells *
                              (element_bytes(layout.distance_element) + (layout.predecessors ? sizeof(vertex_t) : 0));
  resources::require_memory(bytes,
                            "the " + std::to_string(rows) + " x " + std::to_string(layout.column_count()) +
                                (layout.predecessors ? " distance and predecessor matrices" : " distance matrix"));
  switch (layout.distance_element) {
    case Element::int32: allocate(dist_, rows, layout.column_count(), "distance matrix"); break;
    case Element::float32: allocate(dist_f32_, rows, layout.column_count(), "distance matrix"); break;
    case Element::float64: allocate(dist_f64_, rows, layout.column_count(), "distance matrix"); break;
    case Element::int16: break;  // refused above
  }
  if (layout.predecessors) allocate(pred_, rows, layout.column_count(), "predecessor matrix");
  // The pages are not touched yet: count them until this sink lets them go.
  reserved_bytes_ = bytes;
  resources::reserve_memory(bytes);
  ledger_ = std::make_unique<sink::RowLedger>(layout);
}

void* HostMatrixSink::row_address(Plane plane, std::int64_t row) {
  if (!ledger_ || row < 0 || row >= layout_.row_count()) return nullptr;
  if (plane == Plane::predecessors) return layout_.predecessors ? pred_.data() + row * layout_.column_count() : nullptr;
  switch (layout_.distance_element) {
    case Element::int32: break;
    case Element::float32: return dist_f32_.data() + row * layout_.column_count();
    case Element::float64: return dist_f64_.data() + row * layout_.column_count();
    case Element::int16: return nullptr;
  }
  return dist_.data() + row * layout_.column_count();
}

void require_host_memory(std::uint64_t bytes, const std::string& what) { resources::require_memory(bytes, what); }

std::string describe_bytes(std::uint64_t bytes) { return resources::describe_bytes(bytes); }

void commit_pages(void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0) return;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto* base = static_cast<volatile unsigned char*>(data);
  const auto pages = static_cast<std::int64_t>((bytes + page - 1) / page);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < pages; ++p) base[static_cast<std::size_t>(p) * page] = 0;
}

void HostMatrixSink::prepare() {
  if (!ledger_) throw UsageError("prepare() before begin()");
  const auto cells = static_cast<std::size_t>(layout_.row_count()) * static_cast<std::size_t>(layout_.column_count());
  commit_pages(row_address(Plane::distances, 0), cells * element_bytes(layout_.distance_element));
  if (layout_.predecessors) commit_pages(pred_.data(), cells * sizeof(vertex_t));
}

void HostMatrixSink::put(const RowBlock& block) {
  if (!ledger_) throw UsageError("a row block arrived before begin()");
  ledger_->record(block);
  if (block.rows == 0) return;
  auto* target = static_cast<unsigned char*>(row_address(block.plane, block.first_row));
  if (target == block.data && block.row_stride == layout_.column_count()) return;  // computed in place
  const std::size_t cell_bytes = element_bytes(block.element);
  const std::size_t row_bytes = static_cast<std::size_t>(layout_.column_count()) * cell_bytes;
  const auto* source = static_cast<const unsigned char*>(block.data);
  const std::size_t source_stride = static_cast<std::size_t>(block.row_stride) * cell_bytes;
  if (block.row_stride == layout_.column_count() && block.rows * layout_.column_count() <= kParallelCopyCells) {
    std::memcpy(target, source, row_bytes * static_cast<std::size_t>(block.rows));
    return;
  }
  // Row by row, in parallel for large blocks: the copy also first-touches
  // the result's pages from several threads.
#pragma omp parallel for schedule(static) if (block.rows * layout_.column_count() > kParallelCopyCells && \
                                              !omp_in_parallel())
  for (std::int64_t r = 0; r < block.rows; ++r)
    std::memcpy(target + static_cast<std::size_t>(r) * row_bytes, source + static_cast<std::size_t>(r) * source_stride,
                row_bytes);
}

void HostMatrixSink::adopt(HostVector<dist_t>&& dist, HostVector<vertex_t>&& pred) {
  if (!ledger_) throw UsageError("planes were adopted before begin()");
  if (layout_.distance_element != Element::int32)
    throw UsageError(std::string("int32 distances were adopted into a layout of ") +
                     to_string(layout_.distance_element));
  const std::int64_t rows = layout_.row_count();
  const auto cells = static_cast<std::size_t>(rows) * static_cast<std::size_t>(layout_.column_count());
  if (dist.size() != cells || pred.size() != (layout_.predecessors ? cells : 0))
    throw UsageError("adopted planes hold " + std::to_string(dist.size()) + " and " + std::to_string(pred.size()) +
                     " values; the " + std::to_string(rows) + " x " + std::to_string(layout_.column_count()) +
                     " layout needs " + std::to_string(cells) + (layout_.predecessors ? " each" : " and none"));
  dist_ = std::move(dist);
  pred_ = std::move(pred);
  ledger_->record(RowBlock{Plane::distances, Element::int32, 0, rows, layout_.column_count(), dist_.data()});
  if (layout_.predecessors)
    ledger_->record(RowBlock{Plane::predecessors, Element::int32, 0, rows, layout_.column_count(), pred_.data()});
}

void HostMatrixSink::commit() {
  if (!ledger_) throw UsageError("commit() before begin()");
  ledger_->require_complete();
}

NullSink::NullSink(Rows expected) : expected_(expected) {}
NullSink::~NullSink() = default;

void NullSink::begin(const SinkLayout& layout) {
  layout_ = layout;
  ledger_ = std::make_unique<sink::RowLedger>(layout);
}

void NullSink::put(const RowBlock& block) {
  if (!ledger_) throw UsageError("a row block arrived before begin()");
  ledger_->record(block);
}

void NullSink::commit() {
  if (!ledger_) throw UsageError("commit() before begin()");
  if (expected_ == Rows::every) ledger_->require_complete();
}

}  // namespace apsp
