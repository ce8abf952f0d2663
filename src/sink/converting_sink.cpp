#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/sinks.hpp"

namespace apsp {
namespace {

// What a row's finite values fit exactly: an integer below kOutputInf16 in
// magnitude (int16), below kInf (int32), a float (float32). A flag already
// false is not asked again.
struct Exact {
  bool int16 = true, int32 = true, float32 = true;
  bool open() const { return int16 || int32 || float32; }
};

// An integer below `bound` in magnitude.
inline bool integer_below(double v, double bound) { return std::nearbyint(v) == v && std::fabs(v) < bound; }

template <class T>
void scan_row(const T* row, std::int64_t count, Exact& exact) {
  for (std::int64_t c = 0; c < count && exact.open(); ++c) {
    if (row[c] == kUnreachable<T>) continue;
    const auto v = static_cast<double>(row[c]);
    if (exact.int16 && !integer_below(v, kOutputInf16)) exact.int16 = false;
    if (exact.int32 && !integer_below(v, kInf)) exact.int32 = false;
    if (exact.float32 && static_cast<double>(static_cast<float>(v)) != v) exact.float32 = false;
  }
}

template <class Out>
Out unreachable() {
  if constexpr (std::is_same<Out, std::int16_t>::value)
    return kOutputInf16;
  else
    return kUnreachable<Out>;
}

// One row of `count` values from In to Out; int32 and int16 output refuse a
// value they cannot hold exactly, naming its place.
template <class In, class Out>
void convert_row(const In* in, Out* out, std::int64_t count, std::int64_t row) {
  for (std::int64_t c = 0; c < count; ++c) {
    if (in[c] == kUnreachable<In>) {
      out[c] = unreachable<Out>();
      continue;
    }
    const auto v = static_cast<double>(in[c]);
    if constexpr (std::is_integral<Out>::value) {
      constexpr bool narrow = std::is_same<Out, std::int16_t>::value;
      if (!integer_below(v, narrow ? kOutputInf16 : kInf)) {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", v);
        throw UsageError(std::string("the distance ") + text + " (row " + std::to_string(row) + ", column " +
                             std::to_string(c) + ") is not an integer below " + (narrow ? "2^15 - 1" : "2^30 - 1") +
                             " in magnitude: " + (narrow ? "int16" : "int32") + " output would not be exact; use " +
                             (narrow ? "int32 or " : "") + "float64 (or float32, rounded)",
                         "output-type");
      }
    }
    out[c] = static_cast<Out>(in[c]);
  }
}

template <class In>
void convert_rows(const RowBlock& b, std::int64_t columns, Element to, void* staged) {
  for (std::int64_t r = 0; r < b.rows; ++r) {
    const In* in = static_cast<const In*>(b.data) + r * b.row_stride;
    const std::int64_t row = b.first_row + r;
    switch (to) {
      case Element::int32: convert_row(in, static_cast<std::int32_t*>(staged) + r * columns, columns, row); break;
      case Element::float32: convert_row(in, static_cast<float*>(staged) + r * columns, columns, row); break;
      case Element::float64: convert_row(in, static_cast<double*>(staged) + r * columns, columns, row); break;
      case Element::int16: convert_row(in, static_cast<std::int16_t*>(staged) + r * columns, columns, row); break;
    }
  }
}

}  // namespace

ConvertingSink::ConvertingSink(Sink& inner, std::optional<Element> to) : inner_(inner), to_(to) {}

void ConvertingSink::begin(const SinkLayout& layout) {
  if (layout.distance_element == Element::int16)
    throw UsageError("int16 rows are converted to, never from (ConvertingSink)", "output-type");
  layout_ = layout;
  all_int16_ = true;
  all_int32_ = true;
  all_float32_ = true;
  lossy_ = to_ == Element::float32 && layout.distance_element != Element::float32;
  SinkLayout out = layout;
  if (to_) out.distance_element = *to_;
  inner_.begin(out);
  kept_ = false;
  if (inner_.keeps_partial()) {
    const std::vector<bool> present = inner_.resumed().present;
    kept_ = std::find(present.begin(), present.end(), true) != present.end();
  }
}

void ConvertingSink::put(const RowBlock& block) {
  if (block.plane != Plane::distances || block.rows == 0) return inner_.put(block);
  // Only what is still open is scanned (int32 rows are int32-exact, float32
  // rows float32-exact: not asked), and a scan stops once every answer is known.
  const bool ask_int32 = all_int32_.load() && block.element != Element::int32;
  const bool ask_float32 = all_float32_.load() && block.element == Element::float64;
  Exact ask{all_int16_.load(), ask_int32, ask_float32};
  const std::int64_t columns = layout_.column_count();
  for (std::int64_t r = 0; r < block.rows && ask.open(); ++r) {
    const std::int64_t at = r * block.row_stride;
    if (block.element == Element::int32)
      scan_row(static_cast<const std::int32_t*>(block.data) + at, columns, ask);
    else if (block.element == Element::float32)
      scan_row(static_cast<const float*>(block.data) + at, columns, ask);
    else
      scan_row(static_cast<const double*>(block.data) + at, columns, ask);
  }
  if (!ask.int16) all_int16_ = false;
  if (ask_int32 && !ask.int32) all_int32_ = false;
  if (ask_float32 && !ask.float32) all_float32_ = false;
  if (!to_ || *to_ == block.element) return inner_.put(block);
  std::vector<unsigned char> staged(static_cast<std::size_t>(block.rows * columns) * element_bytes(*to_));
  switch (block.element) {
    case Element::int32: convert_rows<std::int32_t>(block, columns, *to_, staged.data()); break;
    case Element::float32: convert_rows<float>(block, columns, *to_, staged.data()); break;
    case Element::float64: convert_rows<double>(block, columns, *to_, staged.data()); break;
    case Element::int16: throw UsageError("int16 rows are converted to, never from (ConvertingSink)", "output-type");
  }
  inner_.put(RowBlock{block.plane, *to_, block.first_row, block.rows, columns, staged.data()});
}

std::optional<Element> ConvertingSink::narrowest_exact() const {
  if (kept_) return std::nullopt;
  if (all_int16_.load()) return Element::int16;
  if (all_int32_.load()) return Element::int32;
  return all_float32_.load() ? Element::float32 : Element::float64;
}

}  // namespace apsp
