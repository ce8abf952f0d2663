// The supernodal GPU solver against fw and sssp on the issue's families
// (issue 21): 2D grids, the geometric family, a 3D grid (the worst case for
// separators), R-MAT and uniform. Each configuration runs through
// apsp::solve into a null sink: a warm-up solve, then --reps solves, medians.
// Columns: family, n, m, method, the stages of the supernodal solver
// (ordering and symbolic on the host; factor and solve timed by CUDA events on
// the device, the solve's rows resident on the device: "compute"), the
// compute (factor + solve; for fw and sssp their "compute" stage), the wall
// time end to end into the null sink, and fw int32's time at that n (run up
// to --fw-max-n, above it estimated as n^3 / 14.8e12 s, the H100 rate of
// docs/results/2026-11-22-h100), the speedup of the compute over it; for
// supernodal, the symbolic analysis's operation counts (min-plus add-mins:
// the factor's sum of (k + s)^2 k over all fronts and over the fronts of at
// least 1024 vertices, the solve's n times nnz(L)-based ops per source, the
// count fw's n^3 rate compares with) and the rates they give.
//
// --factor default|v6|batched|tiled|both|all: the dense fronts' factor path
// (default: the solver's own, the merged chains for int32 rows, a
// "supernodal" row; v6: one front at a time through fw's rounds, a
// "supernodal-v6" row; batched: the
// grouped path of testing::hooks.supernodal_batched_factor; tiled: the
// opt-in testing::hooks.supernodal_tiled_factor, the batched path with the
// update matrices of the fronts of >= 1024 vertices on fw's 128 x 128 tile;
// both: a "supernodal-v6" row and a "supernodal-batched" row; all: those, a
// "supernodal-tiled" and a "supernodal-merged" row; merged: the tiled path after
// supernodal::merge_chains, testing::hooks.supernodal_merge_chains =
// --merge-percent, a "supernodal-merged" row; a comma list such as
// v6,tiled,merged names the rows; a path with the suffix -pc, such as
// tiled-pc, runs its dense rounds as one persistent launch per front on fw's
// 128 tile, -pc64 on 64 tiles: testing::hooks.supernodal_persistent_rounds,
// cuda/persistent_rounds.hpp); a path with the suffix -la before those
// (default-la, default-la-pc64; default, tiled and merged only) looks ahead
// along the chains of fronts of >= 1024 vertices
// (testing::hooks.supernodal_lookahead: front l + 1's closure beside front
// l's s x s update, on two streams; its profile times the update beside as
// "beside tiled update", outside the dense passes' sum, and the critical
// path's waits for it as "dense lookahead wait", inside); between -la and -pc,
// -sq closes the dense fronts' diagonal blocks of k <= 640 by repeated min-plus
// squaring (the default since the H100 bench: a path without -sq has it too),
// -sqN those of k <= N, -sq0 none (fw's launches, as before the promotion)
// (testing::hooks.supernodal_squaring_closure; not v6: default-sq0,
// default-sq2048, default-sq-pc64, default-la-sq); after -sq and before -pc,
// -bk closes the diagonal blocks the squaring closure leaves, up to k =
// 4096, by the blocked (2 x 2, recursive) closure, -bkN up to N, -bk0 not
// (testing::hooks.supernodal_blocked_closure; the default since the H100
// bench: a path without -bk has it too; not v6: default-bk0, default-sq0-bk,
// default-bk2048); after those, -sk splits the
// depth of the tiled panels and updates of levels with fewer tiles than
// about two waves of the device into pieces that min into C atomically
// (split-K, by shape: testing::hooks.supernodal_split_k = 1), -skN (N >= 2)
// splits every tiled launch into N pieces, -sk0 none (the default while
// split-K is opt-in: default-sk, default-sk0, default-sq0-sk); after -sk,
// -stk runs those launches as stream-K where its model gains (each of the
// resident blocks an equal share of the launch's (tile, k-chunk) steps:
// testing::hooks.supernodal_stream_k = 1), -stkN on N blocks everywhere,
// -stk0 not (default-stk, default-sk-stk). Method supernodal-int16: supernodal with
// --precision int16 (its int16 working rows, issue 21's v7; the method
// column says supernodal-int16->int32 when the certificate failed and the
// rows ran again in int32); --w-hi lowers the families' largest weight (2D
// ones; grid3d keeps 100) so that their distances fit int16 and int32 and
// int16 working rows are timed on the same graph. With --profile-csv each supernodal row's
// profile also sums the factor's dense passes per front-size class (fronts
// of >= 1024 vertices, and the other dense fronts) and prints their rate in
// useful add-mins (the symbolic (k + s)^2 k of those fronts) per second and
// as a share of fw int32's rate measured in the same run (run fw at the same
// n: --methods supernodal,fw), else of the H100 constant below.
//
//   apsp_bench_gpu_supernodal_bench --csv supernodal.csv
//   apsp_bench_gpu_supernodal_bench --families rmat,uniform --sizes 32768 --methods supernodal,fw --factor both \
//       --profile-csv profile.csv
//   apsp_bench_gpu_supernodal_bench --families grid,geometric --grid-sizes 65536 --methods supernodal,sssp
//   apsp_bench_gpu_supernodal_bench --families grid,geometric --grid-sizes 65536 --geometric-sizes 126146 \
//       --methods supernodal,supernodal-int16 --w-hi 10 --profile-csv profile.csv
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "apsp/sinks.hpp"
#include "families.hpp"
#include "cuda/persistent_rounds.hpp"
#include "cuda/testing.hpp"
#include "supernodal/symbolic.hpp"

namespace {

// fw int32's measured rate at n = 32768 on the H100 (docs/results/2026-11-22-h100).
constexpr double kFwInt32Rate = 14.8e12;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

using apsp::bench::family_graph;

struct Row {
  std::string family;
  std::int64_t n = 0, m = 0;
  std::string method;
  double ordering_s = 0, symbolic_s = 0, factor_s = 0, solve_s = 0, compute_s = 0, wall_s = 0;
  double fw_s = 0;
  bool fw_estimated = false;
  double factor_ops = 0, large_front_ops = 0, solve_ops = 0;  // supernodal only
  // The dense fronts (more than 64 columns) below kLargeFront vertices: their symbolic add-mins.
  double mid_front_ops = 0;
  // From the profile (--profile-csv): milliseconds of the factor's dense
  // passes per size class (SupernodalLaunch::batch: 1024 or 0).
  double large_front_ms = 0, mid_front_ms = 0;
  bool profiled = false;
};

// The fronts at least this big (k + s vertices) count as the factor's dense
// work (the solver's kLargeFrontVertices).
constexpr std::int64_t kLargeFront = 1024;
// Fronts with more columns than this take the dense path (kernels/supernodal's kSmallColumns).
constexpr std::int64_t kDenseColumns = 64;

// The supernodal operation counts of g (its own symbolic analysis, untimed).
void count_supernodal_ops(const apsp::Graph& g, Row& r) {
  const apsp::supernodal::Symbolic sym = apsp::supernodal::analyse(apsp::to_csr(g));
  r.factor_ops = sym.factor_ops;
  for (std::int32_t K = 0; K < sym.count; ++K) {
    const double k = sym.columns(K), front = k + static_cast<double>(sym.structure_size(K));
    if (front >= kLargeFront)
      r.large_front_ops += front * front * k;
    else if (k > kDenseColumns)
      r.mid_front_ops += front * front * k;
  }
  r.solve_ops = static_cast<double>(g.n) * sym.solve_ops_per_source;
}

// Median stages of `reps` solves of g by `method` on the GPU into a null sink, after one warm-up.
Row measure(const std::string& family, const apsp::Graph& g, const std::string& method, int reps) {
  apsp::SolveOptions o;
  o.backend = apsp::Backend::cuda;
  o.algorithm = method;
  const bool int16_rows = method == "supernodal-int16";
  if (int16_rows) {
    o.algorithm = "supernodal";
    o.precision = apsp::Precision::int16;
  }
  // fw is the int32 reference (the fw_int32_s column, the factor's share of
  // fw int32's rate): at automatic precision fw would take its int16 kernels
  // wherever the distances certify, at about twice the int32 rate, and the
  // int32 factor would be compared with a kernel of another width.
  if (method == "fw") o.precision = apsp::Precision::int32;
  std::vector<double> ordering, symbolic, factor, solve, compute, wall;
  std::string picked = method;
  for (int rep = -1; rep < reps; ++rep) {
    apsp::NullSink nothing;
    const auto start = std::chrono::steady_clock::now();
    const apsp::SolveSummary s = apsp::solve(g, o, nothing);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rep < 0) continue;
    // auto: its probe (with the symbolic analysis when it ran it) in the
    // ordering column, and the method column names the pick.
    if (method == "auto") picked = "auto(" + s.algorithm + ")";
    if (int16_rows && s.precision != apsp::Precision::int16) picked = "supernodal-int16->int32";
    ordering.push_back(s.times.seconds("ordering") + s.times.seconds("auto probe"));
    symbolic.push_back(s.times.seconds("symbolic"));
    factor.push_back(s.times.seconds("factor"));
    solve.push_back(s.times.seconds("compute"));
    compute.push_back(s.times.seconds("factor") + s.times.seconds("compute"));
    wall.push_back(seconds);
  }
  Row r;
  r.family = family;
  r.n = g.n;
  r.m = static_cast<std::int64_t>(g.edges.size());
  r.method = picked;
  r.ordering_s = median(ordering);
  r.symbolic_s = median(symbolic);
  r.factor_s = median(factor);
  r.solve_s = median(solve);
  r.compute_s = median(compute);
  r.wall_s = median(wall);
  return r;
}

// One more supernodal solve of g with every launch timed
// (testing::hooks.supernodal_profile), summed per pass and level into `csv`
// (appended) and printed: where the factor's and the solve's time goes.
void profile_supernodal(const std::string& family, const apsp::Graph& g, const std::string& csv, Row& row,
                        bool int16_rows) {
  std::vector<apsp::cuda::testing::SupernodalLaunch> launches;
  apsp::SolveOptions o;
  o.backend = apsp::Backend::cuda;
  o.algorithm = "supernodal";
  if (int16_rows) o.precision = apsp::Precision::int16;
  apsp::cuda::testing::hooks.supernodal_profile = &launches;
  apsp::NullSink nothing;
  try {
    apsp::solve(g, o, nothing);
  } catch (...) {
    apsp::cuda::testing::hooks.supernodal_profile = nullptr;
    throw;
  }
  apsp::cuda::testing::hooks.supernodal_profile = nullptr;
  struct Sum {
    std::int64_t launches = 0;
    double bytes = 0, ops = 0, ms = 0;
  };
  std::map<std::pair<std::string, std::int32_t>, Sum> sums;
  double total_ms = 0;
  for (const auto& l : launches) {
    if (std::string(l.pass).rfind("dense", 0) == 0)
      (l.batch >= kLargeFront ? row.large_front_ms : row.mid_front_ms) += l.ms;
    Sum& sum = sums[{l.pass, l.level}];
    ++sum.launches;
    sum.bytes += l.bytes;
    sum.ops += l.ops;
    sum.ms += l.ms;
    total_ms += l.ms;
  }
  const bool fresh = !std::ifstream(csv).good();
  std::ofstream out(csv, std::ios::app);
  row.profiled = true;
  if (fresh) out << "family,n,pass,level,launches,ms,gbytes,gbytes_per_s,ops,ops_per_s,method\n";
  std::printf("%-10s n=%-7lld profile: %.1f ms in %zu timed launches\n", family.c_str(), static_cast<long long>(g.n),
              total_ms, launches.size());
  for (const auto& [key, sum] : sums) {
    const double seconds = sum.ms / 1000.0;
    out << family << ',' << g.n << ',' << key.first << ',' << key.second << ',' << sum.launches << ',' << sum.ms << ','
        << sum.bytes / 1e9 << ',' << (seconds > 0 ? sum.bytes / 1e9 / seconds : 0.0) << ',' << sum.ops << ','
        << (seconds > 0 ? sum.ops / seconds : 0.0) << ',' << row.method << '\n';
    if (sum.ms >= 0.02 * total_ms)
      std::printf("  %-22s level %3d: %5lld launches %9.2f ms  %7.2f GB at %7.1f GB/s  %.3g ops at %.3g ops/s\n",
                  key.first.c_str(), key.second, static_cast<long long>(sum.launches), sum.ms, sum.bytes / 1e9,
                  seconds > 0 ? sum.bytes / 1e9 / seconds : 0.0, sum.ops, seconds > 0 ? sum.ops / seconds : 0.0);
  }
  if (!out) throw apsp::ResourceError("cannot write " + csv);
}

// A --factor path without its suffix "-pc" (the persistent rounds on fw's
// 128 tile) or "-pc64" (on 64 tiles), and that tile (0: neither).
std::pair<std::string, int> split_persistent_suffix(const std::string& path) {
  for (const auto& [suffix, tile] : {std::pair<std::string, int>{"-pc64", 64}, {"-pc", 128}})
    if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
      return {path.substr(0, path.size() - suffix.size()), tile};
  return {path, 0};
}

// A --factor path without its last suffix "-uf" (U-first panels:
// testing::hooks.supernodal_u_first), and whether it had it.
std::pair<std::string, bool> split_u_first_suffix(const std::string& path) {
  const std::string suffix = "-uf";
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return {path.substr(0, path.size() - suffix.size()), true};
  return {path, false};
}

// A --factor path without its last suffix "-t64" (the 64 x 64 C tile by
// shape: testing::hooks.supernodal_tile64 = 1), "-t64p" (the panels: 2) or
// "-t64a" (every tiled launch: 3), and that hook value (0: none).
std::pair<std::string, int> split_tile64_suffix(const std::string& path) {
  for (const auto& [suffix, value] : {std::pair<std::string, int>{"-t64a", 3}, {"-t64p", 2}, {"-t64", 1}})
    if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
      return {path.substr(0, path.size() - suffix.size()), value};
  return {path, 0};
}

// A --factor path (without -pc / -pc64) without its suffix "-la" (the
// look-ahead), and whether it had it.
std::pair<std::string, bool> split_lookahead_suffix(const std::string& path) {
  const std::string suffix = "-la";
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return {path.substr(0, path.size() - suffix.size()), true};
  return {path, false};
}

// A --factor path (without -pc / -pc64) without its last suffix `suffix`
// followed by digits N, and N: `none` where the path has no such suffix,
// `bare` where it has no digits, -1 where they are malformed.
std::pair<std::string, std::int64_t> split_numbered_suffix(const std::string& path, const std::string& suffix,
                                                           std::int64_t none, std::int64_t bare) {
  const std::size_t at = path.rfind(suffix);
  if (at == std::string::npos || at == 0) return {path, none};
  const std::string digits = path.substr(at + suffix.size());
  if (digits.empty()) return {path.substr(0, at), bare};
  if (digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return {path, -1};
  return {path.substr(0, at), std::stoll(digits)};
}

// "-sq": the squaring closure for k up to kSquaringClosureDefaultMaxK, the
// solver's default; "-sqN": k up to N (-sq0: fw's launches, the closure
// before the squaring was promoted); no suffix: the default.
std::pair<std::string, std::int64_t> split_squaring_suffix(const std::string& path) {
  return split_numbered_suffix(path, "-sq", apsp::cuda::kSquaringClosureDefaultMaxK,
                               apsp::cuda::kSquaringClosureDefaultMaxK);
}

// "-sk": split-K by shape (testing::hooks.supernodal_split_k = 1); "-skN":
// N (0 off, >= 2 N pieces everywhere); no suffix: the hook's default.
std::pair<std::string, std::int64_t> split_split_k_suffix(const std::string& path) {
  return split_numbered_suffix(path, "-sk", apsp::cuda::testing::kSplitKDefault, 1);
}

// "-stk": stream-K by shape (testing::hooks.supernodal_stream_k = 1);
// "-stkN": N (0 off, >= 2 N blocks everywhere); no suffix: off.
std::pair<std::string, std::int64_t> split_stream_k_suffix(const std::string& path) {
  return split_numbered_suffix(path, "-stk", 0, 1);
}

// "-bk": the blocked closure for k up to kBlockedClosureDefaultMaxK; "-bkN":
// up to N (-bk0: off, the closure before it was promoted); no suffix: the
// solver's default.
std::pair<std::string, std::int64_t> split_blocked_suffix(const std::string& path) {
  return split_numbered_suffix(path, "-bk", apsp::cuda::kBlockedClosureDefaultMaxK,
                               apsp::cuda::kBlockedClosureDefaultMaxK);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The supernodal GPU solver against fw and sssp on grids, geometric, 3D grid, R-MAT and uniform graphs"};
  std::vector<std::string> families = {"grid", "geometric", "grid3d", "rmat", "uniform"};
  std::vector<std::int64_t> grid_sizes = {16384, 65536, 262144};
  std::vector<std::int64_t> geometric_sizes = {16384, 65536, 126146};
  std::vector<std::int64_t> grid3d_sizes = {32768};
  std::vector<std::int64_t> sizes = {32768};
  std::vector<std::string> methods = {"supernodal", "sssp", "fw"};
  std::int64_t fw_max_n = 32768;
  std::int64_t max_reps_n = 65536;
  int reps = 3;
  std::int64_t batch_rows = 0;
  std::uint64_t seed = 1;
  std::string csv;
  std::string profile_csv;
  std::string factor_path = "default";
  std::int64_t merge_percent = apsp::supernodal::kDefaultMergePercent;
  apsp::weight_t w_hi = 100;
  app.add_option("--families", families)->delimiter(',');
  app.add_option("--grid-sizes", grid_sizes)->delimiter(',');
  app.add_option("--geometric-sizes", geometric_sizes)->delimiter(',');
  app.add_option("--grid3d-sizes", grid3d_sizes, "n, rounded to a cube")->delimiter(',');
  app.add_option("--sizes", sizes, "n for rmat and uniform (m = 8n)")->delimiter(',');
  app.add_option("--methods", methods,
                 "GPU algorithms: supernodal, supernodal-int16 (its int16 working rows), sssp, fw, auto (the method "
                 "column names its pick)")
      ->delimiter(',');
  app.add_option("--fw-max-n", fw_max_n, "above this n fw is estimated, not run");
  app.add_option("--max-reps-n", max_reps_n, "above this n one timed solve only");
  app.add_option("--reps", reps);
  app.add_option("--batch-rows", batch_rows,
                 "sources per batch of supernodal's solve phase (0: the solver's own choice, up to 4096)");
  app.add_option("--seed", seed);
  app.add_option("--w-hi", w_hi, "the largest weight of the 2D families (grid3d keeps 100)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--csv", csv, "append rows to this CSV file");
  app.add_option("--profile-csv", profile_csv,
                 "after supernodal's timed solves, one more with every launch timed, summed per pass and level into "
                 "this CSV (appended)");
  app.add_option(
      "--factor", factor_path,
      "the dense fronts' factor paths: default (the solver's own: merged for int32 rows), v6, batched, tiled, merged "
      "(tiled after merge_chains), both (v6 and batched), all (v6, batched, tiled, merged), or a comma list of "
      "default, v6, batched, tiled, merged, each also with -pc or -pc64 (its dense rounds as one persistent launch "
      "per front on fw's 128 tile or on 64 tiles, e.g. tiled-pc64); before those, -sq or -sqN (the diagonal blocks "
      "of k <= 640, or N, closed by repeated min-plus squaring; not v6: default-sq-pc64); between those, -bk or -bkN "
      "(the larger diagonal blocks, up to 4096 or N, by the blocked closure: default-bk, default-sq0-bk-pc64); after "
      "-bk, -sk (split-K of the tiled panels and updates of levels with few tiles, by shape), -skN (N pieces "
      "everywhere) or -sk0 (off, the default; not v6 or batched: default-sk, default-sq0-sk-pc64), then -stk (those "
      "launches as stream-K, by shape), -stkN (on N blocks) or -stk0; default, tiled and merged also with -la before "
      "all those (the look-ahead along chains of large fronts: default-la, default-la-pc64), and last -t64 (the "
      "tiled launches on the 64 x 64 C tile by shape), -t64p (the panels) or -t64a (every tiled launch): default-t64; "
      "then -uf (U-first panels: U_K alone before the updates, L_K after them): default-t64-uf");
  app.add_option("--merge-percent", merge_percent,
                 "the merged path's merge_chains max_extra_ops, in percent of the merged fronts' own add-mins")
      ->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  std::vector<std::string> factor_paths;
  if (factor_path == "both")
    factor_paths = {"v6", "batched"};
  else if (factor_path == "all")
    factor_paths = {"v6", "batched", "tiled", "merged"};
  else
    for (std::size_t at = 0; at <= factor_path.size();) {
      const std::size_t comma = std::min(factor_path.find(',', at), factor_path.size());
      const std::string path = factor_path.substr(at, comma - at);
      const auto [panels_base, u_first] = split_u_first_suffix(path);
      const auto [untiled, tile64] = split_tile64_suffix(panels_base);
      const std::string la_sq_bk_sk_base = split_persistent_suffix(untiled).first;
      const auto [la_sq_bk_base0, stream_k] = split_stream_k_suffix(la_sq_bk_sk_base);
      const auto [la_sq_bk_base, split_k] = split_split_k_suffix(la_sq_bk_base0);
      const auto [la_sq_base, blocked_k] = split_blocked_suffix(la_sq_bk_base);
      const auto [la_base, squaring_k] = split_squaring_suffix(la_sq_base);
      const auto [base, lookahead] = split_lookahead_suffix(la_base);
      const bool tiled_base = base == "default" || base == "tiled" || base == "merged";
      const bool has_split_k = la_sq_bk_base != la_sq_bk_sk_base;  // split-K and stream-K are the tiled path's
      const bool known = squaring_k >= 0 && blocked_k >= 0 && split_k >= 0 && stream_k >= 0 &&
                         (tiled_base || (!lookahead && !has_split_k && tile64 == 0 && !u_first &&
                                         (base == "v6" || base == "batched")));
      if (!known) {
        std::fprintf(stderr,
                     "--factor: unknown path '%s' (default, v6, batched, tiled, merged, each with -sq or -sqN, then "
                     "-bk or -bkN, then -pc or -pc64; default, tiled and merged also with -la before those and -sk, "
                     "-skN, -stk or -stkN after -bk, then -t64, -t64p or -t64a, and -uf last; both, all)\n",
                     path.c_str());
        return 2;
      }
      factor_paths.push_back(path);
      at = comma + 1;
    }
  try {
    if (apsp::cuda::devices().empty()) throw apsp::ResourceError("no CUDA device");
    apsp::cuda::testing::hooks.supernodal_batch_rows = batch_rows;
    std::vector<Row> rows;
    for (const std::string& family : families) {
      const std::vector<std::int64_t>& ns = family == "grid"        ? grid_sizes
                                            : family == "geometric" ? geometric_sizes
                                            : family == "grid3d"    ? grid3d_sizes
                                                                    : sizes;
      for (const std::int64_t n : ns) {
        const apsp::Graph g = family_graph(family, n, seed, w_hi);
        const double fw_estimate = std::pow(static_cast<double>(g.n), 3) / kFwInt32Rate;
        double fw_s = fw_estimate;
        bool fw_estimated = true;
        std::vector<Row> family_rows;
        for (const std::string& method : methods) {
          if (method == "fw" && g.n > fw_max_n) continue;
          // supernodal once per factor path asked.
          std::vector<std::string> paths{"default"};
          if (method == "supernodal") paths = factor_paths;
          for (const std::string& path : paths) {
            const auto [panels_base, u_first] = split_u_first_suffix(path);
            const auto [untiled, tile64] = split_tile64_suffix(panels_base);
            const auto [la_sq_bk_sk_stk_base, persistent_tile] = split_persistent_suffix(untiled);
            const auto [la_sq_bk_sk_base, stream_k] = split_stream_k_suffix(la_sq_bk_sk_stk_base);
            const auto [la_sq_bk_base, split_k] = split_split_k_suffix(la_sq_bk_sk_base);
            const auto [la_sq_base, blocked_k] = split_blocked_suffix(la_sq_bk_base);
            const auto [la_base, squaring_k] = split_squaring_suffix(la_sq_base);
            const auto [base, lookahead] = split_lookahead_suffix(la_base);
            apsp::cuda::testing::hooks.supernodal_v6_factor = base == "v6";
            apsp::cuda::testing::hooks.supernodal_batched_factor = base == "batched";
            apsp::cuda::testing::hooks.supernodal_tiled_factor = base == "tiled" || base == "merged";
            apsp::cuda::testing::hooks.supernodal_merge_chains = base == "merged" ? merge_percent : 0;
            apsp::cuda::testing::hooks.supernodal_persistent_rounds = persistent_tile;
            apsp::cuda::testing::hooks.supernodal_squaring_closure = squaring_k;
            apsp::cuda::testing::hooks.supernodal_blocked_closure = blocked_k;
            apsp::cuda::testing::hooks.supernodal_lookahead = lookahead;
            apsp::cuda::testing::hooks.supernodal_split_k = split_k;
            apsp::cuda::testing::hooks.supernodal_stream_k = stream_k;
            apsp::cuda::testing::hooks.supernodal_tile64 = tile64;
            apsp::cuda::testing::hooks.supernodal_u_first = u_first ? 1 : 0;
            Row r = measure(family, g, method, g.n > max_reps_n ? 1 : reps);
            if (path != "default") r.method = "supernodal-" + path;
            const bool supernodal = method == "supernodal" || method == "supernodal-int16";
            if (supernodal) count_supernodal_ops(g, r);
            if (supernodal && !profile_csv.empty())
              profile_supernodal(family, g, profile_csv, r, method == "supernodal-int16");
            apsp::cuda::testing::hooks.supernodal_v6_factor = false;
            apsp::cuda::testing::hooks.supernodal_batched_factor = false;
            apsp::cuda::testing::hooks.supernodal_tiled_factor = false;
            apsp::cuda::testing::hooks.supernodal_merge_chains = 0;
            apsp::cuda::testing::hooks.supernodal_persistent_rounds = 0;
            apsp::cuda::testing::hooks.supernodal_squaring_closure = apsp::cuda::kSquaringClosureDefaultMaxK;
            apsp::cuda::testing::hooks.supernodal_blocked_closure = apsp::cuda::kBlockedClosureDefaultMaxK;
            apsp::cuda::testing::hooks.supernodal_lookahead = false;
            apsp::cuda::testing::hooks.supernodal_split_k = apsp::cuda::testing::kSplitKDefault;
            apsp::cuda::testing::hooks.supernodal_stream_k = 0;
            apsp::cuda::testing::hooks.supernodal_tile64 = 0;
            apsp::cuda::testing::hooks.supernodal_u_first = 0;
            if (method == "fw") {
              fw_s = r.compute_s;
              fw_estimated = false;
            }
            family_rows.push_back(r);
          }
        }
        for (Row& r : family_rows) {
          r.fw_s = fw_s;
          r.fw_estimated = fw_estimated;
          std::printf("%-10s n=%-7lld %-11s ordering %7.3f s  symbolic %7.3f s  factor %8.3f s  solve %8.3f s  "
                      "compute %8.3f s  wall %8.3f s  fw%s %8.3f s  x%.1f\n",
                      r.family.c_str(), static_cast<long long>(r.n), r.method.c_str(), r.ordering_s, r.symbolic_s,
                      r.factor_s, r.solve_s, r.compute_s, r.wall_s, r.fw_estimated ? " (est.)" : "", r.fw_s,
                      r.compute_s > 0 ? r.fw_s / r.compute_s : 0.0);
          if (r.factor_ops > 0)
            std::printf("%-10s n=%-7lld %-11s factor %.3g ops (%.0f%% in fronts >= %lld) at %.3g ops/s, "
                        "solve %.3g ops at %.3g ops/s\n",
                        r.family.c_str(), static_cast<long long>(r.n), r.method.c_str(), r.factor_ops,
                        100.0 * r.large_front_ops / r.factor_ops, static_cast<long long>(kLargeFront),
                        r.factor_s > 0 ? r.factor_ops / r.factor_s : 0.0, r.solve_ops,
                        r.solve_s > 0 ? r.solve_ops / r.solve_s : 0.0);
          if (r.profiled) {
            // fw int32's rate in this run (n^3 over its compute), else the constant.
            const double nn = static_cast<double>(r.n);
            const double fw_rate = r.fw_estimated ? kFwInt32Rate : nn * nn * nn / r.fw_s;
            for (const auto& [label, ops, ms] : {std::tuple{">= 1024", r.large_front_ops, r.large_front_ms},
                                                 std::tuple{"< 1024", r.mid_front_ops, r.mid_front_ms}}) {
              if (ms <= 0) continue;
              const double rate = ops / (ms / 1000.0);
              std::printf("%-10s n=%-7lld %-18s factor dense fronts %-7s %.3g add-mins in %8.3f ms (profiled): %.3g "
                          "per s, %.0f%% of fw int32's %.3g%s\n",
                          r.family.c_str(), static_cast<long long>(r.n), r.method.c_str(), label, ops, ms, rate,
                          100.0 * rate / fw_rate, fw_rate, r.fw_estimated ? " (H100 constant)" : " (this run)");
            }
          }
          std::fflush(stdout);
          rows.push_back(r);
        }
      }
    }
    if (!csv.empty()) {
      const bool fresh = !std::ifstream(csv).good();
      std::ofstream out(csv, std::ios::app);
      if (fresh)
        out << "family,n,m,method,ordering_s,symbolic_s,factor_s,solve_s,compute_s,wall_null_sink_s,fw_int32_s,"
               "fw_estimated,"
               "speedup_vs_fw,factor_ops,large_front_ops,solve_ops\n";
      for (const Row& r : rows)
        out << r.family << ',' << r.n << ',' << r.m << ',' << r.method << ',' << r.ordering_s << ',' << r.symbolic_s
            << ',' << r.factor_s << ',' << r.solve_s << ',' << r.compute_s << ',' << r.wall_s << ',' << r.fw_s << ','
            << (r.fw_estimated ? 1 : 0) << ',' << (r.compute_s > 0 ? r.fw_s / r.compute_s : 0.0) << ',' << r.factor_ops
            << ',' << r.large_front_ops << ',' << r.solve_ops << '\n';
      if (!out) throw apsp::ResourceError("cannot write " + csv);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apsp_bench_gpu_supernodal_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
