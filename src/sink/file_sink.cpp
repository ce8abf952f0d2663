#include <algorithm>
#include <string>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "io/matrix_file.hpp"
#include "core/row_blocks.hpp"
#include "sink/rows.hpp"

namespace apsp {
namespace {

int index_of(Plane plane) { return plane == Plane::distances ? 0 : 1; }

}  // namespace

FileSink::FileSink(MatrixFileTarget distances, MatrixFileTarget predecessors)
    : targets_{std::move(distances), std::move(predecessors)} {
  // Fail at once on a path whose extension names no format, or a graph format.
  for (int p = 0; p < 2; ++p)
    if (!targets_[p].path.empty())
      io::detail::MatrixFileWriter(targets_[p].path, targets_[p].format, std::nullopt, "matrix");
}

FileSink::FileSink(Communicator& comm, MatrixFileTarget distances, MatrixFileTarget predecessors)
    : FileSink(std::move(distances), std::move(predecessors)) {
  comm_ = &comm;
}

FileSink::~FileSink() { discard(); }

void FileSink::begin(const SinkLayout& layout) {
  if (!targets_[1].path.empty() && !layout.predecessors)
    throw UsageError("a predecessors file (" + targets_[1].path + ") was given but the solve computes no predecessors",
                     "predecessors");
  if (layout.row_count() != layout.n)
    throw UsageError("the matrix files hold square n x n results, not " + std::to_string(layout.row_count()) +
                         " rows of " + std::to_string(layout.n) + " (a solve of some sources only)",
                     "sources");
  discard();
  layout_ = layout;
  ledger_ = std::make_unique<sink::RowLedger>(layout);
  const char* what[2] = {"distance matrix", "predecessor matrix"};
  for (int p = 0; p < 2; ++p) {
    if (targets_[p].path.empty()) continue;
    // Distances print kInf as INF in text; predecessors print every value.
    writers_[p] = std::make_unique<io::detail::MatrixFileWriter>(
        targets_[p].path, targets_[p].format, p == 0 ? std::optional<std::int32_t>(kInf) : std::nullopt, what[p]);
    writers_[p]->begin(layout.n, sink::element_of(layout, p == 0 ? Plane::distances : Plane::predecessors), comm_);
  }
}

void FileSink::put(const RowBlock& block) {
  if (!ledger_) throw UsageError("a row block arrived before begin()");
  ledger_->record(block);
  if (auto& writer = writers_[index_of(block.plane)]) writer->put(block.first_row, block.rows, block.row_stride, block.data);
}

void FileSink::commit() {
  if (!ledger_) throw UsageError("commit() before begin()");
  if (comm_ == nullptr) {
    ledger_->require_complete();
  } else {
    // Each rank's ledger refused its own repeats; together they must make n rows.
    const std::int64_t mine[2] = {ledger_->rows(Plane::distances), ledger_->rows(Plane::predecessors)};
    std::int64_t all[2] = {0, 0};
    comm_->all_reduce(mine, all, 2, ReduceOp::sum);
    agree(*comm_, [&] {
      for (int p = 0; p < (layout_.predecessors ? 2 : 1); ++p)
        if (all[p] != layout_.n)
          throw Error(std::string("the ranks delivered ") + std::to_string(all[p]) + " rows of the " +
                      (p == 0 ? "distances" : "predecessors") + " for a matrix of " + std::to_string(layout_.n));
    });
  }
  for (auto& writer : writers_)
    if (writer) writer->commit();
}

void FileSink::discard() noexcept {
  for (auto& writer : writers_) {
    if (writer) writer->discard();
    writer.reset();
  }
}

std::uint64_t FileSink::bytes_written() const {
  std::uint64_t bytes = 0;
  for (const auto& writer : writers_)
    if (writer) bytes += writer->bytes_written();
  return bytes;
}

namespace {

template <class T>
void put_matrix_of(Sink& sink, Plane plane, Element element, const T* data, std::int64_t n) {
  put_in_blocks(n, static_cast<std::size_t>(n) * sizeof(T), [&](std::int64_t first, std::int64_t rows) {
    sink.put(RowBlock{plane, element, first, rows, n, data + first * n});
  });
}

}  // namespace

void put_matrix(Sink& sink, Plane plane, const std::int32_t* data, std::int64_t n) {
  put_matrix_of(sink, plane, Element::int32, data, n);
}
void put_matrix(Sink& sink, Plane plane, const float* data, std::int64_t n) {
  put_matrix_of(sink, plane, Element::float32, data, n);
}
void put_matrix(Sink& sink, Plane plane, const double* data, std::int64_t n) {
  put_matrix_of(sink, plane, Element::float64, data, n);
}

}  // namespace apsp
