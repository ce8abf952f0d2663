// make_distributed_bin_file_sink (the stand-in distributed file output) on a
// local group of 3 ranks: the file equals the single-process result, a target
// that cannot be created is an agreed error on every rank, and a failed solve
// leaves an existing target as it was and no temporary file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "apsp/comm.hpp"
#include "apsp/distributed.hpp"
#include "apsp/io.hpp"
#include "apsp/solver.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class DistributedFileSink : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("apsp_dist_sink_" + std::to_string(static_cast<long>(getpid())));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // The solve on 3 ranks (2d, 1 x 3) into `distances` and `predecessors`.
  void solve_into(const Graph& g, const std::string& distances, const std::string& predecessors) const {
    run_on_threads(make_local_communicators(3), [&](Communicator& comm) {
      DistributedOptions o;
      o.distribution = Distribution::grid;
      o.threads = 1;
      o.predecessors = !predecessors.empty();
      const auto sink = make_distributed_bin_file_sink(comm, distances, predecessors);
      solve_distributed(comm, g, o, *sink);
    });
  }
  int files() const { return static_cast<int>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }
  fs::path dir_;
};

TEST_F(DistributedFileSink, WritesTheSingleProcessMatrices) {
  const Graph g = test::generated(GraphKind::rmat, 300, 1500, -4, 30, 8);
  SolveOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "fw-blocked";
  o.predecessors = true;
  const SolveResult expected = solve(g, o);
  io::write_matrix((dir_ / "ref.bin").string(), expected.dist, expected.n);
  io::write_matrix((dir_ / "refp.bin").string(), expected.pred, expected.n);
  solve_into(g, (dir_ / "d.bin").string(), (dir_ / "p.bin").string());
  EXPECT_EQ(slurp(dir_ / "d.bin"), slurp(dir_ / "ref.bin"));
  EXPECT_EQ(slurp(dir_ / "p.bin"), slurp(dir_ / "refp.bin"));
  EXPECT_EQ(files(), 4) << "a temporary file was left";
}

TEST_F(DistributedFileSink, TargetThatCannotBeCreatedIsAnAgreedError) {
  const Graph g = test::generated(GraphKind::random, 100, 300, 1, 9, 3);
  const std::string target = (dir_ / "missing" / "d.bin").string();
  try {
    solve_into(g, target, "");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(dynamic_cast<const AgreedFailure*>(&e), nullptr);
    EXPECT_NE(std::string(e.what()).find("rank 0: cannot create " + target), std::string::npos) << e.what();
  }
  EXPECT_EQ(files(), 0);
}

TEST_F(DistributedFileSink, FailedSolveKeepsTheOldTarget) {
  Graph g = test::generated(GraphKind::random, 200, 600, 1, 9, 4);
  g.edges.push_back(Edge{100, 10, -50});  // a negative cycle 10 -> 100 -> 10
  g.edges.push_back(Edge{10, 100, 2});
  std::ofstream(dir_ / "d.bin") << "old contents";
  EXPECT_THROW(solve_into(g, (dir_ / "d.bin").string(), ""), NegativeCycleError);
  EXPECT_EQ(slurp(dir_ / "d.bin"), "old contents");
  EXPECT_EQ(files(), 1) << "a temporary file was left";
}

}  // namespace
}  // namespace apsp
