// Every thread the CUDA backend starts works on the solve's device
// (SolveOptions::device), not on the device 0 a new thread starts with
// (issue 20, defect 12: the warm-up thread of HostWarmup built its staging
// pool and the sink's pages under device 0 for a solve on device 1). The
// sink records the current device of the thread that calls prepare(), the
// warm-up thread. Needs two devices; skips with fewer.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <variant>

#include "apsp/apsp.hpp"
#include "cuda/testing.hpp"
#include "gpu/gpu_support.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

class DeviceRecorder : public HostMatrixSink {
 public:
  void prepare() override {
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) device = -2;
    prepared_on_ = device;
    HostMatrixSink::prepare();
  }
  int prepared_on() const { return prepared_on_.load(); }

 private:
  std::atomic<int> prepared_on_{-1};
};

TEST(CudaThreadDevices, TheWarmUpThreadWorksOnTheSolvesDevice) {
  if (cuda::devices().size() < 2) GTEST_SKIP() << "needs two CUDA devices, found " << cuda::devices().size();
  const cuda::testing::ForceHook every_sink(cuda::testing::hooks.prepare_every_sink);
  const Graph g = test::generated(GraphKind::rmat, 600, 4000, 1, 50, 3);
  const std::vector<dist_t> expected = test::reference_distances(g);
  const GraphF64 g64 = std::get<GraphF64>(convert_weights(AnyGraph(g), WeightType::float64));
  for (const int device : {1, 0}) {
    for (const char* algorithm : {"fw", "sssp"}) {
      SCOPED_TRACE(std::string(algorithm) + " on device " + std::to_string(device));
      SolveOptions o;
      o.backend = Backend::cuda;
      o.algorithm = algorithm;
      o.device = device;
      DeviceRecorder sink;
      solve(g, o, sink);
      EXPECT_EQ(sink.prepared_on(), device);
      EXPECT_EQ(test::first_difference(expected, sink.distances(), g.n), "");
      DeviceRecorder real;
      solve(g64, o, real);
      EXPECT_EQ(real.prepared_on(), device);
    }
  }
}

}  // namespace
}  // namespace apsp
