// NTHU HW3 binary: int32 n, int32 m, then m (src, dst, w) int32 triples,
// 0-based, little-endian. Result matrices: n*n int32, row-major, no header.
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "apsp/error.hpp"
#include "io/formats.hpp"

namespace apsp::io::detail {
namespace {

// The edge triples are copied straight into Edge records.
static_assert(sizeof(Edge) == 3 * sizeof(std::int32_t), "Edge must be three packed int32");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .bin formats are read on little-endian hosts only");

constexpr std::uint64_t kHeaderBytes = 2 * sizeof(std::int32_t);
constexpr std::uint64_t kEdgeBytes = sizeof(Edge);

std::int32_t int32_at(const char* bytes) {
  std::int32_t value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

}  // namespace

Graph read_nthu_bin(const InputFile& file) {
  const std::uint64_t size = file.size();
  if (size < kHeaderBytes)
    throw InputError("truncated header: expected " + std::to_string(kHeaderBytes) + " bytes (n, m), the file has " +
                         std::to_string(size),
                     file.at_byte(size));
  const std::int32_t n = int32_at(file.bytes().data());
  const std::int32_t m = int32_at(file.bytes().data() + sizeof(std::int32_t));
  if (n < 0) throw InputError("negative vertex count n = " + std::to_string(n), file.at_byte(0));
  if (m < 0) throw InputError("negative edge count m = " + std::to_string(m), file.at_byte(sizeof(std::int32_t)));
  const std::uint64_t expected = kHeaderBytes + kEdgeBytes * static_cast<std::uint64_t>(m);
  if (size < expected)
    throw InputError("truncated: m = " + std::to_string(m) + " edges need " + std::to_string(expected) +
                         " bytes, the file has " + std::to_string(size) + " (edge " +
                         std::to_string((size - kHeaderBytes) / kEdgeBytes) + " is the first incomplete one)",
                     file.at_byte(size));
  if (size > expected)
    throw InputError(std::to_string(size - expected) + " trailing bytes after the m = " + std::to_string(m) +
                         " edges (expected " + std::to_string(expected) + " bytes in all)",
                     file.at_byte(expected));
  Graph g;
  g.n = n;
  try {
    g.edges.resize(static_cast<std::size_t>(m));
  } catch (const std::bad_alloc&) {
    throw ResourceError("cannot allocate " + std::to_string(kEdgeBytes * static_cast<std::uint64_t>(m)) +
                        " bytes for the " + std::to_string(m) + " edges of " + file.path());
  }
  if (m > 0)
    std::memcpy(g.edges.data(), file.bytes().data() + kHeaderBytes, kEdgeBytes * static_cast<std::uint64_t>(m));
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const Edge& x = g.edges[e];
    const bool src_ok = x.src >= 0 && x.src < n;
    if (src_ok && x.dst >= 0 && x.dst < n) continue;
    const std::uint64_t offset = kHeaderBytes + kEdgeBytes * e + (src_ok ? sizeof(std::int32_t) : 0);
    throw InputError("edge " + std::to_string(e) + " (" + std::to_string(x.src) + " -> " + std::to_string(x.dst) +
                         ") has a vertex outside 0.." + std::to_string(n - 1),
                     file.at_byte(offset));
  }
  return g;
}

void write_nthu_bin(const std::string& path, const Graph& g) {
  check_graph_for_output(g, path);
  if (g.edges.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw UsageError("cannot write " + path + ": " + std::to_string(g.edges.size()) +
                     " edges do not fit the int32 edge count of the .bin format");
  const std::int32_t header[2] = {static_cast<std::int32_t>(g.n), static_cast<std::int32_t>(g.edges.size())};
  OutputFile out(path);
  out.write(header, sizeof header);
  out.write(g.edges.data(), g.edges.size() * sizeof(Edge));
  out.close();
}

std::int64_t bin_matrix_side(const InputFile& file, std::size_t value_bytes, const char* value_name) {
  const std::uint64_t size = file.size();
  if (size % value_bytes != 0)
    throw InputError("size " + std::to_string(size) + " bytes is not a whole number of " + value_name + " values",
                     file.at_byte(size - size % value_bytes));
  const std::uint64_t count = size / value_bytes;
  auto side = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(count)));
  while (side * side > count) --side;
  while ((side + 1) * (side + 1) <= count) ++side;
  if (side * side != count)
    throw InputError(std::to_string(count) + " " + value_name + " values do not form a square matrix",
                     file.at_byte(size));
  return static_cast<std::int64_t>(side);
}

std::vector<std::int32_t> read_bin_matrix(const InputFile& file, std::int64_t& n) {
  const std::int64_t side = bin_matrix_side(file);
  const std::uint64_t size = file.size();
  std::vector<std::int32_t> m;
  try {
    m.resize(size / sizeof(std::int32_t));
  } catch (const std::bad_alloc&) {
    throw ResourceError("cannot allocate " + std::to_string(size) + " bytes for the matrix in " + file.path());
  }
  if (size > 0) std::memcpy(m.data(), file.bytes().data(), size);
  n = side;
  return m;
}

}  // namespace apsp::io::detail
