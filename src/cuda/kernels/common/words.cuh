// Arithmetic policies of the production kernels: how distances sit in 32-bit
// words (one int32, two int16, an int32 carrying a predecessor tag, or one
// float32) and the add-min on such words. Integer weights are non-negative
// and each integer policy's infinity leaves room for the sum of two stored
// values, so a + b never wraps and an infinite operand never undercuts a
// finite entry; float32 uses IEEE +inf, which absorbs any finite weight, so
// it takes negative weights as they are.
//
// Every policy also says how phases 1 and 2 (which hold one distance per
// 32-bit word whatever the storage) see an element: to_word / from_word
// convert between storage_t and that word, and Scalar is the add-min they
// apply to such words.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda::kernels {

inline constexpr std::int32_t kInf16 = 16383;  // 2 * kInf16 < 2^15

// Predecessor mode: a distance d is stored as d << kTagBits; the low bits of
// a phase's result name the k (1 + its index in the pivot block) that last
// improved it, 0 for none. Two infinities plus a tag stay below 2^31.
inline constexpr int kTagBits = 8;
inline constexpr std::int32_t kTagMask = (1 << kTagBits) - 1;
inline constexpr std::int32_t kInfTagged = (1 << 22) - 1;  // in distance units

// Distances per 32-bit word and the arithmetic on words.
struct Int32Words {
  using storage_t = std::int32_t;
  using Scalar = Int32Words;
  static constexpr int kPerWord = 1;
  static constexpr bool kTagged = false;
  static constexpr std::int32_t kInfinity = kInf;
  __device__ static std::int32_t add_min(std::int32_t a, std::int32_t b, std::int32_t c) {
    return __viaddmin_s32(a, b, c);
  }
  // The A operand word for one distance: the distance itself.
  __device__ static std::int32_t broadcast(std::int32_t v) { return v; }
  __device__ static std::int32_t to_word(std::int32_t v) { return v; }
  __device__ static std::int32_t from_word(std::int32_t w) { return w; }
};

struct Int16Words {
  using Scalar = Int32Words;
  using storage_t = std::int16_t;
  static constexpr int kPerWord = 2;
  static constexpr bool kTagged = false;
  static constexpr std::int32_t kInfinity = kInf16;
  __device__ static std::int32_t add_min(std::int32_t a, std::int32_t b, std::int32_t c) {
    return static_cast<std::int32_t>(
        __viaddmin_s16x2(static_cast<unsigned>(a), static_cast<unsigned>(b), static_cast<unsigned>(c)));
  }
  // The A operand word for one distance: the distance in both halves.
  __device__ static std::int32_t broadcast(std::int32_t v) {
    return static_cast<std::int32_t>((static_cast<std::uint32_t>(v) & 0xffffu) | (static_cast<std::uint32_t>(v) << 16));
  }
  __device__ static std::int32_t to_word(std::int16_t v) { return v; }
  __device__ static std::int16_t from_word(std::int32_t w) { return static_cast<std::int16_t>(w); }
};

// int32 words holding d << kTagBits | tag (predecessor mode).
struct TaggedWords : Int32Words {
  static constexpr bool kTagged = true;
  static constexpr std::int32_t kInfinity = kInfTagged << kTagBits;
};
// One float32 per word, IEEE +inf as infinity: FADD + FMNMX per update.
// The words hold the floats' bits, so the int4 loads and cp.async copies of
// the integer policies move them unchanged.
struct Float32Words {
  using storage_t = float;
  using Scalar = Float32Words;
  static constexpr int kPerWord = 1;
  static constexpr bool kTagged = false;
  // min(a + b, c) as one PTX block (FADD then FMNMX, IEEE round to
  // nearest, min's NaN rule that of fminf), so each sum meets its min before
  // the next sum is formed. Written as fminf(a + b, c) the production
  // update_rest (128 registers) spilled 64 bytes (ptxas -v) and ran at
  // 11.95 T/s at n = 32768; paired, it spilled 8 bytes and ran at 12.79 T/s
  // (H100, docs/perf.md; the production phase 3 is FoldCTraits' since).
  // int32 and int16 have VIADDMNMX and need no pairing.
  __device__ static std::int32_t add_min(std::int32_t a, std::int32_t b, std::int32_t c) {
    std::int32_t r;
    asm("{\n\t.reg .f32 t;\n\tadd.rn.f32 t, %1, %2;\n\tmin.f32 %0, t, %3;\n\t}" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
  }
  // +inf's bits, and the smaller of two words (FoldCTraits' start and fold).
  static constexpr std::int32_t kInfinityWord = 0x7f800000;
  __device__ static std::int32_t min_word(std::int32_t a, std::int32_t b) {
    return __float_as_int(fminf(__int_as_float(a), __int_as_float(b)));
  }
  __device__ static std::int32_t broadcast(std::int32_t v) { return v; }
  __device__ static std::int32_t to_word(float v) { return __float_as_int(v); }
  __device__ static float from_word(std::int32_t w) { return __int_as_float(w); }
};

static_assert(2 * (std::int64_t{kInfTagged} << kTagBits) + kTagMask < (std::int64_t{1} << 31),
              "two tagged infinities and a tag must not overflow int32");

// In predecessor mode, strips the tag of c and records the improving k:
// mid[at] = k0 + tag - 1. No-op otherwise.
template <class W>
__device__ __forceinline__ std::int32_t settle_tag(std::int32_t c, std::int32_t* mid, std::int64_t at,
                                                   std::int64_t k0) {
  if constexpr (W::kTagged) {
    const std::int32_t tag = c & kTagMask;
    if (tag != 0) mid[at] = static_cast<std::int32_t>(k0 + tag - 1);
    return c & ~kTagMask;
  } else {
    return c;
  }
}

}  // namespace apsp::cuda::kernels
