// Private to the solve layer: the sink between a backend and the caller's
// sink when the caller asked for a part of the matrix (some sources, some
// targets) that the backend does not compute on its own.
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/sink.hpp"

namespace apsp::sink {

// Passes rows of the producer's matrix to `inner` as a part of it.
// `rows_from` lists, for each output row, the producer row it copies (empty:
// row r is producer row r, the producer computed the chosen sources itself);
// `columns` lists the producer columns (vertices) the output keeps, in order
// (empty: every column, or those the producer gathered itself: the GPU row
// solvers' device gather of SolveOptions::targets puts rows of the targets'
// values only, and then this sink passes them on as they come). The producer's own layout goes to begin(); `inner`
// begins with rows_from.size() rows (the producer's count when empty) of
// columns.size() values. Producer rows no output row copies are dropped.
// Each put gathers the kept values of its rows into a staging block of
// (rows x columns) values, so no producer-sized matrix is held here.
// `vertex_names` (empty: none) renames the predecessors' vertices, v to
// vertex_names[v] (-1 stays): for a producer that solved a renumbered graph.
// Thread-safe as any sink. row_address() stays null: producers copy through put().
// An `inner` that keeps partial rows (Sink::keeps_partial) is refused at
// begin(): a resumed run keeps rows of the whole matrix only.
class PartSink : public Sink {
 public:
  PartSink(Sink& inner, std::vector<std::int64_t> rows_from, std::vector<vertex_t> columns,
           std::vector<vertex_t> vertex_names = {});

  void begin(const SinkLayout& layout) override;
  // begin() without the inner sink's: for an `inner` that has begun with
  // the part's layout already (the one returned), e.g. a GPU row solver
  // that cuts the columns on the host where it cannot on the device.
  SinkLayout begin_producer(const SinkLayout& layout);
  void put(const RowBlock& block) override;
  void commit() override;
  void discard() noexcept override;

 private:
  Sink& inner_;
  std::vector<std::int64_t> rows_from_;
  std::vector<vertex_t> columns_;
  std::vector<vertex_t> vertex_names_;
  SinkLayout producer_;
  // The output rows of producer row p: output_rows_[first_output_[p] .. first_output_[p + 1]).
  std::vector<std::int64_t> first_output_;
  std::vector<std::int64_t> output_rows_;
};

}  // namespace apsp::sink
