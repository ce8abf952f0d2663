// The GPU half of the algorithm registry: one line per algorithm. Adding a
// kernel is one file under kernels/ that defines `void run_NAME(GpuProblem&)`
// in namespace apsp::cuda, plus one line here (docs/dev/adding-a-kernel.md).
// Compiled in every build: without CUDA the entries stay, unavailable.
#include "cuda/algorithm.hpp"
#include "supernodal/symbolic.hpp"

#include "apsp/error.hpp"

namespace apsp::cuda {
namespace {

// The run function `launcher`, declared where it is used so that a kernel
// file needs no header; null when this build has no CUDA.
#if APSP_WITH_CUDA
#define APSP_GPU_RUN(launcher)  \
  [](GpuProblem& problem) {     \
    void launcher(GpuProblem&); \
    launcher(problem);          \
  }
#else
#define APSP_GPU_RUN(launcher) nullptr
#endif
#if APSP_WITH_CUDA
constexpr bool kBuilt = true;
#else
constexpr bool kBuilt = false;
#endif

constexpr Backend cuda = Backend::cuda;
constexpr Work cubic = Work::cubic;
constexpr Role teaching = Role::teaching;
constexpr Role production = Role::production;

}  // namespace

const std::vector<GpuAlgorithm>& gpu_algorithm_table() {
  // {name, backend, work, role, predecessors, int16, block, real, distributable, available}, pad, needs_csr, run[, sparse_variant]
  static const std::vector<GpuAlgorithm> table = {
      {{"naive", cuda, cubic, teaching, true, false, true, false, false, kBuilt}, 1, false, APSP_GPU_RUN(run_naive)},
      {{"coalesced", cuda, cubic, teaching, true, false, false, false, false, kBuilt},
       1,
       false,
       APSP_GPU_RUN(run_coalesced)},
      {{"segmented", cuda, cubic, teaching, true, false, false, false, false, kBuilt},
       1,
       false,
       APSP_GPU_RUN(run_segmented)},
      {{"shared-rowcol", cuda, cubic, teaching, true, false, false, false, false, kBuilt},
       32,
       false,
       APSP_GPU_RUN(run_shared_rowcol)},
      {{"shared-row", cuda, cubic, teaching, true, false, false, false, false, kBuilt},
       1,
       false,
       APSP_GPU_RUN(run_shared_row)},
      {{"tran-double", cuda, cubic, teaching, true, false, false, false, false, kBuilt},
       1,
       false,
       APSP_GPU_RUN(run_tran_double)},
      {{"minplus-squaring", cuda, Work::cubic_log, teaching, true, false, false, false, false, kBuilt},
       32,
       false,
       APSP_GPU_RUN(run_minplus_squaring)},
      {{"harish", cuda, Work::per_source, teaching, true, false, false, false, false, kBuilt},
       1,
       true,
       APSP_GPU_RUN(run_harish)},
      {{"blocked-32", cuda, cubic, teaching, true, false, false, false, false, kBuilt},
       32,
       false,
       APSP_GPU_RUN(run_blocked32)},
      {{"blocked-64", cuda, cubic, teaching, true, false, false, false, false, kBuilt},
       64,
       false,
       APSP_GPU_RUN(run_blocked64)},
      {{"fw-persistent", cuda, cubic, teaching, false, true, false, false, false, kBuilt},
       kProductionPad,
       false,
       APSP_GPU_RUN(run_fw_persistent)},
      {{"fw", cuda, cubic, production, true, true, false, true, true, kBuilt},
       kProductionPad,
       false,
       APSP_GPU_RUN(run_fw_production)},
      // fw past device memory (out_of_core_solver.hpp): the matrix in host
      // memory, the fw kernels on super-tiles streamed through the device;
      // "auto" takes it only when fw's matrix does not fit (solve.cpp).
      {{"fw-ooc", cuda, cubic, production, true, true, false, false, false, kBuilt},
       kProductionPad,
       false,
       nullptr,
       -1,
       false,
       true},
      // The batched single-source ladder (kernels/sparse/sssp.cu): v1, v2, and
      // the production v3 (promoted on the 2026-11-25 H100 run, docs/perf.md).
      {{"sssp-frontier", cuda, Work::per_source, teaching, true, false, false, true, false, kBuilt},
       1,
       false,
       nullptr,
       0},
      {{"sssp-nearfar", cuda, Work::per_source, teaching, true, false, false, true, false, kBuilt},
       1,
       false,
       nullptr,
       1},
      {{"sssp", cuda, Work::per_source, production, true, false, false, true, false, kBuilt}, 1, false, nullptr, 2},
      // The supernodal min-plus solver (supernodal_solver.hpp): the same name
      // as the CPU reference's entry, told apart by the backend; it needs the
      // ordering library (METIS).
      {{"supernodal", cuda, Work::separators, production, true, true, false, true, false,
        kBuilt && supernodal::ordering_available()},
       1,
       false,
       nullptr,
       -1,
       true},
  };
  return table;
}

const std::vector<AlgorithmInfo>& gpu_algorithm_infos() {
  static const std::vector<AlgorithmInfo> infos = [] {
    std::vector<AlgorithmInfo> list;
    for (const GpuAlgorithm& a : gpu_algorithm_table()) list.push_back(a.info);
    return list;
  }();
  return infos;
}

const GpuAlgorithm& gpu_auto_algorithm() {
  for (const GpuAlgorithm& a : gpu_algorithm_table())
    if (a.info.role == Role::production) return a;
  throw Error("the GPU registry has no production entry");
}

}  // namespace apsp::cuda
