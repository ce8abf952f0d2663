#include "core/stages.hpp"

namespace apsp {

void StageTimes::add(std::string name, double seconds, std::uint64_t bytes) {
  stages.push_back(Stage{std::move(name), seconds, bytes});
}

double StageTimes::seconds(const std::string& name) const {
  double sum = 0;
  for (const Stage& s : stages)
    if (s.name == name) sum += s.seconds;
  return sum;
}

double StageTimes::total() const {
  double sum = 0;
  for (const Stage& s : stages) sum += s.seconds;
  return sum;
}

}  // namespace apsp
