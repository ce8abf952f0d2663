#include "gpu_verify.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "apsp/error.hpp"
#include "core/cuda_check.hpp"
#include "core/verify_row.hpp"
#include "download.hpp"

namespace apsp::cuda {

std::vector<vertex_t> zero_weight_components(const Csr& out, bool& any_cycle) {
  const std::int64_t n = out.n;
  std::vector<std::int64_t> index(static_cast<std::size_t>(n), -1), low(static_cast<std::size_t>(n), 0);
  std::vector<char> on_stack(static_cast<std::size_t>(n), 0);
  std::vector<vertex_t> component(static_cast<std::size_t>(n), -1);
  std::vector<vertex_t> stack;
  struct Frame {
    vertex_t v;
    std::int64_t next_edge;
  };
  std::vector<Frame> frames;
  std::int64_t counter = 0;
  any_cycle = false;
  auto open = [&](vertex_t v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    on_stack[v] = 1;
    frames.push_back(Frame{v, out.row_start[v]});
  };
  for (vertex_t root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    open(root);
    while (!frames.empty()) {
      Frame& f = frames.back();
      const vertex_t v = f.v;
      std::int64_t k = f.next_edge;
      while (k < out.row_start[v + 1] && out.weight[k] != 0) ++k;
      if (k < out.row_start[v + 1]) {
        f.next_edge = k + 1;
        const vertex_t w = out.col[k];
        if (index[w] < 0)
          open(w);  // invalidates f
        else if (on_stack[w])
          low[v] = std::min(low[v], index[w]);
        continue;
      }
      frames.pop_back();
      if (low[v] == index[v]) {
        auto first = stack.end();  // v and everything above it on the stack
        do --first;
        while (*first != v);
        const vertex_t name = *std::min_element(first, stack.end());
        any_cycle = any_cycle || stack.end() - first > 1;
        for (auto x = first; x != stack.end(); ++x) {
          component[*x] = name;
          on_stack[*x] = 0;
        }
        stack.erase(first, stack.end());
      }
      if (!frames.empty()) {
        const vertex_t parent = frames.back().v;
        low[parent] = std::min(low[parent], low[v]);
      }
    }
  }
  return component;
}

DeviceVerifier::DeviceVerifier(const Graph& normalized, const std::vector<Edge>& matrix_edges, cudaStream_t stream)
    : normalized_(normalized) {
  for (const Edge& e : matrix_edges)
    if (e.w < 0)
      throw UsageError("the GPU certificate needs non-negative weights in the matrix's terms; edge " +
                       std::to_string(e.src) + "->" + std::to_string(e.dst) + " has " + std::to_string(e.w));
  Graph in_terms;
  in_terms.n = normalized.n;
  in_terms.edges = matrix_edges;
  const Csr out = to_csr(in_terms);
  const Csr in = transpose(out);  // in.col[k]: the tail of the k-th edge by head
  std::vector<vertex_t> head(in.col.size());
  for (std::int64_t v = 0; v < in.n; ++v)
    std::fill(head.begin() + in.row_start[v], head.begin() + in.row_start[v + 1], static_cast<vertex_t>(v));
  // The copies are asynchronous from pageable memory: they are staged before
  // cudaMemcpyAsync returns, so the host vectors may go.
  tail_ = upload(in.col, stream);
  head_ = upload(head, stream);
  weight_ = upload(in.weight, stream);
  edges_.tail = tail_.get();
  edges_.head = head_.get();
  edges_.weight = weight_.get();
  edges_.m = static_cast<std::int64_t>(in.col.size());
  bool any_cycle = false;
  const std::vector<vertex_t> component = zero_weight_components(out, any_cycle);
  if (any_cycle) {
    std::vector<vertex_t> mark(in.col.size());
    for (std::size_t k = 0; k < mark.size(); ++k)
      mark[k] = component[in.col[k]] == component[head[k]] ? -1 : component[head[k]];
    rep_ = upload(component, stream);
    mark_ = upload(mark, stream);
    edges_.rep = rep_.get();
    edges_.mark = mark_.get();
  }
}

void DeviceVerifier::check_matrix(const DeviceRows& matrix, const DevicePotentials& potentials) const {
  check_device_rows(matrix, "GPU verify");
  if (matrix.real()) throw UsageError("GPU verify: the device certificate checks int32 and int16 distances only");
  if (matrix.n != normalized_.n)
    throw UsageError("GPU verify: a " + std::to_string(matrix.n) + "-row matrix for a " +
                     std::to_string(normalized_.n) + "-vertex graph");
  if (!potentials.empty() && potentials.size() != matrix.n)
    throw UsageError("GPU verify: " + std::to_string(potentials.size()) + " potentials for " +
                     std::to_string(matrix.n) + " vertices");
}

std::int64_t DeviceVerifier::lowest_failing_row(const DeviceRows& matrix, const DevicePotentials& potentials,
                                                cudaStream_t stream, RowPlacement placement) const {
  check_matrix(matrix, potentials);
  return cuda::lowest_failing_row(matrix, edges_, potentials.device(), stream, placement);
}

VerifyReport DeviceVerifier::verify(const DeviceRows& matrix, const DevicePotentials& potentials, cudaStream_t stream,
                                    RowPlacement placement) const {
  VerifyReport report;
  const std::int64_t row = lowest_failing_row(matrix, potentials, stream, placement);
  if (row < 0) return report;
  const std::vector<dist_t> values = download_distance_row(matrix, potentials, row, stream);
  report.ok = false;
  report.first_violation = first_violation_in_row(normalized_, values.data(), row);
  if (report.first_violation.empty())
    throw DeviceError("GPU verify",
                      "the certificate kernel rejected row " + std::to_string(row) +
                          ", which the CPU row check accepts",
                      __FILE__, __LINE__);
  return report;
}

VerifyReport verify_on_device(const Graph& normalized, const std::vector<Edge>& matrix_edges, const DeviceRows& matrix,
                              const DevicePotentials& potentials, cudaStream_t stream) {
  return DeviceVerifier(normalized, matrix_edges, stream).verify(matrix, potentials, stream);
}

}  // namespace apsp::cuda
