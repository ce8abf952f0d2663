// apsp verify GRAPH DIST: certificate check of a distance matrix, read in
// place where the file allows (a mapped .bin, bin-f32 / bin-f64 or C-order
// .npy of the weight type is not copied). Real-valued distances are checked
// within verify's rounding tolerance, stated on the "ok" line.
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "apsp/error.hpp"
#include "apsp/verify.hpp"
#include "cli.hpp"
#include "progress.hpp"

namespace apsp::cli {
namespace {

struct VerifyArgs {
  GraphInput input;
  DistancesInput distances;
  std::string weights = "auto";
};

void run_verify(const VerifyArgs& a) {
  const AnyGraphWithDistances loaded = load_graph_with_distances(a.input, a.weights, a.distances);
  VerifyReport report;
  WeightType type = WeightType::int32;
  std::visit(
      [&](const auto& gd) {
        type = weight_type_of<typename std::decay_t<decltype(gd.graph)>::weight_type>;
        ProgressBar bar;
        report = verify(gd.graph, gd.distances->cells(), [&](double f) { bar.draw("verifying", f); });
      },
      loaded);
  if (!report.ok) throw InputError(report.first_violation, a.distances.path);
  if (report.relative_tolerance > 0)
    std::printf("ok (within %.3g relative: n * epsilon(%s))\n", report.relative_tolerance, to_string(type));
  else
    std::printf("ok\n");
}

}  // namespace

Command add_verify_command(CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* cmd = app.add_subcommand("verify", "Check a distance matrix against its graph in O(n*m)");
  add_graph_input_options(*cmd, args->input, "GRAPH");
  add_distances_input_options(*cmd, args->distances);
  add_weights_option(*cmd, args->weights);
  return Command{cmd, [args] { run_verify(*args); }};
}

}  // namespace apsp::cli
