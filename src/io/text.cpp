#include "io/text.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "apsp/error.hpp"

namespace apsp::io::detail {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// from_chars takes no leading '+'.
std::string_view without_plus(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-') token.remove_prefix(1);
  return token;
}

}  // namespace

bool LineScanner::next() {
  if (rest_.empty()) return false;
  const std::size_t end = rest_.find('\n');
  line_ = rest_.substr(0, end);
  rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 1);
  ++number_;
  return true;
}

std::optional<std::string_view> Tokens::next() {
  rest_ = trim_front(rest_);
  if (rest_.empty()) return std::nullopt;
  std::size_t length = 0;
  while (length < rest_.size() && !is_space(rest_[length])) ++length;
  const std::string_view token = rest_.substr(0, length);
  rest_.remove_prefix(length);
  return token;
}

std::string_view Tokens::trim_front(std::string_view line) {
  std::size_t skip = 0;
  while (skip < line.size() && is_space(line[skip])) ++skip;
  return line.substr(skip);
}

std::string quoted(std::string_view token) {
  constexpr std::size_t kLongest = 40;
  std::string out = "'";
  for (std::size_t k = 0; k < token.size() && k < kLongest; ++k) {
    const auto c = static_cast<unsigned char>(token[k]);
    out.push_back(c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c));
  }
  if (token.size() > kLongest) out += "...";
  return out + "'";
}

std::optional<std::int64_t> to_int64(std::string_view token) {
  token = without_plus(token);
  std::int64_t value = 0;
  const char* end = token.data() + token.size();
  const auto result = std::from_chars(token.data(), end, value);
  if (token.empty() || result.ec != std::errc() || result.ptr != end) return std::nullopt;
  return value;
}

std::optional<double> to_double(std::string_view token) {
  token = without_plus(token);
  double value = 0;
  const char* end = token.data() + token.size();
  const auto result = std::from_chars(token.data(), end, value, std::chars_format::general);
  if (token.empty() || result.ec != std::errc() || result.ptr != end) return std::nullopt;
  return value;
}

std::optional<std::int64_t> integral_value(double value) {
  // 2^63 is exact in a double; every integral double in [-2^63, 2^63) fits int64.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (!std::isfinite(value) || value != std::trunc(value) || value < -kTwoTo63 || value >= kTwoTo63)
    return std::nullopt;
  return static_cast<std::int64_t>(value);
}

std::int64_t parse_integer(std::string_view token, const char* what, const LineLocation& location) {
  const auto value = to_int64(token);
  if (!value) throw InputError(std::string("expected an integer ") + what + ", found " + quoted(token), location);
  return *value;
}

weight_t checked_weight(std::int64_t value, const LineLocation& location) {
  if (value < std::numeric_limits<weight_t>::min() || value > std::numeric_limits<weight_t>::max())
    throw InputError("weight " + std::to_string(value) + " is outside int32", location);
  return static_cast<weight_t>(value);
}

std::int64_t checked_vertex_count(std::int64_t value, const LineLocation& location) {
  if (value < 0) throw InputError("negative vertex count " + std::to_string(value), location);
  if (value > std::numeric_limits<vertex_t>::max())
    throw InputError("vertex count " + std::to_string(value) + " exceeds int32", location);
  return value;
}

vertex_t checked_vertex(std::int64_t id, int base, std::int64_t n, const LineLocation& location) {
  if (id < base || id - base >= n)
    throw InputError("vertex " + std::to_string(id) + " is outside " + std::to_string(base) + ".." +
                         std::to_string(n - 1 + base),
                     location);
  return static_cast<vertex_t>(id - base);
}

std::string_view TextCursor::require(Tokens& tokens, const char* what) const {
  const auto token = tokens.next();
  if (!token) throw InputError(std::string("missing ") + what, here());
  return *token;
}

void TextCursor::require_end(Tokens& tokens) const {
  if (const auto extra = tokens.next()) throw InputError("unexpected extra token " + quoted(*extra), here());
}

}  // namespace apsp::io::detail
