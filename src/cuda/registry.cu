#include "algorithm.cuh"

namespace apsp::cuda {

const std::vector<GpuAlgorithm>& gpu_algorithm_table() {
  static const std::vector<GpuAlgorithm> table = {
      {"naive", 1, false, false, true, run_naive},
      {"coalesced", 1, false, false, false, run_coalesced},
      {"segmented", 1, false, false, false, run_segmented},
      {"shared-rowcol", 32, false, false, false, run_shared_rowcol},
      {"shared-row", 1, false, false, false, run_shared_row},
      {"tran-double", 1, false, false, false, run_tran_double},
      {"minplus-squaring", 32, false, false, false, run_minplus_squaring},
      {"harish", 1, true, false, false, run_harish},
      {"blocked-32", 32, false, false, false, run_blocked32},
      {"blocked-64", 64, false, false, false, run_blocked64},
      {"fw-persistent", kProductionPad, false, true, false, run_fw_persistent},
      {"fw", kProductionPad, false, true, false, run_fw_production},
  };
  return table;
}

}  // namespace apsp::cuda
