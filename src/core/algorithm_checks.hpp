// Checks of an algorithm name and of the options it must honour, against the
// registry (include/apsp/registry.hpp): one home for both backends' messages.
#pragma once

#include <cstdint>
#include <string>

#include "apsp/registry.hpp"
#include "apsp/solver.hpp"

namespace apsp {

// UsageError (option "algorithm") for a name `backend` does not have; lists
// the names it has. For Backend::automatic, names of either backend count.
[[noreturn]] void throw_unknown_algorithm(const std::string& name, Backend backend);

// The entry "auto" stands for on `backend` when every choice honours the
// same options: the GPU's production solver. Null on the CPU, where "auto"
// picks among several (see require_options_honoured).
const AlgorithmInfo* gpu_auto_algorithm();

// Throws UsageError (option "threads") unless 0 <= threads <= kMaxThreads.
void require_thread_count(int threads);

// Throws UsageError naming the option (SolveOptions field) that the
// algorithm `name` on `backend` (cpu or cuda) would not honour: predecessors,
// precision int16 or a block shape; "auto" must honour them in every choice
// it may make. Throws the unknown-algorithm error for a name the backend
// does not have. Checks opts.threads too (require_thread_count). Cheap: call
// it before any work.
void require_options_honoured(const std::string& name, Backend backend, const SolveOptions& opts);

// Throws UsageError (option "sources") when opts.sources is not empty and
// `resolved` (an algorithm name, "auto" resolved) on `backend` does not
// compute rows of chosen sources (only the per-source CPU algorithms do), or
// when a source is outside 0..n-1. Call it once the algorithm is resolved.
void require_sources_honoured(const std::string& resolved, Backend backend, std::int64_t n, const SolveOptions& opts);

}  // namespace apsp
