// A fresh directory for each test that writes files.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace apsp::test {

// The directory is named after the test and this process, under the system's
// temporary directory; it is removed after a passing test and kept after a
// failing one, to look at.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write_text(const std::string& name, const std::string& text) const;
  std::string read_text(const std::string& name) const;

  std::filesystem::path dir_;
};

}  // namespace apsp::test
