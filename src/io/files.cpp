#include "io/files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <new>

#include "apsp/error.hpp"

namespace apsp::io::detail {
namespace {

std::string reason(int error_number) { return std::strerror(error_number); }

// Reads a stream of unknown size (pipe, character device) to its end.
std::string read_stream(int fd, const std::string& path) {
  std::string bytes;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got == 0) return bytes;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError("cannot read " + path + ": " + reason(errno));
    }
    bytes.append(chunk, static_cast<std::size_t>(got));
  }
}

}  // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot open " + path + ": " + reason(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error_number = errno;
    ::close(fd);
    throw InputError("cannot open " + path + ": " + reason(error_number));
  }
  if (S_ISDIR(info.st_mode)) {
    ::close(fd);
    throw InputError("cannot open " + path + ": " + reason(EISDIR));
  }
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    size_ = static_cast<std::size_t>(info.st_size);
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped != MAP_FAILED) {
      ::madvise(mapped, size_, MADV_SEQUENTIAL);
      mapping_ = mapped;
      data_ = static_cast<const char*>(mapped);
      ::close(fd);
      return;
    }
  }
  try {
    read_copy_ = read_stream(fd, path);
  } catch (const std::bad_alloc&) {
    ::close(fd);
    throw ResourceError("cannot hold " + path + " in memory");
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  data_ = read_copy_.data();
  size_ = read_copy_.size();
}

InputFile::~InputFile() {
  if (mapping_ != nullptr) ::munmap(mapping_, size_);
}

std::string InputFile::at_line(std::int64_t line) const { return path_ + ":" + std::to_string(line); }

std::string InputFile::at_byte(std::uint64_t offset) const { return path_ + "@" + std::to_string(offset); }

OutputFile::OutputFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError("cannot open " + path + " for writing: " + reason(errno));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write(const void* data, std::size_t size) {
  // write() may store fewer bytes than asked (at most ~2 GiB per call on Linux).
  const char* next = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t put = ::write(fd_, next, size);
    if (put < 0) {
      if (errno == EINTR) continue;
      throw ResourceError("cannot write " + path_ + ": " + reason(errno));
    }
    next += put;
    size -= static_cast<std::size_t>(put);
  }
}

void OutputFile::close() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw ResourceError("cannot write " + path_ + ": " + reason(errno));
}

TextWriter& TextWriter::text(std::string_view text) {
  buffer_.append(text);
  flush_if_full();
  return *this;
}

TextWriter& TextWriter::character(char c) {
  buffer_.push_back(c);
  flush_if_full();
  return *this;
}

TextWriter& TextWriter::number(std::int64_t value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof digits, value);
  buffer_.append(digits, result.ptr);
  flush_if_full();
  return *this;
}

void TextWriter::flush() {
  out_.write(buffer_.data(), buffer_.size());
  buffer_.clear();
}

}  // namespace apsp::io::detail
