// apsp info: version, backends, devices, algorithms and threads of this build.
#include <omp.h>

#include <cstdio>
#include <string>

#include "apsp/comm.hpp"
#include "apsp/cuda.hpp"
#include "apsp/registry.hpp"
#include "cli.hpp"

namespace apsp::cli {
namespace {

// The registry's algorithms on one backend, by availability in this build.
std::string names_on(Backend backend, bool available) {
  std::string text;
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.backend == backend && a.available == available) text += (text.empty() ? "" : ", ") + std::string(a.name);
  return text;
}

void run_info() {
  std::printf("apsp %s\n", APSP_VERSION);
  std::printf("backends: cpu%s\n", cuda::compiled_in() ? ", cuda" : " (built without CUDA)");
  const auto& devices = cuda::devices();
  if (devices.empty())
    std::printf("devices: none\n");
  else
    std::printf("devices: %zu\n", devices.size());
  for (const auto& dev : devices)
    std::printf("  device %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", dev.ordinal, dev.name.c_str(), dev.sm_major,
                dev.sm_minor, dev.multiprocessors, static_cast<double>(dev.total_memory) / (1u << 30));
  const CommSupport comm = comm_support();
  std::string communicators = "single, local";
  if (comm.mpi) communicators += ", mpi (" + comm.mpi_library + (comm.cuda_aware_mpi ? ", CUDA-aware)" : ")");
  if (comm.nccl) communicators += ", nccl " + comm.nccl_version;
  if (!comm.mpi) communicators += " (built without MPI)";
  std::printf("communicators: %s\n", communicators.c_str());
  for (Backend backend : {Backend::cpu, Backend::cuda}) {
    const std::string built = names_on(backend, true), missing = names_on(backend, false);
    std::printf("algorithms (%s): %s\n", to_string(backend), built.empty() ? "(none)" : built.c_str());
    if (!missing.empty()) std::printf("algorithms (%s, not in this build): %s\n", to_string(backend), missing.c_str());
  }
  std::printf("openmp max threads: %d\n", omp_get_max_threads());
}

}  // namespace

Command add_info_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("info", "Show the version, backends, devices and algorithms");
  return Command{cmd, run_info};
}

}  // namespace apsp::cli
