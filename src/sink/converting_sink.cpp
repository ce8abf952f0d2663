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

// Clears int32_exact unless every finite value of the row fits int32
// exactly (an integer below kInf in magnitude), float32_exact unless every
// one fits float32 exactly; a flag already false is not asked.
template <class T>
void scan_row(const T* row, std::int64_t count, bool& int32_exact, bool& float32_exact) {
  for (std::int64_t c = 0; c < count && (int32_exact || float32_exact); ++c) {
    if (row[c] == kUnreachable<T>) continue;
    const auto v = static_cast<double>(row[c]);
    if (int32_exact && !(std::nearbyint(v) == v && std::fabs(v) < kInf)) int32_exact = false;
    if (float32_exact && static_cast<double>(static_cast<float>(v)) != v) float32_exact = false;
  }
}

// One row of `count` values from In to Out; int32 output refuses a value it
// cannot hold exactly, naming its place.
template <class In, class Out>
void convert_row(const In* in, Out* out, std::int64_t count, std::int64_t row) {
  for (std::int64_t c = 0; c < count; ++c) {
    if (in[c] == kUnreachable<In>) {
      out[c] = kUnreachable<Out>;
      continue;
    }
    const auto v = static_cast<double>(in[c]);
    if constexpr (std::is_same<Out, std::int32_t>::value) {
      if (!(std::nearbyint(v) == v && std::fabs(v) < kInf)) {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", v);
        throw UsageError(std::string("the distance ") + text + " (row " + std::to_string(row) + ", column " +
                             std::to_string(c) + ") is not an integer below 2^30 - 1 in magnitude: int32 output " +
                             "would not be exact; use float64 (or float32, rounded)",
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
    }
  }
}

}  // namespace

ConvertingSink::ConvertingSink(Sink& inner, std::optional<Element> to) : inner_(inner), to_(to) {}

void ConvertingSink::begin(const SinkLayout& layout) {
  layout_ = layout;
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
  // Only what is still open is scanned: int32 rows are int32-exact, float32
  // rows float32-exact, and a scan stops once both answers are known.
  bool int32_exact = all_int32_.load();
  bool float32_exact = all_float32_.load();
  const bool ask_int32 = int32_exact && block.element != Element::int32;
  const bool ask_float32 = float32_exact && block.element == Element::float64;
  const std::int64_t columns = layout_.column_count();
  for (std::int64_t r = 0; r < block.rows && ((ask_int32 && int32_exact) || (ask_float32 && float32_exact)); ++r) {
    const std::int64_t at = r * block.row_stride;
    bool row_float32 = ask_float32 && float32_exact;
    bool row_int32 = ask_int32 && int32_exact;
    if (block.element == Element::float32)
      scan_row(static_cast<const float*>(block.data) + at, columns, row_int32, row_float32);
    else
      scan_row(static_cast<const double*>(block.data) + at, columns, row_int32, row_float32);
    if (ask_int32) int32_exact = row_int32;
    if (ask_float32) float32_exact = row_float32;
  }
  if (!int32_exact) all_int32_ = false;
  if (!float32_exact) all_float32_ = false;
  if (!to_ || *to_ == block.element) return inner_.put(block);
  std::vector<unsigned char> staged(static_cast<std::size_t>(block.rows * columns) * element_bytes(*to_));
  switch (block.element) {
    case Element::int32: convert_rows<std::int32_t>(block, columns, *to_, staged.data()); break;
    case Element::float32: convert_rows<float>(block, columns, *to_, staged.data()); break;
    case Element::float64: convert_rows<double>(block, columns, *to_, staged.data()); break;
  }
  inner_.put(RowBlock{block.plane, *to_, block.first_row, block.rows, columns, staged.data()});
}

std::optional<Element> ConvertingSink::narrowest_exact() const {
  if (kept_) return std::nullopt;
  if (all_int32_.load()) return Element::int32;
  return all_float32_.load() ? Element::float32 : Element::float64;
}

}  // namespace apsp
