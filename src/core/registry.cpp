// The public algorithm registry: the CPU table (src/cpu/cpu.cpp) and the GPU
// table (src/cuda/registry.cpp), read as one list of traits.
#include "apsp/registry.hpp"

#include "apsp/error.hpp"
#include "core/algorithm_checks.hpp"
#include "cpu/backend.hpp"
#include "cuda/algorithm.hpp"

namespace apsp {

const std::vector<AlgorithmInfo>& algorithm_registry() {
  static const std::vector<AlgorithmInfo> all = [] {
    std::vector<AlgorithmInfo> list;
    for (const cpu::detail::CpuAlgorithm& a : cpu::detail::cpu_algorithm_table()) list.push_back(a.info);
    for (const cuda::GpuAlgorithm& a : cuda::gpu_algorithm_table()) list.push_back(a.info);
    return list;
  }();
  return all;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const AlgorithmInfo& a : algorithm_registry())
    if (name == a.name) return &a;
  return nullptr;
}

const AlgorithmInfo* find_algorithm(const std::string& name, Backend backend) {
  for (const AlgorithmInfo& a : algorithm_registry())
    if (name == a.name && a.backend == backend) return &a;
  return nullptr;
}

const char* to_string(Work w) {
  switch (w) {
    case Work::cubic: return "n^3";
    case Work::cubic_log: return "n^3 log n";
    case Work::per_source: return "per source";
    case Work::separators: return "separators";
  }
  return "?";
}

const char* to_string(Role r) {
  switch (r) {
    case Role::production: return "production";
    case Role::teaching: return "teaching";
  }
  return "?";
}

void throw_unknown_algorithm(const std::string& name, Backend backend) {
  std::string known;
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.available && (backend == Backend::automatic || a.backend == backend))
      known += std::string(known.empty() ? "" : ", ") + a.name;
  const char* which = backend == Backend::cpu ? "CPU " : backend == Backend::cuda ? "CUDA " : "";
  throw UsageError(std::string("unknown ") + which + "algorithm '" + name + "' (" +
                       (known.empty() ? "this build has none" : "expected auto, " + known) + ")",
                   "algorithm");
}

const AlgorithmInfo* gpu_auto_algorithm() {
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.backend == Backend::cuda && a.role == Role::production) return &a;
  return nullptr;
}

namespace {

// Whether a CPU algorithm computes the rows of chosen sources only
// (SolveOptions::sources): the per-source searches and supernodal's row solve.
bool takes_sources(const AlgorithmInfo& a) { return a.work == Work::per_source || a.work == Work::separators; }

// The algorithms "name" may run as on `backend`: itself, or for "auto" the
// production entries of the backend.
std::vector<const AlgorithmInfo*> candidates(const std::string& name, Backend backend) {
  std::vector<const AlgorithmInfo*> found;
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.backend == backend && (name == "auto" ? a.role == Role::production : name == a.name)) found.push_back(&a);
  return found;
}

// "a, b and c": the algorithms on `backend` (any backend for automatic) with
// a trait, production ones only when `production_only`.
template <class Trait>
std::string names_with(Trait trait, Backend backend, bool production_only) {
  std::vector<const char*> names;
  for (const AlgorithmInfo& a : algorithm_registry())
    if (trait(a) && (backend == Backend::automatic || a.backend == backend) &&
        (!production_only || a.role == Role::production))
      names.push_back(a.name);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += std::string(i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

}  // namespace

void require_options_honoured(const std::string& name, Backend backend, const SolveOptions& opts) {
  const std::vector<const AlgorithmInfo*> runs_as = candidates(name, backend);
  if (runs_as.empty()) throw_unknown_algorithm(name, backend);
  const std::string who = name != "auto" ? "'" + name + "'"
                          : backend == Backend::cpu ? std::string("the CPU backend")
                                                    : "'" + std::string(runs_as.front()->name) + "'";
  for (const AlgorithmInfo* a : runs_as) {
    if (opts.predecessors && !a->takes_predecessors) {
      const std::string tracking =
          names_with([](const AlgorithmInfo& x) { return x.takes_predecessors; }, backend, true);
      throw UsageError(who + " does not track predecessors (" + tracking +
                           (tracking.find(" and ") == std::string::npos ? " does)" : " do)"),
                       "predecessors");
    }
    if (opts.precision == Precision::int16 && !a->takes_int16)
      throw UsageError(who + " computes in int32 or wider only; int16 is a mode of " +
                           names_with([](const AlgorithmInfo& x) { return x.takes_int16; }, Backend::automatic, false),
                       "precision");
    if ((opts.block.x != 0 || opts.block.y != 0) && !a->takes_block)
      throw UsageError(who + " has a fixed thread-block shape; only " +
                           names_with([](const AlgorithmInfo& x) { return x.takes_block; }, Backend::automatic, false) +
                           " takes one",
                       "block");
  }
}

void require_sources_honoured(const std::string& resolved, Backend backend, std::int64_t n, const SolveOptions& opts) {
  if (opts.sources.empty()) return;
  const AlgorithmInfo* a = find_algorithm(resolved);
  if (a == nullptr || backend != Backend::cpu || a->backend != Backend::cpu || !takes_sources(*a))
    throw UsageError("'" + resolved + "' computes the rows of every source; rows of chosen sources come from " +
                         names_with([](const AlgorithmInfo& x) { return takes_sources(x); }, Backend::cpu,
                                    false),
                     "sources");
  for (std::size_t r = 0; r < opts.sources.size(); ++r)
    if (opts.sources[r] < 0 || opts.sources[r] >= n)
      throw UsageError("source " + std::to_string(opts.sources[r]) + " (entry " + std::to_string(r) +
                           ") is outside the graph's vertices 0.." + std::to_string(n - 1),
                       "sources");
}

}  // namespace apsp
