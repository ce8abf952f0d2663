// apsp._apsp: the nanobind extension under the scipy-compatible layer
// (python/apsp/_csgraph.py): bindings and the result sink only. It hands a
// scipy.sparse matrix's buffers to the library's apsp::graph_from_coo /
// graph_from_csr (apsp/array_graph.hpp) and a dense numpy array to the
// library as an apsp::DenseView (apsp/dense.hpp), both read in place; solves
// with the GIL released; and hands the results back as numpy arrays that own
// the solver's buffers.
//
// Graph inputs follow scipy.sparse.csgraph (the library's rules): in a dense
// matrix 0, |w| <= 1e-8, +-inf and NaN mean "no edge"; in a sparse matrix
// every stored entry is an edge (an explicit zero is a zero-weight edge),
// except +inf and NaN, which no path can use. The weight type is the
// library's auto rule (apsp::choose_weight_type): int32 for integer weights
// whose distances int32 holds, float64 otherwise.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "apsp/array_graph.hpp"
#include "apsp/cuda.hpp"
#include "apsp/dense.hpp"
#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/matrix.hpp"
#include "apsp/registry.hpp"
#include "apsp/sink.hpp"
#include "apsp/sinks.hpp"
#include "apsp/solver.hpp"
#include "apsp/verify.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using apsp::dist_t;
using apsp::Edge;
using apsp::Graph;
using apsp::vertex_t;
using apsp::weight_t;

// scipy's predecessor value for "no predecessor".
constexpr vertex_t kScipyNoPredecessor = -9999;

// A read-only view of any numeric array, strides included: read in place.
using AnyArray = nb::ndarray<nb::ro, nb::device::cpu>;

// Calls f(T{}) with T the element type of `a`; TypeError for other types.
template <class F>
void visit_elements(const AnyArray& a, const char* what, F&& f) {
  const nb::dlpack::dtype t = a.dtype();
  const auto code = static_cast<nb::dlpack::dtype_code>(t.code);
  if (t.lanes == 1) {
    if (code == nb::dlpack::dtype_code::Float && t.bits == 64) return f(double{});
    if (code == nb::dlpack::dtype_code::Float && t.bits == 32) return f(float{});
    if (code == nb::dlpack::dtype_code::Int && t.bits == 64) return f(std::int64_t{});
    if (code == nb::dlpack::dtype_code::Int && t.bits == 32) return f(std::int32_t{});
    if (code == nb::dlpack::dtype_code::Int && t.bits == 16) return f(std::int16_t{});
    if (code == nb::dlpack::dtype_code::Int && t.bits == 8) return f(std::int8_t{});
    if (code == nb::dlpack::dtype_code::UInt && t.bits == 64) return f(std::uint64_t{});
    if (code == nb::dlpack::dtype_code::UInt && t.bits == 32) return f(std::uint32_t{});
    if (code == nb::dlpack::dtype_code::UInt && t.bits == 16) return f(std::uint16_t{});
    if (code == nb::dlpack::dtype_code::UInt && t.bits == 8) return f(std::uint8_t{});
    if (code == nb::dlpack::dtype_code::Bool && t.bits == 8) return f(bool{});
  }
  throw nb::type_error(
      (std::string(what) + ": unsupported element type (expected a bool, integer or float32/64 array)").c_str());
}

// Element (i, j) of a 2-d view, by its strides (in elements).
template <class T>
T at(const AnyArray& a, std::int64_t i, std::int64_t j) {
  return static_cast<const T*>(a.data())[i * a.stride(0) + j * a.stride(1)];
}

// The graph of one input, held between calls (the layer builds it once and
// may solve it several times, e.g. for min_only). Sparse input: its
// normalized edge list, built at once: int32 weights (the exact engine), or
// float64 where a weight is not an integer inside int32 (the real-valued
// engine). Dense input: the array itself (referenced, so it outlives the
// graph) and the library's view of it, read in place by apsp::solve; the
// edge list (apsp::dense_to_graph) is built only when something asks for it
// (its size, weights, a verify, a CSR, an added source vertex), never for a
// solve: until then a solve, on any backend, hands the library the view.
class InputGraph {
 public:
  using Edges = std::variant<Graph, apsp::GraphF64>;

  InputGraph(Edges edges) : edges_(std::move(edges)), building_(std::make_unique<std::mutex>()) {}
  InputGraph(AnyArray array, const apsp::DenseView& view)
      : array_(std::move(array)), view_(view), building_(std::make_unique<std::mutex>()) {}

  std::int64_t n() const {
    return array_ ? view_.n : std::visit([](const auto& g) { return g.n; }, *edges_);
  }

  // The dense view to solve from, or null: dense input whose edge list has
  // not been built (once it has, solves reuse it).
  const apsp::DenseView* view() const {
    const std::lock_guard<std::mutex> lock(*building_);
    return array_ && !edges_ ? &view_ : nullptr;
  }

  // The normalized edge list; dense input converts on first use, without
  // the GIL (called with it held).
  const Edges& graph() const {
    nb::gil_scoped_release unlocked;
    const std::lock_guard<std::mutex> lock(*building_);
    if (!edges_) {
      apsp::AnyGraph g = apsp::dense_to_graph(view_);
      if (auto* ints = std::get_if<Graph>(&g))
        edges_ = Edges(std::move(*ints));
      else
        edges_ = Edges(std::move(std::get<apsp::GraphF64>(g)));
    }
    return *edges_;
  }

 private:
  std::optional<AnyArray> array_;
  apsp::DenseView view_;
  mutable std::optional<Edges> edges_;
  std::unique_ptr<std::mutex> building_;  // guards edges_ (a unique_ptr: the graph moves into Python)
};

// The graph of a dense n x n matrix in any memory order: a view of the
// array (strides in elements), which the library reads in place.
InputGraph graph_from_dense(const AnyArray& a, bool directed, bool unweighted) {
  if (a.ndim() != 2 || a.shape(0) != a.shape(1))
    throw apsp::InputError("a dense graph must be a square matrix, got shape (" + std::to_string(a.shape(0)) +
                           (a.ndim() == 2 ? ", " + std::to_string(a.shape(1)) : std::string()) + ")");
  const auto n = static_cast<std::int64_t>(a.shape(0));
  if (n > std::numeric_limits<vertex_t>::max()) throw apsp::InputError("too many vertices: " + std::to_string(n));
  apsp::DenseView view;
  view.n = n;
  view.data = a.data();
  visit_elements(a, "csgraph", [&](auto zero) { view.element = apsp::dense_element_of<decltype(zero)>; });
  view.row_stride = a.stride(0);
  view.col_stride = a.stride(1);
  view.undirected = !directed;
  view.unweighted = unweighted;
  return InputGraph(a, view);
}

// The input graph of a library graph (normalized, its weight type chosen).
InputGraph input_of(apsp::AnyGraph g) {
  if (auto* ints = std::get_if<Graph>(&g)) return InputGraph{std::move(*ints)};
  return InputGraph{std::move(std::get<apsp::GraphF64>(g))};
}

// `g` normalized, in the auto weight type (apsp::normalized_with_auto_weights).
template <class W>
InputGraph normalized(apsp::BasicGraph<W> g) {
  nb::gil_scoped_release unlocked;
  return input_of(apsp::normalized_with_auto_weights(std::move(g)));
}

// The library's view of a 1-d array (read in place, by its stride): a
// TypeError for an element type the library does not read, or for a
// non-integer index array (`index`).
apsp::ArrayView array_view(const AnyArray& a, const char* what, bool index) {
  if (a.ndim() != 1) throw apsp::InputError(std::string(what) + " must be a 1-d array");
  apsp::ArrayView v;
  v.data = a.data();
  v.size = static_cast<std::int64_t>(a.shape(0));
  v.stride = a.stride(0);
  visit_elements(a, what, [&](auto zero) {
    using T = decltype(zero);
    if (index && (std::is_floating_point<T>::value || std::is_same<T, bool>::value))
      throw nb::type_error("index arrays must hold integers");
    v.element = apsp::dense_element_of<T>;
  });
  return v;
}

// Options of one solve, as the Python layer passes them.
struct SolveRequest {
  std::string algorithm = "auto";
  std::string backend = "auto";
  int device = 0;
  std::string precision = "auto";
  int threads = 0;
  bool predecessors = false;
  std::optional<std::vector<vertex_t>> sources;
  std::optional<std::vector<vertex_t>> targets;  // the columns kept (SolveOptions::targets); None = every vertex
  nb::object progress;            // None or a callable taking the fraction done
  std::string dtype = "float64";  // of the distances: float64, float32 or int32 (kInf = unreachable)
  std::optional<double> limit;    // distances above it become unreachable (scipy's dijkstra limit)
  // A sparse result (apsp::SparseSink: `limit` as the cutoff, `nearest`
  // per row when > 0): solve() returns (indptr, indices, data) as float64
  // in place of the distance array, and no predecessors.
  bool sparse = false;
  std::int64_t nearest = 0;
};

// A 1-d array owning `values` (moved onto the heap and freed with the array).
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> to_numpy(std::vector<T>&& values) {
  auto* owner = new std::vector<T>(std::move(values));
  nb::capsule free_when_done(owner, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owner->data(), {owner->size()}, free_when_done);
}

// An array owning `values` (moved onto the heap and freed with the array).
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<2>> owning_array(apsp::HostVector<T>&& values, std::size_t rows, std::size_t cols) {
  auto* owner = new apsp::HostVector<T>(std::move(values));
  nb::capsule free_when_done(owner, [](void* p) noexcept { delete static_cast<apsp::HostVector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<2>>(owner->data(), {rows, cols}, free_when_done);
}

// A result that does not fit the memory this process can use (raised as
// Python's MemoryError, its message naming the size).
class ResultMemoryError : public apsp::ResourceError {
 public:
  using apsp::ResourceError::ResourceError;
};

// The result's matrices as Python gets them: distances as T (unreachable,
// and farther than `limit`, as `unreachable`), predecessors with scipy's
// -9999 for none. As a sink (apsp/sink.hpp) it converts the solver's rows
// in put(), on the solver's threads while it works (a GPU solve's download
// puts each block from several threads while the next one crosses the
// link): no separate pass over the result and no int32 copy of it. Where
// the distances' type is T's it exposes its memory (row_address), so
// producers compute in place and put() leaves those rows alone unless a
// limit cuts them.
template <class T>
class ResultSink : public apsp::Sink {
 public:
  ResultSink(T unreachable, std::optional<double> limit) : unreachable_(unreachable), limit_(limit) {}

  void begin(const apsp::SinkLayout& layout) override {
    if (layout.distance_element == apsp::Element::float32)
      throw apsp::UsageError("the result sink takes int32 or float64 distances, not float32");
    if (std::is_same<T, dist_t>::value && layout.distance_element != apsp::Element::int32)
      throw apsp::UsageError(
          "int32 distances need a graph solved in int32 (integer weights with (n-1) * max|w| < 2**30 - 1); this one "
          "is solved in float64 (use float64 or float32)",
          "dtype");
    element_ = layout.distance_element;
    cols_ = layout.column_count();
    rows_ = layout.row_count();
    predecessors_ = layout.predecessors;
    // The memory check of every result buffer (the CLI's and HostMatrixSink's),
    // before the solve's work: too large a result is a MemoryError naming
    // its size, not the OOM killer.
    const auto cells = static_cast<std::uint64_t>(rows_) * static_cast<std::uint64_t>(cols_);
    const std::uint64_t bytes = cells * (sizeof(T) + (predecessors_ ? sizeof(vertex_t) : 0));
    const std::string what = "the " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                             (predecessors_ ? " distance and predecessor arrays" : " distance array");
    try {
      apsp::require_host_memory(bytes, what);
      dist_.resize(static_cast<std::size_t>(cells));
      if (predecessors_) pred_.resize(static_cast<std::size_t>(cells));
    } catch (const apsp::ResourceError& e) {
      throw ResultMemoryError(e.what());
    } catch (const std::bad_alloc&) {
      throw ResultMemoryError("cannot allocate " + what + " (" + apsp::describe_bytes(bytes) + ")");
    }
  }

  // A GPU solve calls this while the device computes: the result's pages
  // are faulted in then, not by the download's puts (a fresh float64 matrix
  // is mmap'd memory, every page a first touch).
  void prepare() override {
    apsp::commit_pages(dist_.data(), dist_.size() * sizeof(T));
    apsp::commit_pages(pred_.data(), pred_.size() * sizeof(vertex_t));
  }

  void* row_address(apsp::Plane plane, std::int64_t row) override {
    if (element_ != kElement || row < 0 || row >= rows_) return nullptr;
    if (plane == apsp::Plane::predecessors) return predecessors_ ? pred_.data() + row * cols_ : nullptr;
    return dist_.data() + row * cols_;
  }

  void put(const apsp::RowBlock& b) override {
    const apsp::Element expected = b.plane == apsp::Plane::distances ? element_ : apsp::Element::int32;
    if (b.element != expected || b.first_row < 0 || b.first_row + b.rows > rows_)
      throw apsp::UsageError("a row block outside the result's layout");
    // Distances computed in place are final without a limit (converting
    // them would write every cell back unchanged); predecessors computed in
    // place still need scipy's -9999.
    if (b.plane == apsp::Plane::distances && !limit_ && b.row_stride == cols_ &&
        b.data == row_address(b.plane, b.first_row))
      return;
    for (std::int64_t r = 0; r < b.rows; ++r) {
      const std::int64_t at = (b.first_row + r) * cols_;
      if (b.plane == apsp::Plane::predecessors)
        convert_predecessors(static_cast<const std::int32_t*>(b.data) + r * b.row_stride, pred_.data() + at, cols_);
      else if (b.element == apsp::Element::float64)
        convert_distances(static_cast<const double*>(b.data) + r * b.row_stride, dist_.data() + at, cols_);
      else
        convert_distances(static_cast<const std::int32_t*>(b.data) + r * b.row_stride, dist_.data() + at, cols_);
    }
  }

  // Predecessors of pairs beyond the limit become -9999 too.
  void commit() override {
    if (!limit_ || !predecessors_) return;
    const auto cells = static_cast<std::int64_t>(pred_.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t x = 0; x < cells; ++x)
      if (dist_[x] == unreachable_) pred_[x] = kScipyNoPredecessor;
  }

  apsp::HostVector<T>&& take_distances() { return std::move(dist_); }
  apsp::HostVector<vertex_t>&& take_predecessors() { return std::move(pred_); }

 private:
  // int32 rows: kInf is unreachable; float64 rows: +inf is.
  template <class In>
  void convert_distances(const In* in, T* out, std::int64_t count) const {
    const double bound = limit_ ? *limit_ : std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < count; ++j)
      out[j] = in[j] == apsp::kUnreachable<In> || static_cast<double>(in[j]) > bound ? unreachable_
                                                                                     : static_cast<T>(in[j]);
  }
  static void convert_predecessors(const std::int32_t* in, vertex_t* out, std::int64_t count) {
    for (std::int64_t j = 0; j < count; ++j) out[j] = in[j] < 0 ? kScipyNoPredecessor : in[j];
  }

  // The distance element whose rows land in dist_ unchanged (computed in place).
  static constexpr apsp::Element kElement = std::is_same<T, double>::value  ? apsp::Element::float64
                                            : std::is_same<T, float>::value ? apsp::Element::float32
                                                                            : apsp::Element::int32;
  T unreachable_;
  std::optional<double> limit_;
  apsp::Element element_ = apsp::Element::int32;
  std::int64_t cols_ = 0;  // values per row: n, or the count of the targets
  std::int64_t rows_ = 0;
  bool predecessors_ = false;
  apsp::HostVector<T> dist_;
  apsp::HostVector<vertex_t> pred_;
};

// The library's options for `request` (its progress callback apart).
apsp::SolveOptions options_of(const SolveRequest& request) {
  apsp::SolveOptions opts;
  opts.algorithm = request.algorithm;
  opts.backend = apsp::parse_backend(request.backend);
  opts.device = request.device;
  opts.precision = apsp::parse_precision(request.precision);
  opts.threads = request.threads;
  opts.predecessors = request.predecessors;
  if (request.sources) opts.sources = *request.sources;
  if (request.targets) opts.targets = *request.targets;
  opts.cutoff = request.limit;  // the searches stop past it (the sinks drop the rest)
  if (request.dtype != "float64" && request.dtype != "float32" && request.dtype != "int32")
    throw apsp::UsageError("unknown dtype '" + request.dtype + "' (expected float64, float32 or int32)", "dtype");
  return opts;
}

// The graph with one more vertex, n, and a zero-weight edge from it to each
// of `targets`: a search from n finds, for every vertex, the nearest of the
// targets (scipy's dijkstra min_only).
InputGraph with_source_vertex(const InputGraph& input, const std::vector<vertex_t>& targets) {
  return std::visit(
      [&](const auto& original) {
        using G = std::decay_t<decltype(original)>;
        const std::int64_t n = original.n;
        if (n >= std::numeric_limits<vertex_t>::max()) throw apsp::InputError("no room for one more vertex");
        G g;
        g.n = n + 1;
        g.edges = original.edges;
        for (const vertex_t t : targets) {
          if (t < 0 || t >= n)
            throw apsp::UsageError("source " + std::to_string(t) + " is outside the graph's vertices 0.." +
                                       std::to_string(n - 1),
                                   "sources");
          g.edges.push_back({static_cast<vertex_t>(n), t, 0});
        }
        return normalized(std::move(g));
      },
      input.graph());
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Calls f, without the GIL (called with it held), with what a solve of
// `input` reads: the dense view while the input's edge list is unbuilt
// (apsp::solve(DenseView) scans it once, then reads it in place or builds
// the edges itself), else the edge list (a Graph or a GraphF64).
template <class F>
void with_solve_input(const InputGraph& input, F&& f) {
  if (const apsp::DenseView* view = input.view()) {
    nb::gil_scoped_release unlocked;
    f(*view);
    return;
  }
  const InputGraph::Edges& edges = input.graph();
  nb::gil_scoped_release unlocked;
  std::visit(f, edges);
}

// The library's options for `request` with its progress callback: at the
// solver's first report, then every ~100 ms of the solve and at its end,
// under the GIL: Ctrl-C and the caller's callback. A Python error there stops
// the solve (apsp::Cancelled); run() turns that back into the Python error
// once the solver has unwound. The first report is never held back, so a
// caller sees a fraction below 1 from any solver that reports one, however
// fast the solve.
class InterruptibleSolve {
 public:
  explicit InterruptibleSolve(const SolveRequest& request) : opts(options_of(request)) {
    const bool has_callback = request.progress.is_valid() && !request.progress.is_none();
    opts.progress = [this, has_callback, &request](double fraction) {
      const Clock::time_point now = Clock::now();
      if (fraction < 1.0 && last_check_ && now - *last_check_ < std::chrono::milliseconds(100)) return;
      last_check_ = now;
      nb::gil_scoped_acquire locked;
      try {
        if (PyErr_CheckSignals() != 0) throw nb::python_error();
        if (has_callback) request.progress(fraction);
      } catch (nb::python_error& e) {
        stopped_by_.emplace(std::move(e));
        throw apsp::Cancelled();
      }
    };
  }
  // Runs f() (which calls apsp::solve with `opts`), then raises a Ctrl-C
  // that came after the solver's last report: this call's too, rather than
  // whatever Python runs next (or never, under a caller that runs no
  // bytecode after the call).
  template <class F>
  void run(F&& f) {
    try {
      f();
    } catch (const apsp::Cancelled&) {
      if (stopped_by_) stopped_by_->restore();
      throw nb::python_error();
    }
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  }
  apsp::SolveOptions opts;

 private:
  std::optional<nb::python_error> stopped_by_;
  std::optional<Clock::time_point> last_check_;
};

// The info dict of a solve (apsp.last_solve_info()).
nb::dict info_of(const apsp::SolveSummary& result, const apsp::SolveOptions& opts, double solve_seconds) {
  nb::dict info;
  info["algorithm"] = result.algorithm;
  info["backend"] = std::string(apsp::to_string(result.backend));
  info["precision"] = std::string(apsp::to_string(result.precision));
  info["weights"] = std::string(apsp::to_string(result.weights));
  info["threads"] = opts.threads > 0 ? opts.threads : omp_get_max_threads();
  info["note"] = result.note;
  info["solve_seconds"] = solve_seconds;
  nb::dict stages;
  for (const apsp::Stage& s : result.times.stages) stages[s.name.c_str()] = s.seconds;
  info["stages"] = stages;
  return info;
}

nb::tuple solve(const InputGraph& input, const SolveRequest& request) {
  InterruptibleSolve interruptible(request);
  const apsp::SolveOptions& opts = interruptible.opts;

  // Every solve hands its rows to a ResultSink in the dtype asked for (an
  // int32 sink refuses real distances as it begins), the GPU's too.
  const auto n = static_cast<std::size_t>(input.n());
  const std::size_t rows = opts.sources.empty() ? n : opts.sources.size();
  const std::size_t columns = opts.targets.empty() ? n : opts.targets.size();
  apsp::SolveSummary summary;
  double solve_seconds = 0;  // wall time of apsp::solve, the sink's conversion included (bench/python_bench.py)
  nb::object dist, pred;
  const auto run = [&](auto& sink) {
    interruptible.run([&] {
      with_solve_input(input, [&](const auto& g) {
        const Clock::time_point start = Clock::now();
        summary = apsp::solve(g, opts, sink);
        solve_seconds = seconds_since(start);
      });
    });
    if constexpr (std::is_same<std::decay_t<decltype(sink)>, apsp::SparseSink>::value) {
      apsp::SparseDistances& kept = sink.result();
      dist = nb::make_tuple(to_numpy(std::move(kept.row_start)), to_numpy(std::move(kept.column)),
                            to_numpy(kept.distances()));  // float64 for Python, as scipy's
      pred = nb::none();
    } else {
      dist = nb::cast(owning_array(sink.take_distances(), rows, columns));
      pred = request.predecessors ? nb::cast(owning_array(sink.take_predecessors(), rows, columns)) : nb::none();
    }
  };
  if (request.sparse) {
    apsp::SparseSink sink(apsp::SparseKeep{request.limit, request.nearest});
    run(sink);
  } else if (request.dtype == "int32") {
    ResultSink<dist_t> sink(apsp::kInf, request.limit);
    run(sink);
  } else if (request.dtype == "float32") {
    ResultSink<float> sink(std::numeric_limits<float>::infinity(), request.limit);
    run(sink);
  } else {
    ResultSink<double> sink(std::numeric_limits<double>::infinity(), request.limit);
    run(sink);
  }
  const nb::dict info = info_of(summary, opts, solve_seconds);
  return nb::make_tuple(dist, pred, info);
}

// A solve written to files (apsp.solve_to_file): the distances to `path`,
// the predecessors to `predecessors_path` when given, each in the format of
// its extension (.npy, .bin) and in the solve's own type, through a
// FileSink. `resumable` (the CLI's --checkpoint): the rows go to partial files
// with a journal that outlive a killed process, and a dense solver saves a
// round checkpoint every `checkpoint_every` seconds; `resume` (--resume):
// continues what a killed run of the same solve left (a journal of another
// solve is a UsageError of option "resume"). Returns the info dict.
nb::dict solve_to_file(const InputGraph& input, const SolveRequest& request, const std::string& path,
                       const std::optional<std::string>& predecessors_path, bool resumable, bool resume,
                       std::optional<double> checkpoint_every) {
  InterruptibleSolve interruptible(request);
  apsp::SolveOptions& opts = interruptible.opts;
  opts.predecessors = predecessors_path.has_value();
  if (checkpoint_every && !(*checkpoint_every > 0))
    throw apsp::UsageError("the checkpoint interval must be a positive number of seconds", "checkpoint_every");
  apsp::FileSink files(apsp::MatrixFileTarget{path, apsp::io::Format::automatic},
                       apsp::MatrixFileTarget{predecessors_path.value_or(""), apsp::io::Format::automatic});
  if (resumable || resume)
    files.keep_partial(resume, checkpoint_every.value_or(apsp::FileSink::kDefaultCheckpointSeconds));
  apsp::SolveSummary summary;
  double solve_seconds = 0;
  interruptible.run([&] {
    with_solve_input(input, [&](const auto& g) {
      const Clock::time_point start = Clock::now();
      summary = apsp::solve(g, opts, files);
      solve_seconds = seconds_since(start);
    });
  });
  return info_of(summary, opts, solve_seconds);
}

// The benchmark's baseline (bench/python_bench.py): the wall seconds of the
// plain call a C++ user makes for the same input and options, into the
// library's own host matrix (int32 distances for integer weights):
// apsp::solve(graph, opts) for an edge list, apsp::solve(view, opts,
// HostMatrixSink) for a dense view. Without the GIL and without a progress
// callback (so Ctrl-C waits for the end); the result is freed after the
// clock stops. request.dtype and request.limit are the binding's and play
// no part.
double cxx_solve_seconds(const InputGraph& input, const SolveRequest& request) {
  const apsp::SolveOptions opts = options_of(request);
  double seconds = 0;
  with_solve_input(input, [&](const auto& g) {
    const Clock::time_point start = Clock::now();
    if constexpr (std::is_same<std::decay_t<decltype(g)>, apsp::DenseView>::value) {
      apsp::HostMatrixSink sink;
      apsp::solve(g, opts, sink);
      seconds = seconds_since(start);
    } else {
      const auto result = apsp::solve(g, opts);
      seconds = seconds_since(start);
    }
  });
  return seconds;
}

// The CSR arrays of a normalized graph, as numpy arrays that own them:
// (n, indptr int64, indices int32, weights int32 or float64).
nb::tuple csr_arrays(const InputGraph& input) {
  auto own = [](auto&& v) {
    using V = std::decay_t<decltype(v)>;
    auto* owner = new V(std::move(v));
    nb::capsule free_when_done(owner, [](void* p) noexcept { delete static_cast<V*>(p); });
    return nb::cast(
        nb::ndarray<nb::numpy, typename V::value_type, nb::ndim<1>>(owner->data(), {owner->size()}, free_when_done));
  };
  return std::visit(
      [&](const auto& g) {
        decltype(apsp::to_csr(g)) csr;
        {
          nb::gil_scoped_release unlocked;
          csr = apsp::to_csr(g);
        }
        return nb::make_tuple(g.n, own(std::move(csr.row_start)), own(std::move(csr.col)), own(std::move(csr.weight)));
      },
      input.graph());
}

// A 2-d array of any numeric type as n x n values of D, with D's
// unreachable for +inf; the first entry D cannot hold exactly, or nothing.
// Into int32 distances a value must be an integer with |v| <= kInf (kInf is
// unreachable), compared in the array's own type: an int64 2**32 + 1 is not
// read as 1.
template <class D>
std::optional<std::string> matrix_of(const AnyArray& a, std::int64_t n, std::vector<D>& out) {
  std::optional<std::string> problem;
  out.resize(static_cast<std::size_t>(n * n));
  visit_elements(a, "dist", [&](auto zero) {
    using T = decltype(zero);
    for (std::int64_t i = 0; i < n && !problem; ++i)
      for (std::int64_t j = 0; j < n && !problem; ++j) {
        const T v = at<T>(a, i, j);
        if constexpr (std::is_floating_point<T>::value) {
          if (v == std::numeric_limits<T>::infinity()) {
            out[i * n + j] = apsp::kUnreachable<D>;
            continue;
          }
        }
        if constexpr (std::is_integral<D>::value) {
          if (!apsp::holds_integer_of<std::int32_t>(v) || static_cast<std::int64_t>(v) > apsp::kInf ||
              static_cast<std::int64_t>(v) < -apsp::kInf) {
            problem = "d[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(v) +
                      " is not an integer distance of the int32 engine";
            continue;
          }
        }
        out[i * n + j] = static_cast<D>(v);
      }
  });
  return problem;
}

// The predecessor matrix as vertices (-1 for scipy's -9999); the first entry
// that is not an integer vertex number or -9999 (1.7, 2**32 + 1, -5), or nothing.
std::optional<std::string> predecessors_of(const AnyArray& a, std::int64_t n, std::vector<vertex_t>& out) {
  std::optional<std::string> problem;
  out.resize(static_cast<std::size_t>(n * n));
  visit_elements(a, "predecessors", [&](auto zero) {
    using T = decltype(zero);
    for (std::int64_t i = 0; i < n && !problem; ++i)
      for (std::int64_t j = 0; j < n && !problem; ++j) {
        const T v = at<T>(a, i, j);
        const bool vertex = apsp::holds_integer_of<vertex_t>(v) &&
                            ((static_cast<std::int64_t>(v) >= 0 && static_cast<std::int64_t>(v) < n) ||
                             static_cast<std::int64_t>(v) == kScipyNoPredecessor);
        if (!vertex) {
          problem = "predecessors[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(v) +
                    " is neither a vertex (0.." + std::to_string(n - 1) + ") nor " +
                    std::to_string(kScipyNoPredecessor);
          continue;
        }
        const auto p = static_cast<vertex_t>(v);
        out[i * n + j] = p == kScipyNoPredecessor ? -1 : p;
      }
  });
  return problem;
}

// The first violation of the certificate, or None; `dist` is an n x n
// float (inf = unreachable) or integer (kInf = unreachable) matrix, `pred`
// (optional) uses -9999 for none.
std::optional<std::string> verify(const InputGraph& input, const AnyArray& dist, std::optional<AnyArray> pred) {
  const std::int64_t n = input.n();
  auto square = [n](const AnyArray& a) {
    return a.ndim() == 2 && static_cast<std::int64_t>(a.shape(0)) == n && static_cast<std::int64_t>(a.shape(1)) == n;
  };
  if (!square(dist)) return "the distance matrix is not " + std::to_string(n) + " x " + std::to_string(n);
  if (pred && !square(*pred)) return "the predecessor matrix is not " + std::to_string(n) + " x " + std::to_string(n);
  std::vector<vertex_t> p;
  if (pred) {
    if (auto problem = predecessors_of(*pred, n, p)) return problem;
  }
  return std::visit(
      [&](const auto& g) -> std::optional<std::string> {
        using D = std::decay_t<decltype(g.edges[0].w)>;
        std::vector<D> d;
        if (auto problem = matrix_of(dist, n, d)) return problem;
        nb::gil_scoped_release unlocked;
        apsp::VerifyReport report = apsp::verify(g, apsp::Span<const D>(d.data(), d.size()));
        if (report.ok && pred) report = apsp::verify_predecessors(g, apsp::Span<const D>(d.data(), d.size()), p);
        if (report.ok) return std::nullopt;
        return report.first_violation;
      },
      input.graph());
}

// Translates the library's errors into the Python exceptions the layer
// documents (apsp._errors holds the classes that need scipy's bases).
void translate_errors(const std::exception_ptr& p, void*) {
  auto raise_from = [](const char* name, const char* message) {
    nb::object cls = nb::module_::import_("apsp._errors").attr(name);
    PyErr_SetString(cls.ptr(), message);
  };
  try {
    std::rethrow_exception(p);
  } catch (const apsp::NegativeCycleError& e) {
    raise_from("NegativeCycleError", e.what());
  } catch (const apsp::UsageError& e) {
    if (e.option() == "resume") return raise_from("ResumeError", e.what());
    // The library names its own parameter; the layer's keyword for it.
    std::string option = e.option() == "sources" ? "indices" : e.option();
    const std::string message = option.empty() ? e.what() : option + ": " + e.what();
    PyErr_SetString(PyExc_ValueError, message.c_str());
  } catch (const apsp::OverflowError& e) {
    PyErr_SetString(PyExc_OverflowError, e.what());
  } catch (const apsp::InputError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const apsp::VerifyError& e) {
    raise_from("VerifyError", e.what());
  } catch (const ResultMemoryError& e) {
    PyErr_SetString(PyExc_MemoryError, e.what());
  } catch (const apsp::ResourceError& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const apsp::Cancelled&) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  } catch (const apsp::Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

}  // namespace

NB_MODULE(_apsp, m) {
  m.doc() = "apsp's C++ engine (internal; use the functions of the apsp package)";
  nb::register_exception_translator(translate_errors);
  m.attr("INF") = apsp::kInf;

  nb::class_<InputGraph>(m, "Graph", "A normalized graph: edges sorted, duplicates at their lightest, no self-loops")
      .def_prop_ro("n", &InputGraph::n)
      .def_prop_ro(
          "m", [](const InputGraph& g) { return std::visit([](const auto& x) { return x.edges.size(); }, g.graph()); })
      .def_prop_ro("weights",
                   [](const InputGraph& g) {
                     return std::string(std::holds_alternative<Graph>(g.graph()) ? "int32" : "float64");
                   })
      .def_prop_ro("min_weight",
                   [](const InputGraph& g) {
                     return std::visit([](const auto& x) { return static_cast<double>(apsp::weight_stats(x).min_w); },
                                       g.graph());
                   })
      .def("with_source_vertex", &with_source_vertex, "targets"_a)
      .def("csr", &csr_arrays, "(n, indptr int64, indices int32, weights int32 or float64) of the graph, owned arrays");

  m.def("graph_from_dense", &graph_from_dense, "csgraph"_a, "directed"_a, "unweighted"_a);
  m.def(
      "graph_from_coo",
      [](std::int64_t n, const AnyArray& row, const AnyArray& col, const AnyArray& data, bool directed,
         bool unweighted) {
        const apsp::ArrayView from = array_view(row, "row", true), to = array_view(col, "col", true);
        const apsp::ArrayView weights = array_view(data, "data", false);
        nb::gil_scoped_release unlocked;
        return input_of(apsp::graph_from_coo(n, from, to, weights, directed, unweighted));
      },
      "n"_a, "row"_a, "col"_a, "data"_a, "directed"_a, "unweighted"_a);
  m.def(
      "graph_from_csr",
      [](std::int64_t n, const AnyArray& indptr, const AnyArray& indices, const AnyArray& data, bool directed,
         bool unweighted, bool transposed) {
        const apsp::ArrayView starts = array_view(indptr, "indptr", true);
        const apsp::ArrayView columns = array_view(indices, "indices", true);
        const apsp::ArrayView weights = array_view(data, "data", false);
        nb::gil_scoped_release unlocked;
        return input_of(apsp::graph_from_csr(n, starts, columns, weights, directed, unweighted, transposed));
      },
      "n"_a, "indptr"_a, "indices"_a, "data"_a, "directed"_a, "unweighted"_a, "transposed"_a);
  m.def(
      "read_graph",
      [](const std::string& path, std::optional<std::string> format, bool undirected,
         std::optional<std::int64_t> no_edge) {
        apsp::io::ReadOptions ro;
        if (format) ro.format = apsp::io::parse_format(*format);
        ro.undirected = undirected;
        ro.no_edge_value = no_edge;
        apsp::AnyGraph g;
        {
          nb::gil_scoped_release unlocked;
          g = apsp::io::read_any_graph(path, ro);
          if (std::holds_alternative<apsp::GraphF32>(g))
            g = apsp::convert_weights(std::move(g), apsp::WeightType::float64);
        }
        if (auto* ints = std::get_if<Graph>(&g)) return normalized(std::move(*ints));
        return normalized(std::move(std::get<apsp::GraphF64>(g)));
      },
      "path"_a, "format"_a = nb::none(), "undirected"_a = false, "no_edge"_a = nb::none());

  nb::class_<SolveRequest>(m, "SolveRequest")
      .def(nb::init<>())
      .def_rw("algorithm", &SolveRequest::algorithm)
      .def_rw("backend", &SolveRequest::backend)
      .def_rw("device", &SolveRequest::device)
      .def_rw("precision", &SolveRequest::precision)
      .def_rw("threads", &SolveRequest::threads)
      .def_rw("predecessors", &SolveRequest::predecessors)
      .def_rw("sources", &SolveRequest::sources)
      .def_rw("targets", &SolveRequest::targets)
      .def_rw("progress", &SolveRequest::progress)
      .def_rw("dtype", &SolveRequest::dtype)
      .def_rw("limit", &SolveRequest::limit)
      .def_rw("sparse", &SolveRequest::sparse)
      .def_rw("nearest", &SolveRequest::nearest);
  m.def("solve", &solve, "graph"_a, "request"_a);
  m.def("solve_to_file", &solve_to_file, "graph"_a, "request"_a, "path"_a, "predecessors_path"_a = nb::none(),
        "resumable"_a = false, "resume"_a = false, "checkpoint_every"_a = nb::none(),
        "The solve written to files (apsp.solve_to_file); returns the info dict");
  m.def(
      "_cxx_solve_seconds", &cxx_solve_seconds, "graph"_a, "request"_a,
      "Benchmark only (private): wall seconds of the plain C++ solve of the same input into the library's host matrix");
  m.def(
      "choose_backend",
      [](const InputGraph& g, const SolveRequest& request) {
        const apsp::SolveOptions opts = options_of(request);
        if (const apsp::DenseView* view = g.view())
          return std::string(apsp::to_string(apsp::choose_backend(*view, opts)));
        return std::string(
            apsp::to_string(std::visit([&](const auto& x) { return apsp::choose_backend(x, opts); }, g.graph())));
      },
      "graph"_a, "request"_a);
  m.def("verify", &verify, "graph"_a, "dist"_a, "pred"_a = nb::none());
  m.def(
      "algorithms", [](const std::string& backend) { return apsp::list_algorithms(apsp::parse_backend(backend)); },
      "backend"_a = "auto");
  m.def(
      "registry",
      [] {
        nb::list entries;
        for (const apsp::AlgorithmInfo& a : apsp::algorithm_registry()) {
          nb::list weights, widths;
          for (const apsp::WeightType t : apsp::weight_types(a)) weights.append(apsp::to_string(t));
          for (const apsp::Precision p : apsp::precisions(a)) widths.append(apsp::to_string(p));
          nb::dict entry;
          entry["name"] = a.name;
          entry["backend"] = apsp::to_string(a.backend);
          entry["work"] = apsp::to_string(a.work);
          entry["role"] = apsp::to_string(a.role);
          entry["weights"] = weights;
          entry["precisions"] = widths;
          entry["predecessors"] = a.takes_predecessors;
          entry["block"] = a.takes_block;
          entry["distributable"] = a.distributable;
          entry["available"] = a.available;
          entries.append(entry);
        }
        return entries;
      },
      "The algorithm registry (apsp/registry.hpp), CPU entries first: one dict per algorithm with name, backend "
      "('cpu', 'cuda'), work ('n^3', 'n^3 log n', 'per source', 'separators'), role ('production', 'teaching'), "
      "weights and precisions (lists of type names), predecessors, block, distributable and available (bools)");
  m.def("cuda_compiled_in", &apsp::cuda::compiled_in);
  m.def("cuda_device_count", [] { return apsp::cuda::devices().size(); });
}
