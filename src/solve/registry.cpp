// The public algorithm registry: the CPU table (src/cpu/cpu.cpp) and the GPU
// table (src/cuda/registry.cpp), read as one list of traits. It lives in the
// solve layer, above both backends; each backend checks names and options
// against its own entries (core/algorithm_checks.hpp).
#include "apsp/registry.hpp"

#include "core/algorithm_checks.hpp"
#include "cpu/backend.hpp"
#include "cuda/algorithm.hpp"

namespace apsp {

const std::vector<AlgorithmInfo>& algorithm_registry() {
  static const std::vector<AlgorithmInfo> all = [] {
    std::vector<AlgorithmInfo> list;
    for (const AlgorithmInfo& a : cpu::detail::cpu_algorithm_infos()) list.push_back(a);
    for (const AlgorithmInfo& a : cuda::gpu_algorithm_infos()) list.push_back(a);
    return list;
  }();
  return all;
}

const AlgorithmInfo* find_algorithm(const std::string& name) { return find_algorithm_in(algorithm_registry(), name); }

const AlgorithmInfo* find_algorithm(const std::string& name, Backend backend) {
  for (const AlgorithmInfo& a : algorithm_registry())
    if (name == a.name && a.backend == backend) return &a;
  return nullptr;
}

const AlgorithmInfo* find_production(Backend backend, Work work) {
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.backend == backend && a.work == work && a.role == Role::production) return &a;
  return nullptr;
}

std::vector<WeightType> weight_types(const AlgorithmInfo& a) {
  if (a.takes_real) return {WeightType::int32, WeightType::float32, WeightType::float64};
  return {WeightType::int32};
}

std::vector<Precision> precisions(const AlgorithmInfo& a) {
  std::vector<Precision> widths;
  if (a.takes_int16) widths.push_back(Precision::int16);
  if (!a.int64_labels) widths.push_back(Precision::int32);
  if (a.backend == Backend::cpu) widths.push_back(Precision::int64);
  return widths;
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

}  // namespace apsp
