#include "support/scratch.hpp"

#include <unistd.h>

#include <fstream>
#include <iterator>

namespace apsp::test {

void ScratchDirTest::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = std::filesystem::temp_directory_path() / ("apsp_" + std::string(info->test_suite_name()) + "_" + info->name() +
                                                   "_" + std::to_string(static_cast<long>(getpid())));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

void ScratchDirTest::TearDown() {
  if (!HasFailure()) std::filesystem::remove_all(dir_);
}

void ScratchDirTest::write_text(const std::string& name, const std::string& text) const {
  std::ofstream(dir_ / name, std::ios::binary) << text;
}

std::string ScratchDirTest::read_text(const std::string& name) const {
  std::ifstream in(dir_ / name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace apsp::test
