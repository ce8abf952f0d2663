// Checks of algorithm names and options against a list of registry entries
// (core/algorithm_checks.hpp).
#include "core/algorithm_checks.hpp"

#include "apsp/error.hpp"

namespace apsp {

const AlgorithmInfo* find_algorithm_in(const std::vector<AlgorithmInfo>& entries, const std::string& name) {
  for (const AlgorithmInfo& a : entries)
    if (name == a.name) return &a;
  return nullptr;
}

std::string names_where(const std::vector<AlgorithmInfo>& entries, bool (*trait)(const AlgorithmInfo&)) {
  std::vector<const char*> names;
  for (const AlgorithmInfo& a : entries)
    if (trait(a)) names.push_back(a.name);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += std::string(i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

void throw_unknown_algorithm(const std::string& name, Backend backend, const std::vector<AlgorithmInfo>& entries) {
  std::string known;
  for (const AlgorithmInfo& a : entries)
    if (a.available && (backend == Backend::automatic || a.backend == backend))
      known += std::string(known.empty() ? "" : ", ") + a.name;
  const char* which = backend == Backend::cpu ? "CPU " : backend == Backend::cuda ? "CUDA " : "";
  throw UsageError(std::string("unknown ") + which + "algorithm '" + name + "' (" +
                       (known.empty() ? "this build has none" : "expected auto, " + known) + ")",
                   "algorithm");
}

// The per-source searches and supernodal's row solve.
bool takes_sources(const AlgorithmInfo& a) { return a.work == Work::per_source || a.work == Work::separators; }

namespace {

// The algorithms "name" may run as on `backend`: itself, or for "auto" the
// production entries of the backend.
std::vector<const AlgorithmInfo*> candidates(const std::string& name, Backend backend,
                                             const std::vector<AlgorithmInfo>& entries) {
  std::vector<const AlgorithmInfo*> found;
  for (const AlgorithmInfo& a : entries)
    if (a.backend == backend && (name == "auto" ? a.role == Role::production : name == a.name)) found.push_back(&a);
  return found;
}

// "a, b and c": the algorithms on `backend` (any backend for automatic) with
// a trait, production ones only when `production_only`.
template <class Trait>
std::string names_with(const std::vector<AlgorithmInfo>& entries, Trait trait, Backend backend, bool production_only) {
  std::vector<AlgorithmInfo> kept;
  for (const AlgorithmInfo& a : entries)
    if (trait(a) && (backend == Backend::automatic || a.backend == backend) &&
        (!production_only || a.role == Role::production))
      kept.push_back(a);
  return names_where(kept, [](const AlgorithmInfo&) { return true; });
}

// A list of names from names_with, or what to say when `entries` (one
// backend's own) has none: the algorithms with the trait are elsewhere.
std::string or_elsewhere(const std::string& names) { return names.empty() ? "another backend's algorithms" : names; }

}  // namespace

void require_thread_count(int threads) {
  if (threads < 0 || threads > kMaxThreads)
    throw UsageError("must be 0 (the OpenMP default) or a count of at most " + std::to_string(kMaxThreads) + ", got " +
                         std::to_string(threads),
                     "threads");
}

void require_options_honoured(const std::string& name, Backend backend, const SolveOptions& opts,
                              const std::vector<AlgorithmInfo>& entries) {
  require_thread_count(opts.threads);
  const std::vector<const AlgorithmInfo*> runs_as = candidates(name, backend, entries);
  if (runs_as.empty()) throw_unknown_algorithm(name, backend, entries);
  const std::string who = name != "auto"            ? "'" + name + "'"
                          : backend == Backend::cpu ? std::string("the CPU backend")
                                                    : "'" + std::string(runs_as.front()->name) + "'";
  for (const AlgorithmInfo* a : runs_as) {
    if (opts.predecessors && !a->takes_predecessors) {
      const std::string tracking = names_with(
          entries, [](const AlgorithmInfo& x) { return x.takes_predecessors; }, backend, true);
      throw UsageError(who + " does not track predecessors (" + tracking +
                           (tracking.find(" and ") == std::string::npos ? " does)" : " do)"),
                       "predecessors");
    }
    if (opts.precision == Precision::int16 && !a->takes_int16)
      throw UsageError(
          who + " computes in int32 or wider only; int16 is a mode of " +
              or_elsewhere(names_with(
                  entries, [](const AlgorithmInfo& x) { return x.takes_int16; }, Backend::automatic, false)),
          "precision");
    if ((opts.block.x != 0 || opts.block.y != 0) && !a->takes_block)
      throw UsageError(
          who + " has a fixed thread-block shape; only " +
              or_elsewhere(names_with(
                  entries, [](const AlgorithmInfo& x) { return x.takes_block; }, Backend::automatic, false)) +
              " takes one",
          "block");
  }
}

void require_sources_honoured(const std::string& resolved, Backend backend, std::int64_t n, const SolveOptions& opts,
                              const std::vector<AlgorithmInfo>& entries) {
  if (opts.sources.empty()) return;
  if (!computes_chosen_rows(resolved, backend, entries))
    throw UsageError("'" + resolved + "' computes the rows of every source; rows of chosen sources come from " +
                         names_with(
                             entries, [](const AlgorithmInfo& x) { return takes_sources(x); }, Backend::cpu, false),
                     "sources");
  require_vertices_in_range(opts.sources, n, "sources");
}

bool computes_chosen_rows(const std::string& resolved, Backend backend, const std::vector<AlgorithmInfo>& entries) {
  const AlgorithmInfo* a = find_algorithm_in(entries, resolved);
  return a != nullptr && backend == Backend::cpu && a->backend == Backend::cpu && takes_sources(*a);
}

void require_vertices_in_range(const std::vector<vertex_t>& vertices, std::int64_t n, const char* option) {
  const std::string what = std::string(option) == "sources" ? "source " : "target ";
  for (std::size_t r = 0; r < vertices.size(); ++r)
    if (vertices[r] < 0 || vertices[r] >= n)
      throw UsageError(what + std::to_string(vertices[r]) + " (entry " + std::to_string(r) +
                           ") is outside the graph's vertices 0.." + std::to_string(n - 1),
                       option);
}

}  // namespace apsp
