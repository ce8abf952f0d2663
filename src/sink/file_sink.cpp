#include <algorithm>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "core/resources.hpp"
#include "core/row_blocks.hpp"
#include "io/files.hpp"
#include "io/matrix_file.hpp"
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
  // One file for both planes would keep only the one renamed last.
  if (!targets_[0].path.empty() && !targets_[1].path.empty() &&
      io::detail::same_output_file(targets_[0].path, targets_[1].path))
    throw UsageError("the distances (" + targets_[0].path + ") and the predecessors (" + targets_[1].path +
                         ") name one file: each needs its own",
                     "predecessors");
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
  discard();
  layout_ = layout;
  ledger_ = std::make_unique<sink::RowLedger>(layout);
  const char* what[2] = {"distance matrix", "predecessor matrix"};
  const auto element = [&](int p) { return sink::element_of(layout, p == 0 ? Plane::distances : Plane::predecessors); };
  for (int p = 0; p < 2; ++p) {
    if (targets_[p].path.empty()) continue;
    // Distances print kInf as INF in text; predecessors print every value.
    writers_[p] = std::make_unique<io::detail::MatrixFileWriter>(
        targets_[p].path, targets_[p].format, p == 0 ? std::optional<std::int32_t>(kInf) : std::nullopt, what[p]);
  }
  // Both files on one file system must fit it together, before either is
  // created (each writer's begin() checks only its own).
  const auto check_disk = [&] {
    std::vector<resources::DiskNeed> needs;
    for (int p = 0; p < 2; ++p)
      if (writers_[p])
        needs.push_back({targets_[p].path,
                         writers_[p]->bytes_needed(layout.row_count(), layout.column_count(), element(p)),
                         writers_[p]->described(layout.row_count(), layout.column_count())});
    resources::require_disk_space(needs);
  };
  if (comm_ == nullptr)
    check_disk();
  else
    agree(*comm_, [&] {
      if (comm_->rank() == 0) check_disk();  // rank 0 creates the files
    });
  for (int p = 0; p < 2; ++p)
    if (writers_[p]) writers_[p]->begin(layout.row_count(), layout.column_count(), element(p), comm_);
}

void FileSink::put(const RowBlock& block) {
  if (!ledger_) throw UsageError("a row block arrived before begin()");
  ledger_->record(block);
  if (auto& writer = writers_[index_of(block.plane)])
    writer->put(block.first_row, block.rows, block.row_stride, block.data);
}

void FileSink::commit() {
  if (!ledger_) throw UsageError("commit() before begin()");
  if (comm_ == nullptr) {
    ledger_->require_complete();
  } else {
    // Each rank's ledger refused its own repeats; summed over the ranks,
    // every row must have arrived exactly once (a count of n rows would
    // hide a row delivered by two ranks and another by none).
    for (const Plane plane : {Plane::distances, Plane::predecessors}) {
      if (plane == Plane::predecessors && !layout_.predecessors) continue;
      const std::vector<std::int32_t> mine = ledger_->arrivals(plane);
      std::vector<std::int32_t> all(mine.size(), 0);
      comm_->all_reduce(mine.data(), all.data(), mine.size(), ReduceOp::sum);
      agree(*comm_, [&] {
        std::int64_t delivered = 0;
        for (const std::int32_t times : all) delivered += times;
        const auto wrong = std::find_if(all.begin(), all.end(), [](std::int32_t times) { return times != 1; });
        if (wrong != all.end())
          throw Error("the ranks delivered " + std::to_string(delivered) + " rows of the " + sink::to_string(plane) +
                      " for a matrix of " + std::to_string(layout_.n) + ": row " + std::to_string(wrong - all.begin()) +
                      " arrived " + std::to_string(*wrong) + " times");
      });
    }
  }
  if (!writers_[0] || !writers_[1]) {
    for (auto& writer : writers_)
      if (writer) writer->commit();
    return;
  }
  // Both or neither: the predecessors are renamed first, keeping the file
  // they replace; if the distances then fail, that file comes back (or the
  // new one goes, where there was none).
  io::detail::ReplacedFile previous;
  writers_[1]->commit(&previous);
  try {
    if (sink::failing_between_renames())
      throw ResourceError("cannot rename " + targets_[0].path + ": injected failure");
    writers_[0]->commit();
  } catch (const std::exception& e) {
    const bool restored = previous.restore();
    if (restored || comm_ != nullptr) throw;  // the ranks' error stays the agreed one
    throw ResourceError(std::string(e.what()) + "; " + targets_[1].path + " holds the new predecessors and " +
                        targets_[0].path + " the old distances (the old predecessors could not be put back)");
  }
  previous.drop();
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
