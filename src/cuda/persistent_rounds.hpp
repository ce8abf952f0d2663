// The supernodal factor's dense rounds on one front's block in ONE
// cooperative launch (kernels/supernodal/persistent_rounds.cuh): fw's tiles,
// no pad, unpad or per-round launches; and the closure of a front's diagonal
// block by repeated min-plus squaring, also one cooperative launch
// (kernels/supernodal/squaring_closure.cuh); and the blocked (2 x 2,
// recursive) closure of a larger diagonal block, whose leaves are squared
// and whose products are restricted squarings, one cooperative launch too
// (kernels/supernodal/blocked_closure.cuh). Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda_memory.hpp"

namespace apsp::cuda {

// The largest padded block (n_pad) the persistent rounds take.
constexpr std::int64_t kPersistentRoundsMaxPad = 2048;

// The padded order of a front's block on `tile` (128 or 64; UsageError
// else): its k pivot indices padded to the tile, then its s other indices,
// padded again (s = 0: the k x k diagonal block alone). At most the supernodal
// factor's padding for fw's rounds (tile 128).
std::int64_t persistent_rounds_pad(std::int64_t k, std::int64_t s, int tile = 128);

// Whether this device runs the persistent rounds (both tiles) on a block of
// padded order n_pad: n_pad at most kPersistentRoundsMaxPad, cooperative
// launches, the kernels' shared memory fits an SM.
bool persistent_rounds_fit(std::int64_t n_pad);

// Pivots 0 .. k - 1 eliminated in the (k + s) x (k + s) block at `front`
// (row stride front_ld >= k + s), in place, queued on `stream`. Tile 128: bit
// for bit fw's rounds (fw_rounds_int32 / fw_rounds_real, k_pad / 128 of them)
// on the block padded as the supernodal factor pads it
// (kernels/supernodal/fronts.cuh, pad_front); tile 64 (int32 only): rounds
// of 64 pivots, the same closure bit for bit (min-plus on integers is exact
// whatever the blocking; entries at most kInf, sums of two within int32).
// `padded`: persistent_rounds_pad(k, s, tile)^2 words of scratch; `panels`:
// fw_panel_words(that) words. Throws UsageError where persistent_rounds_fit
// says no or the tile is neither, DeviceError for a failed launch.
void persistent_front_rounds(std::int32_t* front, std::int64_t k, std::int64_t s, std::int64_t front_ld,
                             std::int32_t* padded, std::int32_t* panels, cudaStream_t stream, int tile = 128);
void persistent_front_rounds(float* front, std::int64_t k, std::int64_t s, std::int64_t front_ld, float* padded,
                             std::int32_t* panels, cudaStream_t stream);

// The squaring closure's largest k, its default largest k in the solver
// (testing::hooks.supernodal_squaring_closure), and its flag words.
constexpr std::int64_t kSquaringClosureMaxK = 2048;
constexpr std::int64_t kSquaringClosureDefaultMaxK = 640;
constexpr std::int64_t kSquaringClosureFlagWords = 32;

// The squaring closure's scratch order for a k x k block: k rounded up to 32.
std::int64_t squaring_closure_pad(std::int64_t k);

// Whether this device runs the squaring closure (cooperative launches, its
// shared memory fits an SM); k is checked by the call.
bool squaring_closure_fit();

// The k x k diagonal block at `front` (row stride front_ld >= k, int32,
// no negative cycle) closed in place by at most ceil(log2 k) in-place
// min-plus squarings, stopping after the first that lowers no cell; the
// same integers as fw's rounds, bit for bit (the kernel's comment says why).
// `padded`: squaring_closure_pad(k)^2 words of scratch; `flags`:
// kSquaringClosureFlagWords words of scratch. Queued on `stream`. Throws
// UsageError for k past kSquaringClosureMaxK, a row stride below k or a
// device without cooperative launches, DeviceError for a failed launch.
void squaring_front_closure(std::int32_t* front, std::int64_t k, std::int64_t front_ld, std::int32_t* padded,
                            std::int32_t* flags, cudaStream_t stream);

// The squarings the last squaring_front_closure or BlockedClosure::run
// (its leaves' squarings) with these `flags` ran (waits for `stream`).
int squaring_closure_squarings(const std::int32_t* flags, cudaStream_t stream);

// The blocked closure's largest k, its default largest k in the solver
// (testing::hooks.supernodal_blocked_closure; promoted after the H100 bench,
// docs/perf.md "Blocked closure"), and its default largest leaf
// (testing::hooks.supernodal_blocked_leaf; kernels/supernodal/
// blocked_closure.cuh, BlockedClosureTraits, says why 704).
constexpr std::int64_t kBlockedClosureMaxK = 8192;
constexpr std::int64_t kBlockedClosureDefaultMaxK = 4096;
constexpr std::int64_t kBlockedClosureLeafMaxK = 704;

// Whether this device runs the blocked closure (cooperative launches, the
// squaring closure's shared memory fits an SM).
bool blocked_closure_fit();

// The blocked closure of k x k int32 blocks (no negative cycle), planned
// once (supernodal/blocked_closure_plan.hpp: blocks of more than
// leaf_max_k split in two on 32-column boundaries, recursively; leaves
// squared as the squaring closure squares) and run as one cooperative
// launch per block: the same integers as fw's rounds, bit for bit (the
// plan's header says why). The plan's phases live on the device; the
// constructor waits for `stream` (their upload).
class BlockedClosure {
 public:
  // leaf_max_k 0: kBlockedClosureLeafMaxK. Throws UsageError for k outside
  // 1 .. kBlockedClosureMaxK, a leaf below 32 or past kSquaringClosureMaxK,
  // or a device where blocked_closure_fit() says no.
  BlockedClosure(std::int64_t k, std::int64_t leaf_max_k, cudaStream_t stream);
  std::int64_t k() const { return k_; }
  std::int64_t leaf_max_k() const { return leaf_; }
  std::int64_t leaves() const { return leaves_; }
  std::int64_t phases() const { return count_; }
  // The products' add-mins (the leaves' squarings not counted).
  double product_addmins() const { return product_addmins_; }
  // The k x k block at `front` (row stride front_ld >= k) closed in place,
  // queued on `stream`. `padded`: squaring_closure_pad(k)^2 words of
  // scratch; `flags`: kSquaringClosureFlagWords words of scratch. Throws
  // UsageError for a row stride below k, DeviceError for a failed launch.
  void run(std::int32_t* front, std::int64_t front_ld, std::int32_t* padded, std::int32_t* flags,
           cudaStream_t stream) const;

 private:
  std::int64_t k_ = 0, leaf_ = 0, leaves_ = 0;
  int count_ = 0, blocks_ = 0;
  double product_addmins_ = 0;
  DeviceBuffer<std::int32_t> phases_;  // the kernel's BlockedPhase records, word by word
};

}  // namespace apsp::cuda
