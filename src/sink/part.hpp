// Private to the solve layer: the sink between a backend and the caller's
// sink when the caller asked for a part of the matrix (some sources, some
// targets) that the backend does not compute on its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/dense.hpp"
#include "apsp/error.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"
#include "core/algorithm_checks.hpp"

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

// The normalized graph `g` with vertex v renamed new_id[v] (a permutation
// of 0..n-1; `names` its inverse), in normalize()'s form: what
// normalize() of the renamed edge list gives, in O(n + m) rather than its
// sort of every edge (the renaming keeps edges distinct and loop-free, so
// only the order changes: each source's edges move as one block, and only
// the few edges of a block are sorted by their new target). For a part of
// 1000 sources of a 126146-vertex road graph this was 60 ms of the part's
// "open output" with normalize().
template <class G>
G renumbered_normalized(const G& g, const std::vector<vertex_t>& new_id, const std::vector<vertex_t>& names) {
  const auto n = static_cast<std::size_t>(g.n);
  // first[v]: the first edge of v in g (its edges are contiguous, sorted by source).
  std::vector<std::size_t> first(n + 1, 0);
  for (const auto& e : g.edges) ++first[static_cast<std::size_t>(e.src) + 1];
  for (std::size_t v = 0; v < n; ++v) first[v + 1] += first[v];
  // at[u]: where the new vertex u's edges start in the result.
  std::vector<std::size_t> at(n + 1, 0);
  for (std::size_t u = 0; u < n; ++u) {
    const auto v = static_cast<std::size_t>(names[u]);
    at[u + 1] = at[u] + (first[v + 1] - first[v]);
  }
  G out;
  out.n = g.n;
  out.edges.resize(g.edges.size());
  const auto vertices = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t u = 0; u < vertices; ++u) {
    const auto v = static_cast<std::size_t>(names[static_cast<std::size_t>(u)]);
    auto* block = out.edges.data() + at[static_cast<std::size_t>(u)];
    std::size_t k = 0;
    for (std::size_t i = first[v]; i < first[v + 1]; ++i, ++k) {
      block[k] = g.edges[i];
      block[k].src = static_cast<vertex_t>(u);
      block[k].dst = new_id[static_cast<std::size_t>(g.edges[i].dst)];
    }
    std::sort(block, block + k, [](const auto& a, const auto& b) { return a.dst < b.dst; });
  }
  return out;
}

// Where a solve's rows go and what the backend solves: straight to the
// caller's sink, or through a PartSink when targets were chosen (the
// backends compute whole rows) or sources were chosen for an algorithm that
// does not compute them itself. Takes from `run` what the PartSink does
// instead, so the backend sees the rows it must compute; checks both vertex
// lists first (UsageError before any work).
//  - CPU per-source algorithms: compute the chosen rows (run.sources stays).
//  - GPU row solvers (which compute rows 0..k-1 only): the graph is
//    renumbered so that the distinct sources come first, in order, the rest
//    keeping their order (sources 0..k-1 are not moved at all); the backend
//    computes rows 0..k-1 of that graph and gathers the columns (the
//    targets, or every vertex in its caller's order when renumbered) on the
//    device (run.targets, in the renumbered ids), and the PartSink maps rows
//    and predecessors back.
//  - every other algorithm: computes every row; the PartSink keeps the chosen ones.
template <class G>
class PartRoute {
 public:
  // `gpu_rows`: the algorithm is one of the GPU's row solvers (sssp and its
  // ladder, supernodal); `computes_chosen_rows`: it computes the rows of
  // SolveOptions::sources itself (the caller asks the registry).
  PartRoute(SolveOptions& run, const G& normalized, bool gpu_rows, bool computes_chosen_rows, Sink& sink)
      : graph_(&normalized), sink_(sink) {
    const std::int64_t n = normalized.n;
    require_vertices_in_range(run.sources, n, "sources");
    require_vertices_in_range(run.targets, n, "targets");
    if (run.cutoff && std::isnan(*run.cutoff)) throw UsageError("the cutoff is not a number", "cutoff");
    std::vector<std::int64_t> rows_from;
    std::vector<vertex_t> columns = std::move(run.targets), names;
    run.targets.clear();
    if (!run.sources.empty() && gpu_rows) {
      if constexpr (!std::is_same<G, DenseView>::value) renumber(run, normalized, rows_from, columns, names);
    } else if (!run.sources.empty() && !computes_chosen_rows) {
      rows_from.assign(run.sources.begin(), run.sources.end());
      run.sources.clear();
    }
    const bool part = !rows_from.empty() || !columns.empty() || !names.empty();
    // The GPU row solvers cut the columns themselves (the link then carries
    // s x t values, not s x n): the PartSink gets their t-wide rows.
    if (gpu_rows) {
      run.targets = std::move(columns);
      columns.clear();
    }
    if (part) part_.emplace(sink, std::move(rows_from), std::move(columns), std::move(names));
  }
  Sink& sink() { return part_ ? static_cast<Sink&>(*part_) : sink_; }
  // The graph the backend solves: the normalized one, or its renumbering.
  const G& graph() const { return *graph_; }

 private:
  // The GPU row solvers' route: sources first (see the class comment).
  void renumber(SolveOptions& run, const G& normalized, std::vector<std::int64_t>& rows_from,
                std::vector<vertex_t>& columns, std::vector<vertex_t>& names) {
    const std::int64_t n = normalized.n;
    // new_id[v]: v's number in the renumbered graph; names: its inverse.
    std::vector<vertex_t> new_id(static_cast<std::size_t>(n), -1);
    vertex_t next = 0;
    for (const vertex_t s : run.sources)
      if (new_id[static_cast<std::size_t>(s)] < 0) new_id[static_cast<std::size_t>(s)] = next++;
    const vertex_t distinct = next;
    for (std::size_t v = 0; v < new_id.size(); ++v)
      if (new_id[v] < 0) new_id[v] = next++;
    for (const vertex_t s : run.sources) rows_from.push_back(new_id[static_cast<std::size_t>(s)]);
    bool moved = false;
    for (std::size_t v = 0; v < new_id.size() && !moved; ++v) moved = new_id[v] != static_cast<vertex_t>(v);
    if (moved) {
      names.resize(new_id.size());
      for (std::size_t v = 0; v < new_id.size(); ++v)
        names[static_cast<std::size_t>(new_id[v])] = static_cast<vertex_t>(v);
      renumbered_ = renumbered_normalized(normalized, new_id, names);
      graph_ = &renumbered_;
      if (columns.empty())
        columns.assign(new_id.begin(), new_id.end());
      else
        for (vertex_t& t : columns) t = new_id[static_cast<std::size_t>(t)];
    }
    run.sources.resize(static_cast<std::size_t>(distinct));
    for (vertex_t r = 0; r < distinct; ++r) run.sources[static_cast<std::size_t>(r)] = r;
  }

  const G* graph_;
  G renumbered_;
  Sink& sink_;
  std::optional<PartSink> part_;
};

}  // namespace apsp::sink
