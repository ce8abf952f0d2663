// The GPU backend's rows through the sinks (apsp/sinks.hpp): distances and
// predecessors into files of every matrix format, into a host matrix and into
// nothing, against the independent reference. Skips without a CUDA device.
#include <gtest/gtest.h>
#include <algorithm>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/sinks.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"

namespace apsp {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (cuda::devices().empty()) GTEST_SKIP() << "no CUDA device"

SolveOptions gpu_options(bool predecessors) {
  SolveOptions o;
  o.backend = Backend::cuda;
  o.algorithm = "fw";
  o.predecessors = predecessors;
  return o;
}

std::vector<std::string> stage_names(const SolveSummary& s) {
  std::vector<std::string> names;
  for (const Stage& stage : s.times.stages) names.push_back(stage.name);
  return names;
}

bool has_stage(const SolveSummary& s, const std::string& name) {
  const auto names = stage_names(s);
  return std::find(names.begin(), names.end(), name) != names.end();
}

using GpuSinks = test::ScratchDirTest;

TEST_F(GpuSinks, PredecessorsAndDistancesThroughFileSinks) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::tile_cases()) {
    if (c.graph.n > 700) continue;
    const std::vector<dist_t> expected = test::reference_distances(c.graph);
    for (const char* ext : {"bin", "npy", "txt"}) {
      SCOPED_TRACE(c.name + " ." + ext);
      const std::string d_path = path(std::string("d.") + ext), p_path = path(std::string("p.") + ext);
      FileSink sink(MatrixFileTarget{d_path}, MatrixFileTarget{p_path});
      const SolveSummary s = solve(c.graph, gpu_options(true), sink);
      EXPECT_EQ(s.backend, Backend::cuda);
      EXPECT_TRUE(has_stage(s, "compute"));
      EXPECT_TRUE(has_stage(s, "commit"));
      std::int64_t n = 0;
      const std::vector<dist_t> d = io::read_matrix(d_path, n);
      EXPECT_EQ(n, c.graph.n);
      EXPECT_EQ(test::first_difference(expected, d, c.graph.n), "");
      EXPECT_EQ(test::check_predecessors(c.graph, d, io::read_matrix(p_path, n)), "");
    }
  }
}

TEST_F(GpuSinks, HostMatrixAndNullSinks) {
  SKIP_WITHOUT_GPU();
  for (const test::Case& c : test::standard_cases()) {
    if (c.graph.n != 65 && c.graph.n != 257) continue;
    SCOPED_TRACE(c.name);
    const std::vector<dist_t> expected = test::reference_distances(c.graph);
    HostMatrixSink host;
    const SolveSummary s = solve(c.graph, gpu_options(true), host);
    EXPECT_EQ(test::first_difference(expected, host.distances(), c.graph.n), "");
    EXPECT_EQ(test::check_predecessors(c.graph, host.distances(), host.predecessors()), "");
    EXPECT_GT(s.times.seconds("compute"), 0);
    NullSink nothing;
    EXPECT_NO_THROW(solve(c.graph, gpu_options(false), nothing));
  }
}

}  // namespace
}  // namespace apsp
