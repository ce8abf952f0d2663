// `apsp`: solve, generate, verify and query all-pairs shortest paths.
// Exit codes: 0 ok, 1 usage, 2 bad input or negative cycle, 3 out of memory,
// a failed write or another resource, 4 internal error (apsp::ExitCode; the
// README's table). Every error is one line on stderr.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "apsp/error.hpp"
#include "cli.hpp"

int main(int argc, char** argv) {
  try {
    CLI::App app{"All-pairs shortest paths on the CPU and on CUDA GPUs", "apsp"};
    app.require_subcommand(0, 1);
    const std::vector<apsp::cli::Command> commands = {
        apsp::cli::add_solve_command(app), apsp::cli::add_gen_command(app), apsp::cli::add_verify_command(app),
        apsp::cli::add_path_command(app), apsp::cli::add_info_command(app)};
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app.exit(e);  // --help
      return apsp::cli::report_error(e.what() + std::string(" (see apsp --help)"), apsp::ExitCode::usage);
    }
    for (const auto& command : commands)
      if (command.parser->parsed()) {
        command.run();
        return static_cast<int>(apsp::ExitCode::ok);
      }
    throw apsp::UsageError("a subcommand is required: solve, gen, verify, path or info (see apsp --help)");
  } catch (const apsp::cli::ExitStatus& status) {
    return status.code;  // already reported
  } catch (...) {
    return apsp::cli::report_current_exception();
  }
}
