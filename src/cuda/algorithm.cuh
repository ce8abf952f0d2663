// What every GPU algorithm receives and how the dispatcher finds it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "apsp/solver.hpp"

namespace apsp::cuda {

// Out-edges on the device (CSR), weights already non-negative.
struct DeviceCsr {
  const std::int64_t* row_start = nullptr;  // n + 1
  const vertex_t* col = nullptr;            // m
  const weight_t* weight = nullptr;         // m
  std::int64_t n = 0;
  std::int64_t m = 0;
};

// One APSP instance, solved in place on the device.
// Preconditions the dispatcher guarantees:
//  - every edge weight is >= 0 (negative graphs are reweighted with Johnson
//    potentials first), so min(a + b, c) with kInf as infinity never wraps
//    (2 * kInf < 2^31) and never lets "kInf + w" undercut a real distance;
//  - dist is n_pad x n_pad row-major (leading dimension n_pad); the padded
//    vertices n..n_pad-1 are isolated (kInf rows/columns, 0 on the diagonal);
//  - pred, when not null, has the same shape: pred[i][j] = i for an edge
//    i->j, else -1; algorithms set pred[i][j] = pred[k][j] on improvement.
struct GpuProblem {
  dist_t* dist = nullptr;
  vertex_t* pred = nullptr;
  std::int64_t n = 0;
  std::int64_t n_pad = 0;
  DeviceCsr csr;                 // filled only for algorithms with needs_csr
  weight_t max_weight = 0;       // largest (reweighted) edge weight
  // A host estimate (not a bound) of the largest finite distance, used only
  // to decide whether an int16 attempt is worth it; results are certified.
  std::int64_t distance_estimate = 0;
  BlockShape block;              // user's --block, {0,0} = default
  Precision precision = Precision::automatic;   // requested
  Precision used_precision = Precision::int32;  // set by the algorithm
  cudaStream_t stream = nullptr;
  std::function<void(double)> progress;  // may be empty; call from the host thread only
};

struct GpuAlgorithm {
  const char* name;
  int pad_multiple;  // n_pad = n rounded up to this
  bool needs_csr;
  bool has_int16;    // honours --precision int16 (others compute in int32 only)
  bool takes_block;  // honours --block
  void (*run)(GpuProblem&);
};

// Every GPU algorithm, in the order `apsp info` lists them.
const std::vector<GpuAlgorithm>& gpu_algorithm_table();

// The kernel family (one host launcher each, in src/cuda/<name>.cu).
void run_naive(GpuProblem&);
void run_coalesced(GpuProblem&);
void run_segmented(GpuProblem&);
void run_shared_rowcol(GpuProblem&);
void run_shared_row(GpuProblem&);
void run_tran_double(GpuProblem&);
void run_minplus_squaring(GpuProblem&);
void run_harish(GpuProblem&);
void run_blocked32(GpuProblem&);
void run_blocked64(GpuProblem&);
// The production solver (src/cuda/fw_production.cu): "fw" runs phase 3 one
// block per C tile; "fw-persistent" is the persistent variant that lost
// (docs/perf.md) and stays selectable for the kernel ladder.
void run_fw_production(GpuProblem&);
void run_fw_persistent(GpuProblem&);
inline constexpr int kProductionPad = 128;

}  // namespace apsp::cuda
