// The supernodal factor's large fronts on the host (no device): the symbolic
// analysis of the GPU benchmark's graphs (bench/families.hpp, the same seeds
// and weights as apsp_bench_gpu_supernodal_bench), and per front of at least
// --min-front vertices (k + s) its level, pivot width k, boundary s, parent,
// and the min-plus work of each piece of the factor (closure k^3, panels
// 2 k^2 s, update k s^2; issue 21's useful work is (k + s)^2 k), then the
// totals the perf notes use: 128-pivot closure rounds on the critical path,
// 128 x 128 update tiles, and the same after supernodal::merge_chains with
// each --merge fraction (0 = the default analysis only).
//   apsp_bench_host_fronts --families rmat,uniform --sizes 32768 --merge 0.1,0.25,0.5
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "families.hpp"
#include "supernodal/symbolic.hpp"

namespace {

using apsp::supernodal::Symbolic;

std::int64_t up(std::int64_t x, std::int64_t to) { return (x + to - 1) / to * to; }

void report(const std::string& label, const Symbolic& s, std::int64_t min_front, bool fronts) {
  double large_ops = 0, closure = 0, panels = 0, update = 0, padded_update = 0;
  std::int64_t large = 0, rounds = 0, tiles = 0;
  std::vector<char> level_has(static_cast<std::size_t>(s.levels()), 0);
  std::vector<std::int32_t> level_of(static_cast<std::size_t>(s.count), 0);
  for (std::int32_t l = 0; l < s.levels(); ++l)
    for (std::int32_t x = s.level_ptr[l]; x < s.level_ptr[l + 1]; ++x) level_of[s.level_idx[x]] = l;
  if (fronts)
    std::printf("  %5s %7s %7s %6s %6s %10s %10s %10s %10s %6s %s\n", "level", "K", "parent", "k", "s", "(k+s)^2k",
                "k^3", "2k^2s", "ks^2", "tiles", "parent large");
  for (std::int32_t K = 0; K < s.count; ++K) {
    const double k = s.columns(K), b = static_cast<double>(s.structure_size(K));
    if (k + b < static_cast<double>(min_front)) continue;
    ++large;
    level_has[level_of[K]] = 1;
    const std::int64_t k_pad = up(s.columns(K), 128), s_pad = up(s.structure_size(K), 128);
    rounds += k_pad / 128;
    tiles += (s_pad / 128) * (s_pad / 128);
    large_ops += (k + b) * (k + b) * k;
    closure += k * k * k;
    panels += 2 * k * k * b;
    update += k * b * b;
    padded_update += static_cast<double>(k_pad) * static_cast<double>(s_pad) * static_cast<double>(s_pad);
    const std::int32_t P = s.parent[K];
    const bool parent_large = P != -1 && s.columns(P) + s.structure_size(P) >= min_front;
    if (fronts)
      std::printf("  %5d %7d %7d %6.0f %6.0f %10.3g %10.3g %10.3g %10.3g %6lld %s\n", level_of[K], K, P, k, b,
                  (k + b) * (k + b) * k, k * k * k, 2 * k * k * b, k * b * b,
                  static_cast<long long>((s_pad / 128) * (s_pad / 128)),
                  P == -1        ? "root"
                  : parent_large ? "yes"
                                 : "no");
  }
  const auto levels = std::count(level_has.begin(), level_has.end(), 1);
  std::printf(
      "%-28s supernodes %d levels %d | fronts >= %lld: %lld on %lld levels, (k+s)^2k %.3g (of all %.3g), closure "
      "%.3g panels %.3g update %.3g (padded %.3g), 128-pivot rounds %lld, update tiles %lld | solve ops/source %.4g\n",
      label.c_str(), s.count, s.levels(), static_cast<long long>(min_front), static_cast<long long>(large),
      static_cast<long long>(levels), large_ops, s.factor_ops, closure, panels, update, padded_update,
      static_cast<long long>(rounds), static_cast<long long>(tiles), s.solve_ops_per_source);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The supernodal factor's large fronts (symbolic analysis on the host)"};
  std::vector<std::string> families{"rmat", "uniform"};
  std::vector<std::int64_t> sizes{32768};
  std::vector<double> merge{0};
  std::uint64_t seed = 1;
  std::int64_t min_front = 1024;
  bool fronts = true;
  app.add_option("--families", families)->delimiter(',');
  app.add_option("--sizes", sizes)->delimiter(',');
  app.add_option("--merge", merge, "merge_chains' max_extra_ops values (0: the default analysis only)")->delimiter(',');
  app.add_option("--seed", seed);
  app.add_option("--min-front", min_front);
  app.add_flag("!--no-fronts", fronts, "totals only");
  CLI11_PARSE(app, argc, argv);
  for (const std::string& family : families)
    for (const std::int64_t n : sizes) {
      const apsp::Graph g = apsp::bench::family_graph(family, n, seed);
      const Symbolic s = apsp::supernodal::analyse(apsp::to_csr(g));
      std::printf("%s n=%lld m=%zu\n", family.c_str(), static_cast<long long>(g.n), g.edges.size());
      report(family + " default", s, min_front, fronts);
      for (const double x : merge) {
        if (x <= 0) continue;
        apsp::supernodal::ChainMerge rule;
        rule.min_front = min_front;
        rule.max_extra_ops = x;
        const Symbolic m = apsp::supernodal::merge_chains(s, rule);
        apsp::supernodal::check_invariants(m);
        report(family + " merged " + std::to_string(x).substr(0, 4), m, min_front, fronts);
      }
    }
  return 0;
}
