// `apsp`: solve, generate, verify and query all-pairs shortest paths.
// Exit codes: 0 ok, 1 usage, 2 bad input or negative cycle, 3 out of memory,
// a failed write or another resource, 4 internal error (apsp::ExitCode; the
// README's table). Every error is one line on stderr.
#include <signal.h>

#include <csignal>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "apsp/error.hpp"
#include "apsp/io.hpp"
#include "cli.hpp"

namespace {

// SIGINT, SIGTERM (mpirun passes it to its ranks) and SIGHUP: the named
// temporaries of the outputs are removed, then the signal ends the process
// as it would have.
void remove_temporaries_and_die(int signal_number) {
  apsp::io::remove_temporaries_on_signal();
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void install_signal_handlers() {
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_die;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
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
