// The supernodal factor's dense closure alone (issue 21; the kernel ladder's
// "persistent rounds" in docs/perf.md): a front's k x k diagonal block, inside
// a row stride of k + s as the batched, tiled and merged paths hold it, closed
//   fw       by fw's launches as the factor runs them without the hook:
//            pad_front, fw_rounds_int32 (three launches a round of 128
//            pivots), unpad_front;
//   pc       by the persistent rounds on fw's 128 tile (one launch);
//   pc64     by the persistent rounds on 64 tiles (one launch);
//   sq       by the squaring closure (one launch of in-place min-plus
//            squarings, at most ceil(log2 k), stopping at the first that
//            changes nothing; squaring_front_closure);
//   bk       by the blocked (2 x 2, recursive) closure (one launch: leaves
//            of at most 704 squared, the products between them restricted
//            squarings; BlockedClosure), for k above the squaring closure's
//            default 640; bkN with leaves of at most N (--leaves).
// pc, pc64 and sq run up to k = 2048, fw and bk up to 8192.
// Each rep restores the block first (untimed), then times one closure by CUDA
// events; the median over --reps after a warm-up. Columns: k, the way, the
// median in us, the rounds of 128 pivots (k_pad / 128), us per 128 pivots,
// and k_pad^3 / time (add-mins a second), with a check that pc, pc64 and sq
// gave fw's block bit for bit (exit status 3 when one did not), and for sq
// the squarings it ran (of the bound ceil(log2 k)), for bk its leaves'.
// The rate column counts k_pad^3 for every way (fw's nominal work).
//   apsp_bench_gpu_closure_bench --sizes 150,256,426,1024,1305,2048 --reps 20 --csv closure.csv
//   apsp_bench_gpu_closure_bench --sizes 641,1024,1305,2048,4096 --leaves 704,352
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "apsp/apsp.hpp"
#include "apsp/cuda.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/fw_real.hpp"
#include "cuda/kernels/supernodal/fronts.cuh"
#include "cuda/kernels/supernodal/squaring_closure.cuh"
#include "cuda/persistent_rounds.hpp"

namespace {

using apsp::cuda::DeviceBuffer;
namespace sn = apsp::cuda::kernels::supernodal;
constexpr std::int64_t kTile = 128;
constexpr int kThreads = 256;

// A k x k block inside rows of ld cells: 0 on the diagonal, about half the
// pairs an edge of weight 1..100, the rest +inf (kInf).
std::vector<std::int32_t> random_block(std::int64_t k, std::int64_t ld, std::uint64_t seed) {
  std::vector<std::int32_t> cells(static_cast<std::size_t>(k * ld), apsp::kInf);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> weight(1, 100), percent(0, 99);
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < k; ++j)
      cells[static_cast<std::size_t>(i * ld + j)] = i == j ? 0 : percent(random) < 50 ? weight(random) : apsp::kInf;
  return cells;
}

// fw's launches on the block, as SupernodalRows::factor runs them.
void close_by_fw(std::int32_t* front, std::int64_t k, std::int64_t ld, std::int32_t* dense, std::int32_t* panels,
                 cudaStream_t stream) {
  const std::int64_t k_pad = apsp::round_up(k, kTile);
  const sn::PaddedFront shape{k, 0, k_pad, k_pad, ld};
  sn::pad_front<std::int32_t>
      <<<static_cast<unsigned>(apsp::ceil_div<std::int64_t>(k_pad * k_pad, kThreads)), kThreads, 0, stream>>>(
          front, shape, dense);
  APSP_CUDA_CHECK_LAUNCH("pad_front");
  apsp::cuda::fw_rounds_int32(dense, k_pad, stream, apsp::ProgressSpan{}, k_pad / kTile, panels);
  sn::unpad_front<std::int32_t>
      <<<static_cast<unsigned>(apsp::ceil_div<std::int64_t>(k * k, kThreads)), kThreads, 0, stream>>>(dense, shape,
                                                                                                      front);
  APSP_CUDA_CHECK_LAUNCH("unpad_front");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The supernodal factor's dense closure: fw's launches against the persistent rounds, the squaring "
               "and the blocked closure"};
  std::vector<std::int64_t> sizes{128, 150, 256, 426, 512, 641, 1024, 1305, 2048, 4096};
  std::vector<std::int64_t> leaves{apsp::cuda::kBlockedClosureLeafMaxK, 352};
  std::int64_t structure = 1000;
  int reps = 20;
  std::string csv;
  app.add_option("--sizes", sizes, "k, the block's order (at most 8192; pc, pc64 and sq at most 2048)")->delimiter(',');
  app.add_option("--leaves", leaves, "the blocked closure's largest leaves, one bk row each (704: bk, else bkN)")
      ->delimiter(',');
  app.add_option("--structure", structure, "s: the front's other indices (the block's row stride is k + s)");
  app.add_option("--reps", reps)->check(CLI::Range(1, 10000));
  app.add_option("--csv", csv, "append rows to this CSV file");
  CLI11_PARSE(app, argc, argv);
  try {
    if (apsp::cuda::devices().empty()) throw apsp::ResourceError("no CUDA device");
    std::FILE* out = nullptr;
    if (!csv.empty()) {
      const bool fresh = !std::ifstream(csv).good();
      out = std::fopen(csv.c_str(), "a");
      if (out == nullptr) throw apsp::Error("cannot open " + csv);
      if (fresh)
        std::fprintf(out, "k,s,way,median_us,rounds128,us_per_128_pivots,addmins_per_s,same_as_fw,squarings,leaves\n");
    }
    apsp::cuda::Stream stream;
    bool differs = false;
    for (const std::int64_t k : sizes) {
      if (k < 1 || k > apsp::cuda::kBlockedClosureMaxK) throw apsp::UsageError("--sizes: 1 .. 8192", "sizes");
      const std::int64_t ld = k + structure, k_pad = apsp::round_up(k, kTile);
      const std::vector<std::int32_t> input = random_block(k, ld, 20261127 + static_cast<std::uint64_t>(k));
      const std::size_t bytes = input.size() * sizeof(std::int32_t);
      DeviceBuffer<std::int32_t> pristine(input.size()), front(input.size()),
          dense(static_cast<std::size_t>(k_pad * k_pad)),
          panels(static_cast<std::size_t>(apsp::cuda::fw_panel_words(k_pad)));
      APSP_CUDA_CHECK(cudaMemcpy(pristine.get(), input.data(), bytes, cudaMemcpyHostToDevice));
      std::vector<std::int32_t> by_fw;
      // The ways at this k, and the blocked closure's plans (planned before any timing).
      std::vector<std::string> ways{"fw"};
      if (k <= apsp::cuda::kPersistentRoundsMaxPad) ways.insert(ways.end(), {"pc", "pc64", "sq"});
      std::vector<std::unique_ptr<apsp::cuda::BlockedClosure>> plans;
      if (k > apsp::cuda::kSquaringClosureDefaultMaxK)
        for (const std::int64_t leaf : leaves) {
          plans.push_back(std::make_unique<apsp::cuda::BlockedClosure>(k, leaf, stream.get()));
          ways.push_back(leaf == apsp::cuda::kBlockedClosureLeafMaxK ? "bk" : "bk" + std::to_string(leaf));
        }
      for (std::size_t w = 0; w < ways.size(); ++w) {
        const std::string& way = ways[w];
        const bool blocked = way.rfind("bk", 0) == 0;
        auto close = [&] {
          if (way == "fw")
            close_by_fw(front.get(), k, ld, dense.get(), panels.get(), stream.get());
          else if (way == "sq")  // the panels' scratch holds its flags
            apsp::cuda::squaring_front_closure(front.get(), k, ld, dense.get(), panels.get(), stream.get());
          else if (blocked)  // the blocked plans follow fw, pc, pc64, sq
            plans[w - (ways.size() - plans.size())]->run(front.get(), ld, dense.get(), panels.get(), stream.get());
          else
            apsp::cuda::persistent_front_rounds(front.get(), k, 0, ld, dense.get(), panels.get(), stream.get(),
                                                way == "pc" ? 128 : 64);
        };
        std::vector<double> us;
        for (int rep = -1; rep < reps; ++rep) {  // rep -1: the warm-up
          APSP_CUDA_CHECK(cudaMemcpyAsync(front.get(), pristine.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
          apsp::cuda::Event begin, end;
          begin.record(stream.get());
          close();
          end.record(stream.get());
          const double elapsed = 1000.0 * apsp::cuda::elapsed_ms(begin, end);
          if (rep >= 0) us.push_back(elapsed);
        }
        const int squarings =
            way == "sq" || blocked ? apsp::cuda::squaring_closure_squarings(panels.get(), stream.get()) : 0;
        const std::int64_t plan_leaves = blocked ? plans[w - (ways.size() - plans.size())]->leaves() : 0;
        std::vector<std::int32_t> result(input.size());
        APSP_CUDA_CHECK(cudaMemcpy(result.data(), front.get(), bytes, cudaMemcpyDeviceToHost));
        if (way == "fw") by_fw = result;
        const bool same = result == by_fw;
        std::sort(us.begin(), us.end());
        const double median = us[us.size() / 2];
        const double rounds = static_cast<double>(k_pad / kTile);
        const double rate = static_cast<double>(k_pad) * k_pad * k_pad / (median * 1e-6);
        std::printf("k %5lld  %-5s %9.1f us  %2.0f rounds of 128  %7.1f us a round  %.3g add-mins/s  %s",
                    static_cast<long long>(k), way.c_str(), median, rounds, median / rounds, rate,
                    same ? "same as fw" : "DIFFERS FROM FW");
        if (way == "sq") std::printf("  %d squarings (bound %d)", squarings, sn::squarings_bound(k));
        if (blocked) std::printf("  %d squarings in %lld leaves", squarings, static_cast<long long>(plan_leaves));
        std::printf("\n");
        if (out)
          std::fprintf(out, "%lld,%lld,%s,%.2f,%.0f,%.2f,%.4g,%d,%d,%lld\n", static_cast<long long>(k),
                       static_cast<long long>(structure), way.c_str(), median, rounds, median / rounds, rate,
                       same ? 1 : 0, squarings, static_cast<long long>(plan_leaves));
        differs = differs || !same;
      }
    }
    if (out) std::fclose(out);
    if (differs) return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apsp_bench_gpu_closure_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
