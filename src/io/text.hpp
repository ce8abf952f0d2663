// Line and token scanning and checked number parsing for the text formats.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apsp/graph.hpp"
#include "io/files.hpp"

namespace apsp::io::detail {

// Splits text into lines at "\n", numbered from 1. A "\r" before it stays in
// the line, where Tokens takes it for whitespace.
class LineScanner {
 public:
  explicit LineScanner(std::string_view text) : rest_(text) {}
  // Moves to the next line; false after the last one.
  bool next();
  std::string_view line() const { return line_; }
  std::int64_t number() const { return number_; }

 private:
  std::string_view rest_;
  std::string_view line_;
  std::int64_t number_ = 0;
};

// Whitespace-separated tokens of one line.
class Tokens {
 public:
  explicit Tokens(std::string_view line) : rest_(line) {}
  // The next token, or nullopt at the end of the line.
  std::optional<std::string_view> next();
  // The line without leading whitespace: empty for a blank line.
  static std::string_view trim_front(std::string_view line);

 private:
  std::string_view rest_;
};

// A line of an input file, rendered as "PATH:LINE" only when an error is
// thrown, so that locating every token costs nothing.
class LineLocation {
 public:
  LineLocation(const InputFile& file, std::int64_t line) : file_(file), line_(line) {}
  operator std::string() const { return file_.at_line(line_); }

 private:
  const InputFile& file_;
  std::int64_t line_;
};

// 'token' for messages: shortened and with control bytes replaced, so that a
// message stays one line.
std::string quoted(std::string_view token);

// A whole token as a base-10 integer (optional leading + or -), or nullopt.
std::optional<std::int64_t> to_int64(std::string_view token);

// A whole token as a decimal or scientific floating-point number, or nullopt.
std::optional<double> to_double(std::string_view token);

// The value of a floating-point cell if it is an integer inside int64, else nullopt.
std::optional<std::int64_t> integral_value(double value);

// Parses a token that must be an integer; `what` names it in the message
// ("weight", "vertex count"). Throws InputError at `location`.
std::int64_t parse_integer(std::string_view token, const char* what, const LineLocation& location);

// Range checks that throw InputError at `location`.
weight_t checked_weight(std::int64_t value, const LineLocation& location);
std::int64_t checked_vertex_count(std::int64_t value, const LineLocation& location);
// A vertex id numbered from `base` (0 or 1) among n vertices, as a 0-based vertex.
vertex_t checked_vertex(std::int64_t id, int base, std::int64_t n, const LineLocation& location);

// Positions in a text file while parsing line by line.
class TextCursor {
 public:
  explicit TextCursor(const InputFile& file) : file_(file), lines_(file.bytes()) {}
  bool next_line() { return lines_.next(); }
  std::string_view line() const { return lines_.line(); }
  std::int64_t line_number() const { return lines_.number(); }
  LineLocation here() const { return {file_, lines_.number()}; }
  // The last line (line 1 of an empty file), for "input ended early" errors.
  LineLocation at_last_line() const { return {file_, lines_.number() > 0 ? lines_.number() : 1}; }
  // The next token of `tokens`, which must exist; `what` names it in the error.
  std::string_view require(Tokens& tokens, const char* what) const;
  // Throws unless `tokens` is exhausted.
  void require_end(Tokens& tokens) const;

 private:
  const InputFile& file_;
  LineScanner lines_;
};

}  // namespace apsp::io::detail
