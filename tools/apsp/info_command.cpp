// apsp info: version, backends, devices, algorithms and threads of this build.
#include <omp.h>

#include <cstdio>
#include <string>

#include "apsp/comm.hpp"
#include "apsp/cuda.hpp"
#include "apsp/solver.hpp"
#include "cli.hpp"

namespace apsp::cli {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "(none)" : text;
}

void run_info() {
  std::printf("apsp %s\n", APSP_VERSION);
  std::printf("backends: cpu%s\n", cuda::compiled_in() ? ", cuda" : " (built without CUDA)");
  const auto devices = cuda::devices();
  if (devices.empty()) std::printf("devices: none\n");
  else std::printf("devices: %zu\n", devices.size());
  for (const auto& dev : devices)
    std::printf("  device %d: %s, sm_%d%d, %d SMs, %.1f GiB (%.1f GiB free)\n", dev.ordinal, dev.name.c_str(),
                dev.sm_major, dev.sm_minor, dev.multiprocessors, static_cast<double>(dev.total_memory) / (1u << 30),
                static_cast<double>(dev.free_memory) / (1u << 30));
  const CommSupport comm = comm_support();
  std::string communicators = "single, local";
  if (comm.mpi) communicators += ", mpi (" + comm.mpi_library + (comm.cuda_aware_mpi ? ", CUDA-aware)" : ")");
  if (comm.nccl) communicators += ", nccl " + comm.nccl_version;
  if (!comm.mpi) communicators += " (built without MPI)";
  std::printf("communicators: %s\n", communicators.c_str());
  std::printf("algorithms (cpu): %s\n", joined(list_algorithms(Backend::cpu)).c_str());
  std::printf("algorithms (cuda): %s\n", joined(list_algorithms(Backend::cuda)).c_str());
  std::printf("openmp max threads: %d\n", omp_get_max_threads());
}

}  // namespace

Command add_info_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("info", "Show the version, backends, devices and algorithms");
  return Command{cmd, run_info};
}

}  // namespace apsp::cli
