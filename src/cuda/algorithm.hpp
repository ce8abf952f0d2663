// What every GPU algorithm receives and how the dispatcher finds it.
// Host-safe without the CUDA headers: the registry (registry.cpp) compiles
// in every build.
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/registry.hpp"
#include "apsp/solver.hpp"
#include "core/progress.hpp"

// The CUDA runtime's stream type: cudaStream_t is CUstream_st*.
struct CUstream_st;

namespace apsp::cuda {

class RangeCertificate;

// Out-edges on the device (CSR), weights already non-negative, of type W
// (int32; float32 and float64 for the sparse solver's real-valued rows).
template <class W>
struct BasicDeviceCsr {
  const std::int64_t* row_start = nullptr;  // n + 1
  const vertex_t* col = nullptr;            // m
  const W* weight = nullptr;                // m
  std::int64_t n = 0;
  std::int64_t m = 0;
};
using DeviceCsr = BasicDeviceCsr<weight_t>;

// One APSP instance, solved in place on the device.
// Preconditions the dispatcher guarantees:
//  - every edge weight is >= 0 (negative graphs are reweighted with Johnson
//    potentials first), so min(a + b, c) with kInf as infinity never wraps
//    (2 * kInf < 2^31) and never lets "kInf + w" undercut a real distance;
//  - dist is n_pad x n_pad row-major (leading dimension n_pad); the padded
//    vertices n..n_pad-1 are isolated (kInf rows/columns, 0 on the diagonal);
//  - pred, when not null, has the same shape: pred[i][j] = i for an edge
//    i->j, else -1; algorithms set pred[i][j] = pred[k][j] on improvement.
// An algorithm leaves min(distance, kInf) in every entry (range_rule.hpp);
// the dispatcher certifies the range afterwards.
// Where the production solver leaves a certified int16 result for the
// download (device_rows.hpp; owned by the dispatcher).
struct Int16Result;

struct GpuProblem {
  dist_t* dist = nullptr;
  // When set, an int16 run that certifies leaves its result here and
  // GpuProblem::dist untouched; when null it widens into dist.
  Int16Result* int16_result = nullptr;
  vertex_t* pred = nullptr;
  std::int64_t n = 0;
  std::int64_t n_pad = 0;
  DeviceCsr csr;  // filled only for algorithms with needs_csr
  // The same (reweighted, non-negative) edges on the host, sorted by (src, dst).
  const std::vector<Edge>* edges = nullptr;
  weight_t max_weight = 0;  // largest (reweighted) edge weight
  // A host estimate (not a bound) of the largest finite distance, used only
  // to decide whether a narrower attempt is worth it; results are certified.
  std::int64_t distance_estimate = 0;
  BlockShape block;                             // SolveOptions::block, {0,0} = default
  Precision precision = Precision::automatic;   // requested
  Precision used_precision = Precision::int32;  // set by the algorithm
  CUstream_st* stream = nullptr;
  // The range certificate of this instance, for algorithms that certify an
  // attempt in a narrower width themselves (never null from DeviceInstance).
  RangeCertificate* certificate = nullptr;
  // The part of the progress bar this run covers; report from the host thread only.
  ProgressSpan progress;
  // Where the dense solver keeps its round checkpoints (Sink::round_checkpoints), or null.
  RoundCheckpoints* checkpoints = nullptr;
};

// One registry line: the public traits, what the dispatcher needs to build
// the instance, and the run function (null in builds without CUDA).
struct GpuAlgorithm {
  AlgorithmInfo info;
  int pad_multiple;  // n_pad = n rounded up to this
  bool needs_csr;    // GpuProblem::csr is filled
  void (*run)(GpuProblem&);
  // >= 0: a step of the batched single-source ladder (SparseVariant,
  // sparse_variant.hpp), solved by solve_sparse (sparse_solver.hpp) without
  // a GpuProblem or an n x n device matrix; run is then null.
  int sparse_variant = -1;
  // The supernodal solver (supernodal_solver.hpp): rows streamed like the
  // sparse ladder's, from a factor of the graph; run is then null.
  bool supernodal = false;
  // Out-of-core fw (out_of_core_solver.hpp): the matrix in host memory,
  // streamed through the device in super-rounds; run is then null.
  bool out_of_core = false;
};

// Every GPU algorithm, in the order `apsp info` lists them (registry.cpp).
const std::vector<GpuAlgorithm>& gpu_algorithm_table();
// Their traits (GpuAlgorithm::info), in the same order: what the option
// checks of core/algorithm_checks.hpp and the registry read.
const std::vector<AlgorithmInfo>& gpu_algorithm_infos();
// The entry "auto" stands for on the GPU when every choice honours the same
// options: the production dense solver (fw), the first production entry.
const GpuAlgorithm& gpu_auto_algorithm();

// The production solver's tile (kernels/dense/traits.cuh checks it).
inline constexpr int kProductionPad = 128;

}  // namespace apsp::cuda
