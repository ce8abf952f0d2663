// The progress meter behind the contract of SolveOptions::progress
// (src/core/progress.hpp): stages report into spans; what the caller sees is
// non-decreasing and ends at exactly 1.0, also when an attempt is abandoned
// and its work runs again (the GPU's int16 and tagged attempts, a GPU range
// refusal solved on the CPU). tests/gpu checks the same end to end.
#include <gtest/gtest.h>

#include <vector>

#include "core/progress.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

// Runs `rounds` rounds of a stage, reporting after each.
void run_stage(const ProgressSpan& span, int rounds) {
  for (int r = 1; r <= rounds; ++r) span.report(static_cast<double>(r) / rounds);
}

TEST(ProgressMeter, AbandonedAttemptAndRerunStayMonotone) {
  std::vector<double> seen;
  ProgressMeter meter([&](double f) { seen.push_back(f); });
  const ProgressSpan whole = meter.whole();
  run_stage(whole.part(0, 1.0 / 3), 10);  // the attempt, then its certificate fails
  run_stage(whole.rest(), 7);             // the rerun covers what is left
  meter.finish();
  EXPECT_EQ(test::check_progress(seen), "");
  EXPECT_DOUBLE_EQ(seen.at(9), 1.0 / 3);
  EXPECT_EQ(seen.size(), 17u);  // finish() repeats nothing: the rerun ended at 1.0
}

TEST(ProgressMeter, ASecondRunFromZeroNeverGoesBack) {
  std::vector<double> seen;
  ProgressMeter meter([&](double f) { seen.push_back(f); });
  run_stage(meter.whole(), 5);
  run_stage(meter.whole(), 5);  // a stage that restarts from 0 shows nothing new
  meter.finish();
  EXPECT_EQ(test::check_progress(seen), "");
  EXPECT_EQ(seen.size(), 5u);
}

TEST(ProgressMeter, NestedSpansAndASuccessfulAttemptJumpToTheEnd) {
  std::vector<double> seen;
  ProgressMeter meter([&](double f) { seen.push_back(f); });
  const ProgressSpan gpu = meter.whole().part(0, 0.5);  // a GPU attempt the CPU may take over
  run_stage(gpu.part(0, 1.0 / 3), 4);                   // its int16 attempt succeeds
  meter.finish();
  EXPECT_EQ(test::check_progress(seen), "");
  EXPECT_DOUBLE_EQ(seen.at(3), 0.5 / 3);
  EXPECT_EQ(seen.back(), 1.0);
}

TEST(ProgressMeter, NobodyListening) {
  ProgressMeter meter(nullptr);
  EXPECT_FALSE(meter.whole());
  EXPECT_FALSE(ProgressSpan());
  run_stage(meter.whole(), 3);
  meter.finish();
  EXPECT_EQ(meter.shown(), 0.0);
  ProgressMeter listened([](double) {});
  EXPECT_TRUE(listened.whole().part(0.2, 0.4));
}

}  // namespace
}  // namespace apsp
