// The certificates of a GPU result, in one place: the range certificate (the
// width an algorithm computed in held every distance; the rule is in
// range_rule.hpp) for int32, int16 and tagged matrices, and the predecessor
// tree certificate. Host-only; each call synchronizes the stream.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/range_rule.hpp"

namespace apsp::cuda {

class RangeCertificate {
 public:
  // `edges`: the non-negative edges the algorithms run on, sorted by (src,
  // dst), over n vertices, largest weight max_weight. Kept by reference: the
  // owner (DeviceInstance) keeps them alive. They go to the device only when
  // the quick check cannot decide.
  RangeCertificate(const std::vector<Edge>& edges, std::int64_t n, weight_t max_weight, cudaStream_t stream);

  // True when no pair of `view` is out of its width's range: every entry
  // below view.infinity is exact and every entry at it is unreachable.
  bool holds(const RangeView<std::int32_t>& view);
  bool holds(const RangeView<std::int16_t>& view);

  // The largest distance below view.infinity (INT_MIN if none): the quick
  // check's input, also what a refusal reports.
  int largest_finite(const RangeView<std::int32_t>& view);
  int largest_finite(const RangeView<std::int16_t>& view);

 private:
  template <class T>
  int largest(const RangeView<T>& view);
  template <class T>
  bool check(const RangeView<T>& view);
  const DeviceCsr& device_edges();

  const std::vector<Edge>& edges_;
  std::int64_t n_;
  weight_t max_weight_;
  cudaStream_t stream_;
  DeviceBuffer<std::int64_t> rows_;
  DeviceBuffer<vertex_t> cols_;
  DeviceCsr csr_;
  bool uploaded_ = false;
};

// The error for a result whose range certificate failed: OverflowError when
// the distances are the graph's own (no potentials: the output cannot hold
// them either), ArithmeticRangeError when they are Johnson-reweighted (the
// CPU's int64 may still solve the graph).
[[noreturn]] void throw_range_refusal(bool reweighted);

// Sources whose predecessor row is not a tree rooted at the source (a chain
// that loops, which ties on zero-weight cycles can cause in blocked
// algorithms and in predecessors read off tight edges).
std::vector<std::int64_t> rows_with_broken_predecessors(const vertex_t* pred, std::int64_t n, std::int64_t n_pad,
                                                        cudaStream_t stream);

}  // namespace apsp::cuda
