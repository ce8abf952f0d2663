// DIMACS shortest-path format (9th challenge): "c" comment lines, one
// "p sp n m" line, then m arc lines "a u v w" with 1-based vertices.
#include "apsp/error.hpp"
#include "io/formats.hpp"
#include "io/text.hpp"

namespace apsp::io::detail {
namespace {

// The shortest arc line, "a 1 1 1\n".
constexpr std::uint64_t kShortestArcLine = 8;

}  // namespace

void read_dimacs(const InputFile& file, GraphBuilder& g) {
  TextCursor text(file);
  std::int64_t declared_arcs = 0;
  std::int64_t problem_line = 0;
  std::int64_t arcs = 0;
  while (text.next_line()) {
    Tokens tokens(text.line());
    const auto kind = tokens.next();
    if (!kind || kind->front() == 'c') continue;
    if (*kind == "p") {
      if (problem_line != 0)
        throw InputError("second 'p' line (the first is line " + std::to_string(problem_line) + ")", text.here());
      const std::string_view problem = text.require(tokens, "problem type after 'p'");
      if (problem != "sp") throw InputError("problem type " + quoted(problem) + " is not 'sp'", text.here());
      g.n = checked_vertex_count(parse_integer(text.require(tokens, "vertex count"), "vertex count", text.here()),
                                 text.here());
      declared_arcs = parse_integer(text.require(tokens, "arc count"), "arc count", text.here());
      if (declared_arcs < 0) throw InputError("negative arc count " + std::to_string(declared_arcs), text.here());
      text.require_end(tokens);
      problem_line = text.line_number();
      reserve_declared_edges(g, declared_arcs, file.size(), kShortestArcLine, file.path());
    } else if (*kind == "a") {
      if (problem_line == 0) throw InputError("arc before the 'p sp n m' line", text.here());
      if (arcs == declared_arcs)
        throw InputError("more arcs than the m = " + std::to_string(declared_arcs) + " declared on line " +
                             std::to_string(problem_line),
                         text.here());
      const auto tail = parse_integer(text.require(tokens, "tail vertex"), "tail vertex", text.here());
      const auto head = parse_integer(text.require(tokens, "head vertex"), "head vertex", text.here());
      const std::string_view weight = text.require(tokens, "weight");
      text.require_end(tokens);
      add_weight_token(g, checked_vertex(tail, 1, g.n, text.here()), checked_vertex(head, 1, g.n, text.here()), weight,
                       text.here());
      ++arcs;
    } else {
      throw InputError("unknown line type " + quoted(*kind) + " (expected c, p or a)", text.here());
    }
  }
  if (problem_line == 0) throw InputError("missing 'p sp n m' line", text.at_last_line());
  if (arcs != declared_arcs)
    throw InputError("found " + std::to_string(arcs) + " arcs but line " + std::to_string(problem_line) +
                         " declares m = " + std::to_string(declared_arcs),
                     text.at_last_line());
}

namespace {

template <class W>
void write_dimacs_typed(const std::string& path, const BasicGraph<W>& g) {
  write_edge_file(
      path, g, "c written by apsp\np sp " + std::to_string(g.n) + " " + std::to_string(g.edges.size()) + "\n", "a ", 1);
}

}  // namespace

void write_dimacs(const std::string& path, const Graph& g) { write_dimacs_typed(path, g); }
void write_dimacs(const std::string& path, const GraphF64& g) { write_dimacs_typed(path, g); }

}  // namespace apsp::io::detail
