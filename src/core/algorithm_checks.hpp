// Checks of an algorithm name and of the options it must honour, against a
// list of registry entries: one home for every backend's messages. The
// backends pass their own entries (cpu::detail::cpu_algorithm_infos,
// cuda::gpu_algorithm_infos); the solve layer passes the whole registry
// (apsp::algorithm_registry, include/apsp/registry.hpp), so that a message
// may name the algorithms of either backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/registry.hpp"
#include "apsp/solver.hpp"

namespace apsp {

// The entry of `entries` called `name`, or nullptr.
const AlgorithmInfo* find_algorithm_in(const std::vector<AlgorithmInfo>& entries, const std::string& name);

// "a, b and c": the names of the entries for which `trait` holds, in order.
std::string names_where(const std::vector<AlgorithmInfo>& entries, bool (*trait)(const AlgorithmInfo&));

// UsageError (option "algorithm") for a name `backend` does not have; lists
// the names of `entries` it has. For Backend::automatic, names of either
// backend count.
[[noreturn]] void throw_unknown_algorithm(const std::string& name, Backend backend,
                                          const std::vector<AlgorithmInfo>& entries);

// Throws UsageError (option "threads") unless 0 <= threads <= kMaxThreads.
void require_thread_count(int threads);

// Throws UsageError naming the option (SolveOptions field) that the
// algorithm `name` on `backend` (cpu or cuda) would not honour: predecessors,
// precision int16 or a block shape; "auto" must honour them in every choice
// it may make (the production entries of `backend`). Throws the
// unknown-algorithm error for a name `entries` lacks. Checks opts.threads
// too (require_thread_count). Cheap: call it before any work.
void require_options_honoured(const std::string& name, Backend backend, const SolveOptions& opts,
                              const std::vector<AlgorithmInfo>& entries);

// True for the algorithms that compute rows of chosen sources only
// (SolveOptions::sources): the per-source and separator (supernodal) ones.
bool takes_sources(const AlgorithmInfo& a);

// Throws UsageError (option "sources") when opts.sources is not empty and
// `resolved` (an algorithm name, "auto" resolved) on `backend` does not
// compute rows of chosen sources (only the per-source CPU algorithms do), or
// when a source is outside 0..n-1. Call it once the algorithm is resolved.
void require_sources_honoured(const std::string& resolved, Backend backend, std::int64_t n, const SolveOptions& opts,
                              const std::vector<AlgorithmInfo>& entries);

// Whether `resolved` on `backend` computes the rows of chosen sources only
// (the criterion require_sources_honoured applies); an algorithm that does
// not computes every row, of which the solve layer keeps the chosen ones.
bool computes_chosen_rows(const std::string& resolved, Backend backend, const std::vector<AlgorithmInfo>& entries);

// Throws UsageError (option `option`: "sources", "targets") naming the first
// vertex of `vertices` outside 0..n-1 and its entry.
void require_vertices_in_range(const std::vector<vertex_t>& vertices, std::int64_t n, const char* option);

}  // namespace apsp
