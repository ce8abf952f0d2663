// A Sink for tests: keeps the rows one rank is given, by row index, and
// records how the solver used it (begin, commit, discard, rows given twice).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "apsp/sink.hpp"

namespace apsp::test {

class RowCollector : public Sink {
 public:
  void begin(const SinkLayout& layout) override;
  void put(const RowBlock& block) override;
  void commit() override { ++commits; }
  void discard() noexcept override { ++discards; }

  SinkLayout layout;
  int begins = 0, commits = 0, discards = 0;
  std::string problem;  // the first misuse seen (a row given twice, a bad block), or empty
  // Distance rows of an int32 layout, predecessor rows.
  std::map<std::int64_t, std::vector<std::int32_t>> distances, predecessors;
  // Distance rows of a float32 or float64 layout, widened to double.
  std::map<std::int64_t, std::vector<double>> real_distances;

 private:
  std::mutex mutex_;
};

}  // namespace apsp::test
