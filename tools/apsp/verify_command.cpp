// apsp verify GRAPH DIST: certificate check of a distance matrix.
#include <cstdio>
#include <memory>
#include <string>

#include "apsp/error.hpp"
#include "apsp/verify.hpp"
#include "cli.hpp"

namespace apsp::cli {
namespace {

struct VerifyArgs {
  GraphInput input;
  std::string distances;
};

void run_verify(const VerifyArgs& a) {
  const LoadedGraph loaded = load_graph(a.input);
  const auto d = load_square_matrix(a.distances, loaded.normalized.n, "distance");
  const VerifyReport report = verify(loaded.normalized, d);
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
