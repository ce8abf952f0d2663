// Result sinks: where a solver's finished rows go.
//
// A solver never builds the whole n x n matrix in one host vector on its own
// account. It hands finished row blocks to a Sink, which stores them (a host
// matrix), writes them (a file at row offsets), or drops them (a summary only).
// Multi-GPU and distributed solvers hand each rank's rows to that rank's sink;
// rows of one plane arrive in any order, from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace apsp {

// Which matrix a row block belongs to.
enum class Plane { distances, predecessors };

// The element type of a row block's data. Distances are int32 (kInf =
// unreachable) today; the real-valued weight types add float32 and float64.
// Predecessors are always int32 (vertex_t, -1 = none). int16 is an output
// type only (ConvertingSink's --output-type int16; kOutputInf16 = unreachable): no
// solver produces it, and only the file sinks take it.
enum class Element { int32, float32, float64, int16 };

// int16 results (an output type) mark an unreachable pair with this value;
// finite distances are below it in magnitude.
constexpr std::int16_t kOutputInf16 = 32767;

std::size_t element_bytes(Element e);
const char* to_string(Element e);

// Rows [first_row, first_row + rows) of one plane of the matrix, in host
// memory: row r starts at data + r * row_stride elements and holds the
// layout's column_count() valid elements (n unless some targets were chosen;
// row_stride >= that; padding after it is ignored). The memory is the
// producer's and is valid only during the put() call.
struct RowBlock {
  Plane plane = Plane::distances;
  Element element = Element::int32;
  std::int64_t first_row = 0;
  std::int64_t rows = 0;
  std::int64_t row_stride = 0;
  const void* data = nullptr;
};

// What a sink is told before the first row arrives.
struct SinkLayout {
  std::int64_t n = 0;  // matrix order
  Element distance_element = Element::int32;
  bool predecessors = false;  // a predecessors plane will come too
  // Rows of each plane, of n values each: -1 = n (the square n x n result); a
  // solve of some sources only (SolveOptions::sources) announces their count.
  std::int64_t rows = -1;
  // Values in each row: -1 = n; a solve of some targets only
  // (SolveOptions::targets) announces their count.
  std::int64_t columns = -1;
  std::int64_t row_count() const { return rows < 0 ? n : rows; }
  std::int64_t column_count() const { return columns < 0 ? n : columns; }
  // Identifies the solve (its normalized graph, algorithm, weights,
  // precision, predecessors and sources) for a sink that keeps partial rows
  // (Sink::keeps_partial): 0 from producers that do not say.
  std::uint64_t solve_key = 0;
};

// What a sink that keeps partial rows found of an interrupted solve with the
// same SinkLayout::solve_key (Sink::resumed).
struct SinkResume {
  // row_count() flags, true for a row already complete in every announced
  // plane; empty when nothing was kept. The producer must not put these rows.
  std::vector<bool> present;
  // One line for the summary when the kept rows could not all be used
  // (missing, damaged); empty otherwise.
  std::string note;
};

// A dense solver's working state at a round boundary, for RoundCheckpoints.
// The matrices are the solver's own (fw-blocked's padded tiles, say): bytes
// to the checkpoint, which `layout` names, so that a checkpoint is restored
// only into the layout that wrote it.
struct RoundState {
  std::string layout;       // the solver, its element types and matrix layout
  std::int64_t round = 0;   // rounds done
  std::int64_t rounds = 0;  // of this many
  struct Buffer {
    void* data;
    std::size_t bytes;
  };
  std::vector<Buffer> planes;  // the working matrices (distances, then predecessors)
};

// Round checkpoints of a dense solver (the CPU's fw-blocked and fw-ooc, the
// GPU's fw, float32 fw and fw-ooc): a solver that finds one on its sink
// (Sink::round_checkpoints) asks restore() before its first round and calls
// round_done() after every round; the implementation decides when to save
// (its interval).
class RoundCheckpoints {
 public:
  virtual ~RoundCheckpoints() = default;
  // Before the first round: fills state.planes from the last valid
  // checkpoint of this layout and returns its round, or returns 0; after a
  // 0 the planes may hold anything, and the solver initializes them.
  virtual std::int64_t restore(const RoundState& state) = 0;
  // After each round (state.round rounds done, state.planes their result).
  virtual void round_done(const RoundState& state) = 0;
  // Whether round_done() after `round` of `rounds` would save: a solver
  // whose planes must be fetched first (the GPU's, from device memory) asks
  // before fetching them, then calls round_done() with them if true (from
  // any one thread at a time). The default: always.
  virtual bool due(std::int64_t round, std::int64_t rounds) const {
    (void)round;
    (void)rounds;
    return true;
  }
  // Whether restore(state) would find a checkpoint of state's layout, rounds
  // and plane sizes (its header only; state.planes' data are not read): a
  // solver that tries one layout before another (the GPU's int16 attempt
  // before int32) skips to the one held. The default: never.
  virtual bool holds(const RoundState& state) const {
    (void)state;
    return false;
  }
  // One line for the summary about what restore() found; empty if nothing to say.
  virtual std::string note() const { return {}; }
};

class Sink {
 public:
  virtual ~Sink() = default;

  // Called once, before any put(). Checks that the result can be held or
  // written (memory, disk space) and throws ResourceError naming the sizes
  // before any heavy work starts; may allocate or create files.
  virtual void begin(const SinkLayout& layout) = 0;

  // Thread-safe: blocks of a plane arrive in any order and from any thread;
  // every row of every announced plane arrives exactly once before commit().
  virtual void put(const RowBlock& block) = 0;

  // Called once after the last put(): makes the result visible (a file sink
  // renames its temporary file over the target). Throws on a late I/O error.
  virtual void commit() = 0;

  // Called instead of commit() when the solve failed: drops partial output
  // (a file sink removes its temporary file; an existing target is untouched).
  virtual void discard() noexcept {}

  // Optional zero-copy path: a sink that stores rows in host memory may expose
  // where row `row` of `plane` lives (column_count() elements of the layout's
  // type, rows contiguous with stride column_count()), so a producer can write there directly and then
  // call put() with that same pointer, which the sink recognizes and skips.
  // nullptr (the default) means "no such buffer; always copy through put()".
  virtual void* row_address(Plane plane, std::int64_t row) {
    (void)plane;
    (void)row;
    return nullptr;
  }

  // Optional: called at most once, after begin() and before the first put(),
  // by a producer with idle host time before its rows come (the GPU backend
  // calls it on a side thread while the device computes), never while
  // another call on this sink runs. A sink that stores rows in host memory
  // faults its pages in here (commit_pages, apsp/matrix.hpp), so the rows'
  // arrival does not wait on first-touch page faults. The default does
  // nothing; a sink must work the same whether or not it is called.
  virtual void prepare() {}

  // Optional, for a sink that keeps the rows of a solve that is killed, for
  // a later run to resume (FileSink::keep_partial): true asks the producer
  // to fill SinkLayout::solve_key. After begin(), resumed() says which rows
  // an interrupted run of the same solve left; the producer puts only the
  // others. The defaults keep nothing.
  virtual bool keeps_partial() const { return false; }
  virtual SinkResume resumed() const { return {}; }
  // Optional, with keeps_partial(): where a dense solver keeps its round
  // checkpoints (valid from begin() to commit() or discard()); nullptr: none.
  virtual RoundCheckpoints* round_checkpoints() { return nullptr; }
};

}  // namespace apsp
