// The registry of algorithms: one entry per algorithm of either backend, with
// the traits that tools, tests, benchmarks and documentation read (apsp info,
// the CLI's updates/s line, the option checks of solve(), the GPU test and
// benchmark suites, the README's kernel table). Host-safe.
#pragma once

#include <string>
#include <vector>

#include "apsp/solver.hpp"

namespace apsp {

// How an algorithm's work grows with n vertices and m edges.
enum class Work {
  cubic,       // n^3 relaxations: Floyd-Warshall and its blocked and GPU variants (updates/s = n^3 / time)
  cubic_log,   // n^3 log n: repeated min-plus squaring
  per_source,  // one single-source search per vertex: O(n * m) and up
  separators,  // nested-dissection elimination: a factor of sum (k + s)^2 k over supernodes, then n * nnz(L) for the rows
};

// What an algorithm is kept for.
enum class Role {
  production,  // chosen by "auto", or the best at something
  teaching,    // a step of the kernel ladder or a reference: benchmarks, tests, lessons
};

struct AlgorithmInfo {
  const char* name;  // as given to SolveOptions::algorithm; unique within its backend (a name on
                     // both, such as supernodal, is one algorithm with a CPU and a GPU implementation)
  Backend backend;   // Backend::cpu or Backend::cuda
  Work work;
  Role role;
  bool takes_predecessors;  // honours SolveOptions::predecessors
  bool takes_int16;         // honours Precision::int16 (the others compute in int32 or wider)
  bool takes_block;         // honours SolveOptions::block
  bool takes_real;          // solves float32 and float64 graphs (the others take int32 weights only)
  bool distributable;       // what the distributed solver runs on its backend (blocked Floyd-Warshall on
                            // tiles, include/apsp/distributed.hpp); its name may be given under mpirun
  bool available;           // compiled into this build (CUDA entries need nvcc)
  bool int64_labels = false;  // computes int32-weighted graphs in int64 labels only, never int32
                              // (the label-correcting bellman-ford and johnson)
};

// The weight types `a` solves (Graph, GraphF32, GraphF64): int32, then
// float32 and float64 where it takes_real.
std::vector<WeightType> weight_types(const AlgorithmInfo& a);
// The integer widths `a` may compute an int32-weighted graph in (what
// SolveSummary::precision reports), narrowest first: int16 where it
// takes_int16, int32 unless int64_labels, and int64 on the CPU (the GPU
// computes in int32 at most). Real weights compute in their own type.
std::vector<Precision> precisions(const AlgorithmInfo& a);

// Every algorithm: the CPU ones, then the CUDA ones, in the order `apsp info`
// lists them. CUDA entries are present in builds without CUDA, unavailable.
const std::vector<AlgorithmInfo>& algorithm_registry();

// The entry called `name` (any backend; the CPU's first for a name on both:
// what an explicit name without a backend runs on), or nullptr.
const AlgorithmInfo* find_algorithm(const std::string& name);
// The entry called `name` on `backend`, or nullptr.
const AlgorithmInfo* find_algorithm(const std::string& name, Backend backend);
// The first production entry of `backend` whose work grows as `work` (for
// example the production dense solver: Work::cubic), or nullptr.
const AlgorithmInfo* find_production(Backend backend, Work work);

const char* to_string(Work w);
const char* to_string(Role r);

}  // namespace apsp
