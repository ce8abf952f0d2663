// `apsp`: solve, generate, verify and query all-pairs shortest paths.
// Exit codes: 0 ok, 1 usage, 2 bad input or negative cycle, 3 out of memory
// or another resource (see README.md). Every error is one line on stderr.
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "apsp/error.hpp"
#include "cli.hpp"

namespace {

int report(const std::string& message, apsp::ExitCode code) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "apsp: %s\n", line.c_str());
  return static_cast<int>(code);
}

}  // namespace

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
      return report(e.what() + std::string(" (see apsp --help)"), apsp::ExitCode::usage);
    }
    for (const auto& command : commands)
      if (command.parser->parsed()) {
        command.run();
        return static_cast<int>(apsp::ExitCode::ok);
      }
    throw apsp::UsageError("a subcommand is required: solve, gen, verify, path or info (see apsp --help)");
  } catch (const apsp::UsageError& e) {
    // The library names the parameter; the CLI spells it as its flag.
    // The flags are the field names with '-' for '_', except --algo.
    std::string option = e.option() == "algorithm" ? "algo" : e.option();
    for (char& c : option)
      if (c == '_') c = '-';
    return report(option.empty() ? e.what() : "--" + option + ": " + e.what(), e.exit_code());
  } catch (const apsp::Error& e) {
    return report(e.what(), e.exit_code());
  } catch (const std::bad_alloc&) {
    return report("out of memory", apsp::ExitCode::resource);
  } catch (const std::length_error& e) {
    return report(std::string("out of memory: ") + e.what(), apsp::ExitCode::resource);
  } catch (const std::exception& e) {
    return report(std::string("internal error: ") + e.what(), apsp::ExitCode::bad_input);
  } catch (...) {
    return report("internal error: unknown exception", apsp::ExitCode::bad_input);
  }
}
