// Bug 6: listing the devices must not touch them. devices() used to make
// every device current and query its free memory, which creates a context
// on each (eight for one solve on an 8-GPU node), and ran twice per solve.
// Context state is read through the driver API (opened with dlopen: the
// binary must start on machines without a driver) in a fresh process (a death
// test re-runs the binary), so earlier tests' contexts do not count.
// Skips without a CUDA device.
#include <gtest/gtest.h>

#if APSP_WITH_CUDA
#include <cuda.h>
#include <dlfcn.h>
#endif

#include <cstdlib>

#include "apsp/apsp.hpp"
#include "gpu_support.hpp"

namespace apsp {
namespace {

#if APSP_WITH_CUDA

// The number of devices with an active primary context, or -1 when the
// driver cannot say.
int devices_with_a_context() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) return -1;
  using Init = CUresult (*)(unsigned);
  using Count = CUresult (*)(int*);
  using Get = CUresult (*)(CUdevice*, int);
  using State = CUresult (*)(CUdevice, unsigned*, int*);
  const auto init = reinterpret_cast<Init>(dlsym(driver, "cuInit"));
  const auto count_devices = reinterpret_cast<Count>(dlsym(driver, "cuDeviceGetCount"));
  const auto get_device = reinterpret_cast<Get>(dlsym(driver, "cuDeviceGet"));
  const auto context_state = reinterpret_cast<State>(dlsym(driver, "cuDevicePrimaryCtxGetState"));
  int count = 0;
  if (!init || !count_devices || !get_device || !context_state || init(0) != CUDA_SUCCESS ||
      count_devices(&count) != CUDA_SUCCESS)
    return -1;
  int active_devices = 0;
  for (int d = 0; d < count; ++d) {
    CUdevice device = 0;
    unsigned flags = 0;
    int active = 0;
    if (get_device(&device, d) != CUDA_SUCCESS || context_state(device, &flags, &active) != CUDA_SUCCESS) return -1;
    active_devices += active != 0;
  }
  return active_devices;
}

// Exit codes of the child: 0 as expected, 10 + k for k contexts after listing
// (9: the driver cannot say), 20 + k for k after a solve (which creates one,
// on its own device only).
[[noreturn]] void list_then_solve_on_device_0() {
  const std::vector<cuda::DeviceInfo>& listed = cuda::devices();
  if (&listed != &cuda::devices()) std::exit(30);  // enumerated once, the same list
  const int after_listing = devices_with_a_context();
  if (after_listing != 0) std::exit(10 + after_listing);
  Graph g;
  g.n = 3;
  g.edges = {{0, 1, 2}, {1, 2, 3}};
  SolveOptions o;
  o.backend = Backend::cuda;
  o.device = 0;
  if (solve(g, o).dist[2] != 5) std::exit(40);
  const int after_solve = devices_with_a_context();
  std::exit(after_solve == 1 ? 0 : 20 + after_solve);
}

TEST(GpuDevicesDeathTest, ListingCreatesNoContextAndASolveTouchesOnlyItsDevice) {
  SKIP_WITHOUT_GPU();
#ifdef GTEST_FLAG_SET
  GTEST_FLAG_SET(death_test_style, "threadsafe");
#else
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
#endif
  EXPECT_EXIT(list_then_solve_on_device_0(), ::testing::ExitedWithCode(0), "");
}

#endif

}  // namespace
}  // namespace apsp
