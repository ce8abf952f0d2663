// 64-bit checksums for resumable solves: the identity of a solve (its
// normalized graph, algorithm and options), which a resumed run must match,
// and the bytes a journal record or a checkpoint vouches for. They catch a
// torn write, a truncated file, bit rot and a different solve; they are not
// cryptographic. The digest of a byte stream does not depend on how it was
// split into bytes() calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace apsp::core {

class Fingerprint {
 public:
  Fingerprint& bytes(const void* data, std::size_t size) {
    const auto* next = static_cast<const unsigned char*>(data);
    length_ += size;
    // Complete a word begun by an earlier call.
    while (size > 0 && pending_bytes_ != 0) {
      pending_ |= std::uint64_t{*next++} << (8 * pending_bytes_);
      --size;
      if (++pending_bytes_ == 8) {
        mix(pending_);
        pending_ = 0;
        pending_bytes_ = 0;
      }
    }
    for (; size >= 8; size -= 8, next += 8) {
      std::uint64_t word;
      std::memcpy(&word, next, 8);  // little-endian hosts only, as every file format here
      mix(word);
    }
    // Fewer than 8 bytes are left, and no word is pending (the first loop
    // ends with one pending only when it used up every byte).
    for (std::size_t b = 0; b < size && b < 8; ++b) pending_ |= std::uint64_t{next[b]} << (8 * b);
    if (size > 0) pending_bytes_ = static_cast<int>(size);
    return *this;
  }
  // A value of a trivially copyable type without padding, as its bytes.
  template <class T>
  Fingerprint& value(const T& v) {
    static_assert(std::has_unique_object_representations_v<T> || std::is_floating_point_v<T>,
                  "padding bytes would make the digest depend on garbage");
    return bytes(&v, sizeof v);
  }
  // Text, with its length first (so "ab" + "c" differs from "a" + "bc").
  Fingerprint& text(std::string_view s) {
    value(static_cast<std::uint64_t>(s.size()));
    return bytes(s.data(), s.size());
  }
  std::uint64_t digest() const {
    std::uint64_t h = state_;
    if (pending_bytes_ != 0) h = step(h, pending_);
    h ^= length_;
    // splitmix64's finalizer: every input bit reaches every output bit.
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
  }

 private:
  static std::uint64_t step(std::uint64_t h, std::uint64_t word) {
    h ^= word * 0x87c37b91114253d5ull;
    h = (h << 31) | (h >> 33);
    return h * 0x4cf5ad432745937full + 0x52dce729;
  }
  void mix(std::uint64_t word) { state_ = step(state_, word); }

  std::uint64_t state_ = 0x9e3779b97f4a7c15ull;
  std::uint64_t length_ = 0;
  std::uint64_t pending_ = 0;  // the bytes of an unfinished word, lowest first
  int pending_bytes_ = 0;
};

}  // namespace apsp::core
