#include "sink/resume.hpp"

#include <vector>

#include "core/fingerprint.hpp"

namespace apsp::resume {
namespace {

core::Fingerprint options_digest(const std::string& algorithm, Backend backend, const SolveOptions& opts) {
  core::Fingerprint digest;
  digest.text(algorithm).value(static_cast<int>(backend)).value(static_cast<int>(opts.precision));
  digest.value(opts.predecessors).value(static_cast<std::uint64_t>(opts.sources.size()));
  digest.bytes(opts.sources.data(), opts.sources.size() * sizeof(vertex_t));
  return digest;
}

template <class W>
std::uint64_t graph_key(const BasicGraph<W>& g, const std::string& algorithm, Backend backend,
                        const SolveOptions& opts) {
  core::Fingerprint digest = options_digest(algorithm, backend, opts);
  digest.value(static_cast<int>(weight_type_of<W>)).value(g.n).value(static_cast<std::uint64_t>(g.edges.size()));
  static_assert(sizeof(BasicEdge<W>) == 2 * sizeof(vertex_t) + sizeof(W), "an edge without padding");
  digest.bytes(g.edges.data(), g.edges.size() * sizeof(BasicEdge<W>));
  return digest.digest();
}

// Puts the rows of a solve of the rows left into `inner`, whose layout
// counts every row: row i of the solve is inner row rows_[i] (rows_ empty:
// row i), and rows `present` flags are dropped (a whole solve's kept rows).
class RowsLeftSink : public Sink {
 public:
  RowsLeftSink(Sink& inner, std::vector<std::int64_t> rows, std::vector<bool> present)
      : inner_(inner), rows_(std::move(rows)), present_(std::move(present)) {}

  void begin(const SinkLayout&) override {}  // `inner` has begun
  void commit() override {}                  // the solve commits `inner`
  RoundCheckpoints* round_checkpoints() override { return inner_.round_checkpoints(); }
  void put(const RowBlock& block) override {
    const auto* data = static_cast<const unsigned char*>(block.data);
    const std::size_t row_bytes = static_cast<std::size_t>(block.row_stride) * element_bytes(block.element);
    // Forwards runs of rows that stay consecutive in `inner` and are not kept.
    std::int64_t i = 0;
    while (i < block.rows) {
      const std::int64_t first = target(block.first_row + i);
      if (present_[static_cast<std::size_t>(first)]) {
        ++i;
        continue;
      }
      std::int64_t count = 1;
      while (i + count < block.rows && target(block.first_row + i + count) == first + count &&
             !present_[static_cast<std::size_t>(first + count)])
        ++count;
      RowBlock part = block;
      part.first_row = first;
      part.rows = count;
      part.data = data + static_cast<std::size_t>(i) * row_bytes;
      inner_.put(part);
      i += count;
    }
  }

 private:
  std::int64_t target(std::int64_t row) const { return rows_.empty() ? row : rows_[static_cast<std::size_t>(row)]; }
  Sink& inner_;
  std::vector<std::int64_t> rows_;
  std::vector<bool> present_;
};

}  // namespace

std::uint64_t solve_key(const Graph& g, const std::string& algorithm, Backend backend, const SolveOptions& opts) {
  return graph_key(g, algorithm, backend, opts);
}
std::uint64_t solve_key(const GraphF32& g, const std::string& algorithm, Backend backend, const SolveOptions& opts) {
  return graph_key(g, algorithm, backend, opts);
}
std::uint64_t solve_key(const GraphF64& g, const std::string& algorithm, Backend backend, const SolveOptions& opts) {
  return graph_key(g, algorithm, backend, opts);
}

std::uint64_t solve_key(const DenseView& v, const std::string& algorithm, Backend backend, const SolveOptions& opts) {
  core::Fingerprint digest = options_digest(algorithm, backend, opts);
  digest.value(v.n).value(static_cast<int>(v.element)).value(v.undirected).value(v.unweighted);
  const std::size_t cell = element_bytes(v.element);
  const auto* data = static_cast<const unsigned char*>(v.data);
  for (std::int64_t i = 0; i < v.n; ++i)
    for (std::int64_t j = 0; j < v.n; ++j)
      digest.bytes(data + static_cast<std::size_t>(i * v.row_stride + j * v.col_stride) * cell, cell);
  return digest.digest();
}

RowsLeft rows_left(Sink& sink, const SinkLayout& layout, const SolveOptions& run, bool narrow_sources, bool row_range) {
  RowsLeft left;
  left.run = run;
  SinkResume kept = sink.resumed();
  left.note = std::move(kept.note);
  if (kept.present.empty()) return left;
  std::vector<std::int64_t> missing;
  for (std::int64_t r = 0; r < layout.row_count(); ++r)
    if (!kept.present[static_cast<std::size_t>(r)]) missing.push_back(r);
  if (missing.size() == kept.present.size()) return left;  // nothing kept: the solve as it was
  left.nothing_left = missing.empty();
  if (!narrow_sources) {
    if (row_range && !missing.empty() && run.row_split == nullptr) {
      // The gaps between the kept rows, one chunk each, through one split:
      // a row solver's setup (its graph on the device, the supernodal
      // factor) is paid once, and no kept row is computed again. (The rows
      // an interrupted run kept need not be a prefix: its blocks reach the
      // journal in the order they are written.)
      std::vector<RowSplit::Span> gaps;
      std::int64_t longest = 1;
      for (const std::int64_t r : missing) {
        if (gaps.empty() || gaps.back().end != r) gaps.push_back(RowSplit::Span{r, r});
        ++gaps.back().end;
        longest = std::max(longest, gaps.back().end - gaps.back().first);
      }
      left.counter = std::make_unique<AtomicCounter>();
      left.split = std::make_unique<RowSplit>(gaps, 1, longest, longest, *left.counter);
      left.run.row_split = left.split.get();
      left.rows_computed = left.split->rows();
      left.ranges = static_cast<std::int64_t>(gaps.size());
    }
    left.into = std::make_unique<RowsLeftSink>(sink, std::vector<std::int64_t>{}, std::move(kept.present));
    return left;
  }
  left.run.sources.clear();
  for (const std::int64_t r : missing)
    left.run.sources.push_back(run.sources.empty() ? static_cast<vertex_t>(r)
                                                   : run.sources[static_cast<std::size_t>(r)]);
  left.into = std::make_unique<RowsLeftSink>(sink, std::move(missing),
                                             std::vector<bool>(static_cast<std::size_t>(layout.row_count()), false));
  return left;
}

}  // namespace apsp::resume
