// The out-of-core schedule (core/super_rounds.hpp): the jobs of a round and
// their order, the driver's round boundaries and continuation, and the
// choice of the super-tile shape. The arithmetic of the schedule runs in
// fw-ooc (the CPU executor), which the CpuAlgorithm suite checks against the
// reference like every CPU algorithm, and in the wide-width test below.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/solver.hpp"
#include "core/super_rounds.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

using core::SuperJob;
using Step = SuperJob::Step;

std::string text(const SuperJob& j) {
  const char* step = j.step == Step::diagonal       ? "D"
                     : j.step == Step::row_panel    ? "R"
                     : j.step == Step::column_panel ? "C"
                                                    : "U";
  return std::string(step) + std::to_string(j.row) + std::to_string(j.col);
}

TEST(SuperRounds, JobsOfARoundComeDiagonalPanelsThenUpdates) {
  std::vector<std::string> seen;
  for (const SuperJob& j : core::super_round_jobs(3, 1)) {
    EXPECT_EQ(j.round, 1);
    seen.push_back(text(j));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"D11", "R10", "R12", "C01", "C21", "U00", "U02", "U20", "U22"}));
  EXPECT_EQ(core::super_round_jobs(1, 0).size(), 1u);
  EXPECT_EQ(core::super_round_jobs(5, 4).size(), 25u);
  EXPECT_THROW(core::super_round_jobs(3, 3), UsageError);
  EXPECT_THROW(core::super_round_jobs(0, 0), UsageError);
}

// Records what the driver asks.
class Recorder final : public core::SuperRoundExecutor {
 public:
  void run(const SuperJob& job) override { log.push_back(text(job)); }
  void end_round(std::int64_t round) override { log.push_back("end" + std::to_string(round)); }
  std::vector<std::string> log;
};

TEST(SuperRounds, DriverEndsEachRoundThenCallsTheBoundary) {
  Recorder recorder;
  std::vector<std::pair<std::int64_t, std::int64_t>> boundaries;
  core::run_super_rounds(recorder, 2, 0, [&](std::int64_t done, std::int64_t rounds) {
    boundaries.push_back({done, rounds});
    recorder.log.push_back("boundary" + std::to_string(done));
  });
  EXPECT_EQ(recorder.log, (std::vector<std::string>{"D00", "R01", "C10", "U11", "end0", "boundary1", "D11", "R10",
                                                    "C01", "U00", "end1", "boundary2"}));
  EXPECT_EQ(boundaries, (std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 2}, {2, 2}}));
}

TEST(SuperRounds, DriverContinuesFromARoundAndRefusesOthers) {
  Recorder recorder;
  core::run_super_rounds(recorder, 3, 2, nullptr);
  ASSERT_FALSE(recorder.log.empty());
  EXPECT_EQ(recorder.log.front(), "D22");
  EXPECT_EQ(recorder.log.back(), "end2");
  Recorder none;
  core::run_super_rounds(none, 3, 3, nullptr);
  EXPECT_TRUE(none.log.empty());
  EXPECT_THROW(core::run_super_rounds(none, 3, 4, nullptr), UsageError);
  EXPECT_THROW(core::run_super_rounds(none, 3, -1, nullptr), UsageError);
}

core::SuperShapeInputs inputs(std::int64_t n, std::uint64_t device_bytes) {
  core::SuperShapeInputs in;
  in.n = n;
  in.granule = 128;
  in.cell_bytes = 4;
  in.device_bytes = device_bytes;
  return in;
}

TEST(SuperRounds, ShapeWithoutRatesPadsLeastThenTakesFewestBlocks) {
  const core::SuperShape roomy = core::choose_super_shape(inputs(300, std::uint64_t{1} << 30));
  EXPECT_EQ(roomy.width, 384);
  EXPECT_EQ(roomy.blocks, 1);
  // Room for 128-wide super-tiles of a 384 order only: three blocks.
  const core::SuperShape tight_shape{128, 3};
  const core::SuperShape tight = core::choose_super_shape(inputs(300, core::super_device_bytes(tight_shape, 4)));
  EXPECT_EQ(tight.width, 128);
  EXPECT_EQ(tight.blocks, 3);
  const core::SuperShape empty = core::choose_super_shape(inputs(0, std::uint64_t{1} << 30));
  EXPECT_EQ(empty.order(), 128);
  EXPECT_THROW(core::choose_super_shape(inputs(300, 1000)), ResourceError);
}

TEST(SuperRounds, ShapeFromRatesIsComputeBoundWhenMemoryAllows) {
  core::SuperShapeInputs in = inputs(150000, std::uint64_t{70} << 30);
  in.link_bytes_per_second = 25e9;
  in.updates_per_second = 1.5e13;
  const core::SuperShape s = core::choose_super_shape(in);
  EXPECT_GE(s.order(), 150000);
  EXPECT_LE(core::super_device_bytes(s, 4), in.device_bytes);
  // Compute bounds a super-tile with the margin: width^3 / U >= margin * 2 width^2 * 4 / L.
  EXPECT_GE(static_cast<double>(s.width),
            core::kSuperCopyMargin * 2.0 * in.updates_per_second * 4 / in.link_bytes_per_second);
  EXPECT_LE(s.order() - 150000, 128 * (s.blocks + 1));  // n rounded to 128, then to blocks x 128
  // A budget too small for a compute-bound width still gets a shape.
  in.device_bytes = std::uint64_t{2} << 30;
  const core::SuperShape small = core::choose_super_shape(in);
  EXPECT_LE(core::super_device_bytes(small, 4), in.device_bytes);
  EXPECT_GE(small.order(), 150000);
}

// Predecessor mode holds five more width x width midpoint tiles (a ring of
// three, the diagonal's own, its tagged copy) and the closure's 128 x width
// B rows: a budget that fits 128-wide tiles without them fits fewer with
// them, and the chooser takes the narrower shape it then needs.
TEST(SuperRounds, PredecessorModeCountsTheMidpointTiles) {
  const core::SuperShape s{256, 3};
  EXPECT_EQ(core::super_device_bytes(s, 4, true) - core::super_device_bytes(s, 4),
            std::uint64_t{256} * 256 * 5 * 4 + 128 * 256 * 4);
  core::SuperShapeInputs in = inputs(700, core::super_device_bytes(s, 4));
  EXPECT_EQ(core::choose_super_shape(in).width, 256);
  in.predecessors = true;
  const core::SuperShape with = core::choose_super_shape(in);
  EXPECT_EQ(with.width, 128);
  EXPECT_LE(core::super_device_bytes(with, 4, true), in.device_bytes);
  in.forced_width = 256;
  EXPECT_THROW(core::choose_super_shape(in), ResourceError);
}

TEST(SuperRounds, ForcedWidthIsKeptOrRefused) {
  core::SuperShapeInputs in = inputs(1000, std::uint64_t{1} << 30);
  in.forced_width = 256;
  const core::SuperShape s = core::choose_super_shape(in);
  EXPECT_EQ(s.width, 256);
  EXPECT_EQ(s.blocks, 4);
  in.forced_width = 200;
  EXPECT_THROW(core::choose_super_shape(in), UsageError);
  in.forced_width = 512;
  in.device_bytes = 1000;
  EXPECT_THROW(core::choose_super_shape(in), ResourceError);
}

}  // namespace
}  // namespace apsp
