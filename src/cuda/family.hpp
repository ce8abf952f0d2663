// Host helpers shared by the GPU launchers (kernels/*/NAME.cu): progress
// reporting, the compile-time predecessor switch, the one-launch-per-pivot
// driver and the second matrix of the ping-pong algorithms.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/launch.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda {

// Reports done / total of problem.progress every `stride` steps and at the
// end (the end reports 1.0 of the span). Launches are asynchronous, so the
// fraction counts work issued, unless `wait_for_work` synchronizes the
// stream before each report.
class Progress {
 public:
  static constexpr std::int64_t kPivotStride = 64;

  Progress(const GpuProblem& problem, std::int64_t total, std::int64_t stride = kPivotStride,
           bool wait_for_work = false)
      : Progress(problem.stream, problem.progress, total, stride, wait_for_work) {}
  // The same for work queued on `stream` that reports into `span`.
  Progress(cudaStream_t stream, ProgressSpan span, std::int64_t total, std::int64_t stride = kPivotStride,
           bool wait_for_work = false)
      : stream_(stream), span_(span), total_(total), stride_(stride), wait_for_work_(wait_for_work) {}

  void reached(std::int64_t done) {
    if (!span_ || total_ <= 0) return;
    if (done - reported_ < stride_ && done < total_) return;
    reported_ = done;
    if (wait_for_work_) APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    span_.report(static_cast<double>(done) / static_cast<double>(total_));
  }

 private:
  cudaStream_t stream_;
  ProgressSpan span_;
  std::int64_t total_;
  std::int64_t stride_;
  bool wait_for_work_;
  std::int64_t reported_ = 0;
};

// Calls launch(std::true_type{}) when predecessors are tracked, else
// launch(std::false_type{}), so kernels take the choice as a template flag.
template <typename Launch>
void with_pred_flag(const GpuProblem& problem, Launch&& launch) {
  if (problem.pred != nullptr)
    std::forward<Launch>(launch)(std::true_type{});
  else
    std::forward<Launch>(launch)(std::false_type{});
}

// The one-launch-per-pivot driver: step(track, k) for k = 0..n-1 (padded
// pivots are isolated and change nothing), track as in with_pred_flag.
template <typename Step>
void for_each_pivot(const GpuProblem& problem, Step&& step) {
  with_pred_flag(problem, [&](auto track) {
    Progress progress(problem, problem.n);
    for (std::int64_t k = 0; k < problem.n; ++k) {
      step(track, k);
      progress.reached(k + 1);
    }
  });
}

// Tiled kernels skip bounds checks because the registry pads n to their tile;
// a registry entry out of step with the kernel is caught here.
inline void require_pad_multiple(const GpuProblem& problem, int multiple, const char* algorithm) {
  if (problem.n_pad < problem.n || problem.n_pad % multiple != 0)
    throw Error(std::string(algorithm) + ": matrix padded to " + std::to_string(problem.n_pad) +
                " vertices, expected a multiple of " + std::to_string(multiple) + " (registry pad out of date)");
}

// A second n_pad x n_pad matrix (and predecessor matrix when tracked) for the
// algorithms that read one matrix and write another.
struct SecondMatrix {
  DeviceBuffer<dist_t> dist;
  DeviceBuffer<vertex_t> pred;
};

inline SecondMatrix allocate_second_matrix(const GpuProblem& problem, const char* algorithm) {
  const std::size_t cells = static_cast<std::size_t>(problem.n_pad) * static_cast<std::size_t>(problem.n_pad);
  const bool with_pred = problem.pred != nullptr;
  require_device_memory(cells * (sizeof(dist_t) + (with_pred ? sizeof(vertex_t) : 0)),
                        std::string(algorithm) + "'s second " + std::to_string(problem.n_pad) + " x " +
                            std::to_string(problem.n_pad) + " matrix");
  return SecondMatrix{DeviceBuffer<dist_t>(cells), DeviceBuffer<vertex_t>(with_pred ? cells : 0)};
}

// Copies the whole n_pad x n_pad result held in `from` into problem.dist / problem.pred.
inline void copy_result_back(const GpuProblem& problem, const dist_t* from_dist, const vertex_t* from_pred) {
  const std::size_t cells = static_cast<std::size_t>(problem.n_pad) * static_cast<std::size_t>(problem.n_pad);
  APSP_CUDA_CHECK(
      cudaMemcpyAsync(problem.dist, from_dist, cells * sizeof(dist_t), cudaMemcpyDeviceToDevice, problem.stream));
  if (problem.pred != nullptr)
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(problem.pred, from_pred, cells * sizeof(vertex_t), cudaMemcpyDeviceToDevice, problem.stream));
}

}  // namespace apsp::cuda
