// libFuzzer harness for one input reader, chosen at compile time by
// APSP_FUZZ_FORMAT and APSP_FUZZ_MATRIX (see tests/fuzz/CMakeLists.txt): a
// graph format through the library's own read_graph dispatch (any weight
// type: integer and real-valued weights), or a
// distance-matrix format through read_matrix. The bytes are read in place (no temporary file), so that
// AddressSanitizer sees the exact extent of the input.
//
// A finding is anything but a clean result or an apsp::Error: a crash, a
// sanitizer report, another exception type, or a result that breaks the
// readers' contract (vertices outside 0..n-1, a matrix that is not n x n).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "io/files.hpp"
#include "io/formats.hpp"

namespace {

// The reader under test: APSP_FUZZ_FORMAT names an io::Format enumerator;
// APSP_FUZZ_MATRIX is 1 for read_matrix (a distance matrix), 0 for read_graph.
constexpr apsp::io::Format kFormat = apsp::io::Format::APSP_FUZZ_FORMAT;
constexpr bool kMatrix = APSP_FUZZ_MATRIX != 0;

[[noreturn]] void contract_broken(const char* what) {
  std::fprintf(stderr, "fuzz_reader: %s\n", what);
  std::abort();
}

// Any weight type: real weights must be numbers (no NaN, no -inf; +inf is
// "no edge" and never kept), and a graph that is not int32 must carry the
// error read_graph refuses it with.
void check_graph(const apsp::io::detail::ReadGraph& read) {
  std::visit(
      [&](const auto& g) {
        using W = typename std::decay_t<decltype(g)>::weight_type;
        if (g.n < 0 || g.n > std::numeric_limits<apsp::vertex_t>::max())
          contract_broken("vertex count outside 0..int32 max");
        for (const auto& e : g.edges) {
          if (e.src < 0 || e.src >= g.n || e.dst < 0 || e.dst >= g.n)
            contract_broken("edge with a vertex outside 0..n-1");
          if constexpr (std::is_floating_point<W>::value)
            if (!std::isfinite(e.w)) contract_broken("real weight that is not finite");
        }
        if (std::is_floating_point<W>::value != read.not_int32.has_value())
          contract_broken("a real-valued graph without read_graph's refusal, or an int32 one with it");
      },
      read.graph);
}

void check_matrix(const std::vector<std::int32_t>& m, std::int64_t n) {
  if (n < 0 || static_cast<std::uint64_t>(m.size()) != static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n))
    contract_broken("matrix is not n x n");
}

// Runs `read`; an apsp::Error is the expected outcome for bad input, so only
// what escapes (another exception type) or aborts is a finding.
template <class Read>
void expect_result_or_apsp_error(Read read) {
  try {
    read();
  } catch (const apsp::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const apsp::io::detail::InputFile file("fuzz-input", std::string_view(reinterpret_cast<const char*>(data), size));
  if (kMatrix) {
    expect_result_or_apsp_error([&] {
      std::int64_t n = -1;
      const std::vector<std::int32_t> m = apsp::io::detail::read_matrix_from(file, n, kFormat);
      check_matrix(m, n);
    });
    return 0;
  }
  // The defaults, then the other options' paths: an explicit no-edge value
  // (which float .npy cells also honour) and undirected (each edge both ways).
  apsp::io::ReadOptions options;
  options.format = kFormat;
  expect_result_or_apsp_error([&] { check_graph(apsp::io::detail::read_graph_from(file, options)); });
  options.no_edge_value = 0;
  options.undirected = true;
  expect_result_or_apsp_error([&] { check_graph(apsp::io::detail::read_graph_from(file, options)); });
  return 0;
}
