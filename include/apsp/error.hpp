// Typed errors thrown by the library. The library never prints and never exits;
// only the CLI's main() turns these into a message and an exit code.
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace apsp {

// Exit codes the CLI maps errors to (the README's table; a test holds the
// two together). internal: an exception that is no apsp::Error nor a
// failed allocation, i.e. a bug, never reported as bad input.
enum class ExitCode : int { ok = 0, usage = 1, bad_input = 2, resource = 3, internal = 4 };

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
  virtual ExitCode exit_code() const { return ExitCode::bad_input; }
};

// A bad option combination or an unknown name (algorithm, format, backend).
// `option` names the library parameter at fault in the library's own terms
// (the SolveOptions field: "precision", "block", "backend", "algorithm", ...),
// or is empty. The message never quotes a command-line flag: a front end adds
// its own spelling of `option` when it reports the error (the CLI prints
// "--precision: <message>").
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what, std::string option = {}) : Error(what), option_(std::move(option)) {}
  ExitCode exit_code() const override { return ExitCode::usage; }
  const std::string& option() const { return option_; }

 private:
  std::string option_;
};

// Malformed, truncated or out-of-range input. `location` is "file:line" or
// "file@byte-offset" when known, else empty.
class InputError : public Error {
 public:
  InputError(const std::string& what, std::string location = {})
      : Error(location.empty() ? what : location + ": " + what), location_(std::move(location)) {}
  const std::string& location() const { return location_; }

 private:
  std::string location_;
};

class NegativeCycleError : public InputError {
 public:
  explicit NegativeCycleError(std::int64_t vertex)
      : InputError("negative cycle through vertex " + std::to_string(vertex)), vertex_(vertex) {}
  std::int64_t vertex() const { return vertex_; }

 private:
  std::int64_t vertex_;
};

// A distance that cannot be represented in the int32 output, or weights whose
// sums could overflow the arithmetic a backend uses.
class OverflowError : public InputError {
 public:
  using InputError::InputError;
};

// The arithmetic of one backend cannot hold this graph's distances, which may
// still fit the int32 output: the GPU computes Johnson-reweighted distances
// in int32 and certifies the range afterwards. The CPU, computing in int64,
// may solve the graph; solve() with Backend::automatic falls back to it.
class ArithmeticRangeError : public OverflowError {
 public:
  using OverflowError::OverflowError;
};

// A result that fails the O(n*m) certificate (SolveOptions::verify, `apsp
// verify`): the message names the first violation.
class VerifyError : public Error {
 public:
  explicit VerifyError(const std::string& violation) : Error("verify failed: " + violation) {}
};

// Out of host or device memory, or another resource limit (no device, etc.).
class ResourceError : public Error {
 public:
  using Error::Error;
  ExitCode exit_code() const override { return ExitCode::resource; }
};

// A failed CUDA / NCCL / MPI call: carries the call text and where it was made.
class DeviceError : public ResourceError {
 public:
  DeviceError(const std::string& call, const std::string& message, const char* file, int line)
      : ResourceError(call + " failed: " + message + " (" + file + ":" + std::to_string(line) + ")"), call_(call) {}
  const std::string& call() const { return call_; }

 private:
  std::string call_;
};

// The caller stopped the solve: its SolveOptions::progress callback threw
// this (the Python module does on Ctrl-C and maps it to KeyboardInterrupt).
class Cancelled : public Error {
 public:
  Cancelled() : Error("the solve was cancelled") {}
};

// The exit code of any exception: an apsp::Error's own; out of memory
// (std::bad_alloc, std::length_error from a size no container can hold):
// resource; anything else: internal.
inline ExitCode exit_code_of(const std::exception& e) noexcept {
  if (const auto* error = dynamic_cast<const Error*>(&e)) return error->exit_code();
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr || dynamic_cast<const std::length_error*>(&e) != nullptr)
    return ExitCode::resource;
  return ExitCode::internal;
}

}  // namespace apsp
