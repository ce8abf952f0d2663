// The GPU backend's rows through the sinks (apsp/sinks.hpp): distances and
// predecessors into files of every matrix format, into a host matrix and into
// nothing, against the independent reference. Skips without a CUDA device.
#include <gtest/gtest.h>
#include <algorithm>
#include <atomic>
#include <limits>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/sinks.hpp"
#include "cuda/testing.hpp"
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

// Counts prepare() and checks it comes once, after begin() and before the
// first row, from every GPU path (fw and sssp; int32 and real weights; for
// small results only under the testing hook, see HostWarmup); the rows go on
// to a host matrix.
class PrepareRecorder : public HostMatrixSink {
 public:
  void begin(const SinkLayout& layout) override {
    begun_ = true;
    HostMatrixSink::begin(layout);
  }
  void prepare() override {
    EXPECT_TRUE(begun_);
    EXPECT_EQ(puts_before_prepare_, -1) << "prepare() came twice";
    puts_before_prepare_ = puts_.load();
    HostMatrixSink::prepare();
  }
  void put(const RowBlock& block) override {
    ++puts_;
    HostMatrixSink::put(block);
  }
  std::int64_t puts_before_prepare() const { return puts_before_prepare_; }

 private:
  bool begun_ = false;
  std::int64_t puts_before_prepare_ = -1;
  std::atomic<std::int64_t> puts_{0};
};

TEST_F(GpuSinks, EveryGpuPathPreparesTheSinkOnceBeforeItsRows) {
  SKIP_WITHOUT_GPU();
  GenerateOptions rmat;
  rmat.kind = GraphKind::rmat;
  rmat.n = 700;
  const Graph g = generate(rmat);
  const std::vector<dist_t> expected = test::reference_distances(g);
  {
    SolveOptions o = gpu_options(false);
    PrepareRecorder unprepared;  // 2 MB: below the warm-up's floor
    solve(g, o, unprepared);
    EXPECT_EQ(unprepared.puts_before_prepare(), -1);
    EXPECT_EQ(test::first_difference(expected, unprepared.distances(), g.n), "");
  }
  const cuda::testing::ForceHook every_sink(cuda::testing::hooks.prepare_every_sink);
  for (const char* algorithm : {"fw", "sssp"}) {
    for (const bool predecessors : {false, true}) {
      SCOPED_TRACE(std::string(algorithm) + (predecessors ? " with predecessors" : ""));
      SolveOptions o = gpu_options(predecessors);
      o.algorithm = algorithm;
      PrepareRecorder sink;
      solve(g, o, sink);
      EXPECT_EQ(sink.puts_before_prepare(), 0);
      EXPECT_EQ(test::first_difference(expected, sink.distances(), g.n), "");
      PrepareRecorder real;
      const GraphF64 g64 = std::get<GraphF64>(convert_weights(AnyGraph(g), WeightType::float64));
      solve(g64, o, real);
      EXPECT_EQ(real.puts_before_prepare(), 0);
      ASSERT_EQ(real.distances_f64().size(), expected.size());
      for (std::size_t x = 0; x < expected.size(); ++x)
        ASSERT_EQ(real.distances_f64()[x], expected[x] == kInf ? std::numeric_limits<double>::infinity() : expected[x]);
    }
  }
}

}  // namespace
}  // namespace apsp
