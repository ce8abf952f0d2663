// The algorithm registry (apsp/registry.hpp): its invariants, the README's
// kernel table against it, and the option checks solve() makes from it
// before any work (they run without a GPU, in builds with and without CUDA).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "apsp/cpu.hpp"
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/registry.hpp"
#include "apsp/solver.hpp"
#include "support/cases.hpp"

namespace apsp {
namespace {

// Names are unique within a backend; a name on both backends (supernodal)
// resolves to the CPU's entry unless the backend is named.
TEST(Registry, NamesAreUniqueAndBackendsMatchTheirLists) {
  std::set<std::pair<std::string, Backend>> names;
  std::vector<std::string> cpu_names, cuda_names;
  for (const AlgorithmInfo& a : algorithm_registry()) {
    EXPECT_TRUE(names.insert({a.name, a.backend}).second) << "duplicate name " << a.name;
    EXPECT_NE(std::string(a.name), "auto");
    ASSERT_TRUE(a.backend == Backend::cpu || a.backend == Backend::cuda) << a.name;
    if (a.backend == Backend::cpu) {
      EXPECT_TRUE(a.available) << a.name;
      cpu_names.push_back(a.name);
    } else {
      // supernodal also needs the ordering library, as its CPU entry does.
      const AlgorithmInfo* on_cpu = find_algorithm(a.name, Backend::cpu);
      EXPECT_EQ(a.available, cuda::compiled_in() && (on_cpu == nullptr || on_cpu->available)) << a.name;
      if (a.available) cuda_names.push_back(a.name);
    }
    EXPECT_EQ(find_algorithm(a.name, a.backend), &a);
    const AlgorithmInfo* first = find_algorithm(a.name);
    ASSERT_NE(first, nullptr);
    if (first != &a) EXPECT_TRUE(first->backend == Backend::cpu && a.backend == Backend::cuda) << a.name;
  }
  EXPECT_EQ(find_algorithm("fw-quantum"), nullptr);
  EXPECT_EQ(cpu_names, cpu::algorithms());
  EXPECT_EQ(cpu_names, list_algorithms(Backend::cpu));
  EXPECT_EQ(cuda_names, cuda::algorithms());
  EXPECT_EQ(cuda_names, list_algorithms(Backend::cuda));
}

// The weight-type and precision columns that callers read instead of names:
// int32 always, reals with takes_real; int16 with takes_int16, int64 on the
// CPU only, int32 unless the entry always labels in int64 (what each CPU
// algorithm reports is checked in test_cpu_algorithms); and the production
// dense solver of each backend found by its traits.
TEST(Registry, WeightTypeAndPrecisionColumns) {
  const auto has = [](const auto& list, auto value) { return std::count(list.begin(), list.end(), value) == 1; };
  for (const AlgorithmInfo& a : algorithm_registry()) {
    SCOPED_TRACE(a.name);
    const std::vector<WeightType> weights = weight_types(a);
    ASSERT_FALSE(weights.empty());
    EXPECT_EQ(weights.front(), WeightType::int32);
    EXPECT_EQ(has(weights, WeightType::float32), a.takes_real);
    EXPECT_EQ(has(weights, WeightType::float64), a.takes_real);
    const std::vector<Precision> widths = precisions(a);
    ASSERT_FALSE(widths.empty());
    EXPECT_EQ(has(widths, Precision::int16), a.takes_int16);
    EXPECT_EQ(has(widths, Precision::int32), !a.int64_labels);
    EXPECT_EQ(has(widths, Precision::int64), a.backend == Backend::cpu);
    EXPECT_FALSE(has(widths, Precision::automatic));
  }
  ASSERT_NE(find_production(Backend::cpu, Work::cubic), nullptr);
  EXPECT_STREQ(find_production(Backend::cpu, Work::cubic)->name, "fw-blocked");
  ASSERT_NE(find_production(Backend::cuda, Work::cubic), nullptr);
  EXPECT_STREQ(find_production(Backend::cuda, Work::cubic)->name, "fw");
  EXPECT_EQ(find_production(Backend::cuda, Work::cubic_log), nullptr);
}

// The production CUDA entries: fw (the first: what "auto" names when options
// only fw honours are set), fw-ooc (fw from host memory, auto's choice only
// past device memory), sssp and supernodal (auto picks between fw and sssp);
// all track predecessors, fw, fw-ooc and supernodal have the int16 mode.
TEST(Registry, ProductionGpuSolvers) {
  std::vector<const AlgorithmInfo*> production;
  for (const AlgorithmInfo& a : algorithm_registry())
    if (a.backend == Backend::cuda && a.role == Role::production) production.push_back(&a);
  ASSERT_EQ(production.size(), 4u);
  EXPECT_STREQ(production[0]->name, "fw");
  EXPECT_STREQ(production[1]->name, "fw-ooc");
  EXPECT_STREQ(production[2]->name, "sssp");
  EXPECT_STREQ(production[3]->name, "supernodal");
  EXPECT_TRUE(production[3]->takes_int16);  // its int16 working rows
  for (const AlgorithmInfo* a : production) EXPECT_TRUE(a->takes_predecessors) << a->name;
  EXPECT_TRUE(production[0]->takes_int16);
  EXPECT_TRUE(production[1]->takes_int16);
  EXPECT_FALSE(production[1]->takes_real);
  EXPECT_FALSE(production[2]->takes_int16);
  EXPECT_EQ(production[2]->work, Work::per_source);
}

// The distributed solver runs blocked Floyd-Warshall on either backend: one
// distributable entry per backend, a cubic production solver that takes
// predecessors and real weights.
TEST(Registry, OneDistributableEntryPerBackend) {
  std::map<Backend, std::vector<std::string>> distributable;
  for (const AlgorithmInfo& a : algorithm_registry()) {
    if (!a.distributable) continue;
    distributable[a.backend].push_back(a.name);
    EXPECT_EQ(a.work, Work::cubic) << a.name;
    EXPECT_EQ(a.role, Role::production) << a.name;
    EXPECT_TRUE(a.takes_predecessors) << a.name;
  }
  EXPECT_EQ(distributable[Backend::cpu], std::vector<std::string>{"fw-blocked"});
  EXPECT_EQ(distributable[Backend::cuda], std::vector<std::string>{"fw"});
}

// The rows of the README table whose header starts "| Algorithm | Backend |":
// "name backend" -> the other cells, backticks and spaces trimmed.
std::map<std::string, std::vector<std::string>> readme_kernel_table() {
  std::ifstream in(std::string(APSP_SOURCE_DIR) + "/README.md");
  EXPECT_TRUE(in) << "cannot read README.md";
  std::map<std::string, std::vector<std::string>> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| Algorithm | Backend |", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("|", 0) != 0) break;
    if (line.rfind("| ---", 0) == 0) continue;
    std::vector<std::string> cells;
    std::stringstream cells_in(line.substr(1));
    for (std::string cell; std::getline(cells_in, cell, '|');) {
      std::string kept;
      for (char c : cell)
        if (c != '`') kept += c;
      const auto first = kept.find_first_not_of(' '), last = kept.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : kept.substr(first, last - first + 1));
    }
    const std::string key = cells.front() + " " + (cells.size() > 1 ? cells[1] : "");
    EXPECT_FALSE(rows.count(key)) << "README lists " << key << " twice";
    rows[key] = std::vector<std::string>(cells.begin() + 1, cells.end());
  }
  return rows;
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

TEST(Registry, ReadmeKernelTableMatchesTheRegistry) {
  std::map<std::string, std::vector<std::string>> rows = readme_kernel_table();
  ASSERT_FALSE(rows.empty()) << "README.md has no table starting '| Algorithm | Backend |'";
  for (const AlgorithmInfo& a : algorithm_registry()) {
    SCOPED_TRACE(a.name);
    const auto row = rows.find(std::string(a.name) + " " + to_string(a.backend));
    if (row == rows.end()) {
      ADD_FAILURE() << "README's kernel table lacks " << a.name << " on " << to_string(a.backend);
      continue;
    }
    const std::vector<std::string> expected = {to_string(a.backend),  to_string(a.work),
                                               to_string(a.role),     yes_no(a.takes_predecessors),
                                               yes_no(a.takes_int16), yes_no(a.takes_block),
                                               yes_no(a.takes_real),  yes_no(a.distributable)};
    ASSERT_GE(row->second.size(), expected.size());
    EXPECT_EQ(std::vector<std::string>(row->second.begin(), row->second.begin() + expected.size()), expected);
    rows.erase(row);
  }
  for (const auto& extra : rows)
    ADD_FAILURE() << "README's kernel table lists " << extra.first << ", not in the registry";
}

// An option the algorithm cannot honour is a UsageError naming the option,
// raised before any device is looked for: so these run without a GPU.
void expect_refused(const SolveOptions& o, const std::string& option, const std::string& words) {
  SCOPED_TRACE("algorithm " + o.algorithm + ", backend " + to_string(o.backend));
  try {
    solve(test::tile_cases().front().graph, o);
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.option(), option) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << "a library message quotes a flag: " << e.what();
  }
}

// Bug 7: fw-persistent with predecessors used to run the tile-per-block
// kernel's predecessor mode instead, silently.
TEST(Registry, PersistentKernelRefusesPredecessors) {
  SolveOptions o;
  o.algorithm = "fw-persistent";
  o.predecessors = true;
  for (Backend b : {Backend::cuda, Backend::automatic}) {
    o.backend = b;
    expect_refused(o, "predecessors",
                   "'fw-persistent' does not track predecessors (fw, fw-ooc, sssp and supernodal do)");
  }
}

TEST(Registry, EveryAlgorithmRefusesTheOptionsItDoesNotHonour) {
  for (const AlgorithmInfo& a : algorithm_registry()) {
    SolveOptions o;
    o.algorithm = a.name;
    o.backend = a.backend;
    if (!a.takes_predecessors) {
      o.predecessors = true;
      expect_refused(o, "predecessors", "predecessors");
      o.predecessors = false;
    }
    if (!a.takes_int16) {
      o.precision = Precision::int16;
      expect_refused(o, "precision", "int16 is a mode of fw-persistent, fw, fw-ooc and supernodal");
      o.precision = Precision::automatic;
    }
    if (!a.takes_block) {
      o.block = BlockShape{8, 8};
      expect_refused(o, "block", "only naive takes one");
    }
  }
}

TEST(Registry, CpuAutoRefusesGpuOptions) {
  SolveOptions o;
  o.backend = Backend::cpu;
  o.precision = Precision::int16;
  expect_refused(o, "precision", "the CPU backend");
  o.precision = Precision::automatic;
  o.block = BlockShape{16, 16};
  expect_refused(o, "block", "the CPU backend");
}

TEST(Registry, UnknownNamesAreRefusedPerBackend) {
  SolveOptions o;
  o.algorithm = "fw";
  o.backend = Backend::cpu;
  expect_refused(o, "algorithm", "unknown CPU algorithm 'fw'");
  o.algorithm = "dijkstra";
  o.backend = Backend::cuda;
  expect_refused(o, "algorithm", "unknown CUDA algorithm 'dijkstra'");
  o.algorithm = "fw-quantum";
  o.backend = Backend::automatic;
  expect_refused(o, "algorithm", "unknown algorithm 'fw-quantum'");
}

}  // namespace
}  // namespace apsp
