// apsp verify GRAPH DIST: certificate check of a distance matrix, read in
// place where the file allows (a mapped .bin or int32 .npy is not copied).
#include <cstdio>
#include <memory>
#include <string>

#include "apsp/error.hpp"
#include "apsp/verify.hpp"
#include "cli.hpp"
#include "progress.hpp"

namespace apsp::cli {
namespace {

struct VerifyArgs {
  GraphInput input;
  std::string distances;
};

void run_verify(const VerifyArgs& a) {
  const LoadedGraph loaded = load_graph(a.input);
  const auto d = open_square_matrix(a.distances, loaded.normalized.n, "distance");
  VerifyReport report;
  {
    ProgressBar bar;
    report = verify(loaded.normalized, d->cells(), [&](double f) { bar.draw("verifying", f); });
  }
  if (!report.ok) throw InputError(report.first_violation, a.distances);
  std::printf("ok\n");
}

}  // namespace

Command add_verify_command(CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* cmd = app.add_subcommand("verify", "Check a distance matrix against its graph in O(n*m)");
  add_graph_input_options(*cmd, args->input, "GRAPH");
  cmd->add_option("DIST", args->distances, "Distance matrix (.bin .npy .txt)")->required();
  return Command{cmd, [args] { run_verify(*args); }};
}

}  // namespace apsp::cli
