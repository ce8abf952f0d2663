// Agreement on errors across ranks (apsp::agree, apsp/comm.hpp).
#include <climits>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"

namespace apsp {
namespace {

// What travels from the failing rank: the error's type, its vertex (negative
// cycles), message and option (usage errors).
enum class Kind : std::int64_t { usage, input, negative_cycle, overflow, resource, other };

struct Failure {
  Kind kind = Kind::other;
  std::int64_t vertex = -1;
  std::string message;
  std::string option;
};

Failure describe_current_exception() {
  Failure f;
  try {
    throw;
  } catch (const NegativeCycleError& e) {
    f.kind = Kind::negative_cycle;
    f.vertex = e.vertex();
    f.message = e.what();
  } catch (const OverflowError& e) {
    f.kind = Kind::overflow;
    f.message = e.what();
  } catch (const InputError& e) {
    f.kind = Kind::input;
    f.message = e.what();
  } catch (const UsageError& e) {
    f.kind = Kind::usage;
    f.message = e.what();
    f.option = e.option();
  } catch (const ResourceError& e) {
    f.kind = Kind::resource;
    f.message = e.what();
  } catch (const Error& e) {
    f.message = e.what();
  } catch (const std::bad_alloc&) {
    f.kind = Kind::resource;
    f.message = "out of memory";
  } catch (const std::exception& e) {
    f.message = std::string("internal error: ") + e.what();
  } catch (...) {
    f.message = "internal error: unknown exception";
  }
  return f;
}

void broadcast_text(Communicator& comm, std::string& text, int root) {
  std::int64_t length = static_cast<std::int64_t>(text.size());
  comm.broadcast(&length, 1, root);
  text.resize(static_cast<std::size_t>(length));
  std::vector<std::uint8_t> bytes(text.begin(), text.end());
  comm.broadcast(bytes.data(), bytes.size(), root);
  text.assign(bytes.begin(), bytes.end());
}

// `origin` -1: every rank failed, so no rank is named.
[[noreturn]] void throw_agreed(const Failure& f, int origin) {
  const std::string message = origin >= 0 ? "rank " + std::to_string(origin) + ": " + f.message : f.message;
  switch (f.kind) {
    case Kind::usage: throw Agreed<UsageError>(origin, message, f.option);
    case Kind::input: throw Agreed<InputError>(origin, message);
    case Kind::negative_cycle: throw Agreed<NegativeCycleError>(origin, f.vertex);
    case Kind::overflow: throw Agreed<OverflowError>(origin, message);
    case Kind::resource: throw Agreed<ResourceError>(origin, message);
    case Kind::other: break;
  }
  throw Agreed<Error>(origin, message);
}

// Collective: rank `root`'s failure on every rank, thrown as Agreed with
// `origin` (-1: no rank named).
[[noreturn]] void throw_from(Communicator& comm, Failure failure, int root, int origin) {
  std::int64_t header[2] = {static_cast<std::int64_t>(failure.kind), failure.vertex};
  comm.broadcast(header, 2, root);
  failure.kind = static_cast<Kind>(header[0]);
  failure.vertex = header[1];
  broadcast_text(comm, failure.message, root);
  broadcast_text(comm, failure.option, root);
  throw_agreed(failure, origin);
}

}  // namespace

void agree_from(Communicator& comm, int root, const std::function<void()>& step) {
  Failure failure;
  std::int64_t failed = 0;
  if (comm.rank() == root) {
    try {
      step();
    } catch (...) {
      failure = describe_current_exception();
      failed = 1;
    }
  }
  comm.broadcast(&failed, 1, root);
  if (failed != 0) throw_from(comm, failure, root, -1);
}

void agree(Communicator& comm, const std::function<void()>& step) {
  Failure failure;
  bool failed = false;
  try {
    step();
  } catch (const AgreedFailure&) {
    throw;  // thrown by an agreement inside `step`: every rank has it already
  } catch (...) {
    failure = describe_current_exception();
    failed = true;
  }
  const std::int32_t origin = comm.all_reduce(failed ? comm.rank() : INT_MAX, ReduceOp::min);
  if (origin == INT_MAX) return;
  const bool everywhere = comm.all_reduce(std::int32_t{failed}, ReduceOp::sum) == comm.size();
  throw_from(comm, failure, origin, everywhere ? -1 : origin);
}

}  // namespace apsp
