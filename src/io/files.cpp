#include "io/files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <charconv>
#include <cstdio>
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

namespace {

std::atomic<bool> g_unnamed_allowed{true};

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_name_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Gives the unnamed file `fd` the name `name`: linkat with AT_EMPTY_PATH
// needs CAP_DAC_READ_SEARCH, the /proc/self/fd path works without it.
bool link_unnamed(int fd, const std::string& name) {
  if (::linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0) return true;
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  return ::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0;
}

// A fresh hidden name beside `target` for linking the finished file before
// the rename; the caller retries when it exists.
std::string hidden_name(const std::string& target, int attempt) {
  static std::atomic<unsigned> counter{0};
  return directory_of(target) + "/." + base_name_of(target) + ".apsp-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter++) + "-" + std::to_string(attempt);
}

// Links `fd` under a fresh hidden name beside `target`; returns the name, or
// "" with errno set.
std::string link_hidden(int fd, const std::string& target) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = hidden_name(target, attempt);
    if (link_unnamed(fd, name)) return name;
    if (errno != EEXIST) return {};
  }
  return {};
}

// The process's file mode creation mask, read without changing it (the
// umask() call sets it, racing with other threads creating files): Linux
// shows it in /proc/self/status; elsewhere it is set and restored.
mode_t current_umask() {
  if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned mask = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, status)) found = std::sscanf(line, "Umask: %o", &mask) == 1;
    std::fclose(status);
    if (found) return static_cast<mode_t>(mask);
  }
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

// An unnamed temporary file in `directory`, or -1 where the file system (or
// a sandbox) has no O_TMPFILE or cannot name one later: probed with a second
// empty unnamed file, since a file's own name can only be given once.
int open_unnamed(const std::string& directory, const std::string& target) {
  if (!g_unnamed_allowed.load()) return -1;
  const int probe = ::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (probe < 0) return -1;
  const std::string probe_name = link_hidden(probe, target);
  ::close(probe);
  if (probe_name.empty()) return -1;
  ::unlink(probe_name.c_str());
  // The mode of a new file, as open(O_CREAT) would give it: 0666 less the umask.
  return ::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path), target_(path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    // Replace the file the link points to, not the link.
    if (char* resolved = ::realpath(path.c_str(), nullptr)) {
      target_ = resolved;
      std::free(resolved);
    }
  }
  const bool exists = ::stat(target_.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode)) {
    if (S_ISDIR(info.st_mode)) throw ResourceError("cannot open " + path + " for writing: " + reason(EISDIR));
    fd_ = ::open(target_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd_ < 0) throw ResourceError("cannot open " + path + " for writing: " + reason(errno));
    mode_ = Mode::direct;
    return;
  }
  const std::string directory = directory_of(target_);
  fd_ = open_unnamed(directory, target_);
  mode_ = Mode::unnamed;
  if (fd_ < 0) {
    std::string pattern = directory + "/." + base_name_of(target_) + ".XXXXXX";
    fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0) throw ResourceError("cannot open " + path + " for writing: " + reason(errno));
    mode_ = Mode::named;
    temporary_ = pattern;
    // mkostemp creates 0600; a new file gets what open(O_CREAT) would give it.
    if (!exists) ::fchmod(fd_, 0666 & ~current_umask());
  }
  if (exists) ::fchmod(fd_, info.st_mode & 07777);
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::fail_write(int error_number) const {
  throw ResourceError("cannot write " + path_ + ": " + reason(error_number));
}

void OutputFile::write(const void* data, std::size_t size) {
  // write() may store fewer bytes than asked (at most ~2 GiB per call on Linux).
  const char* next = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t put = ::write(fd_, next, size);
    if (put < 0) {
      if (errno == EINTR) continue;
      fail_write(errno);
    }
    next += put;
    size -= static_cast<std::size_t>(put);
  }
}

void OutputFile::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  const char* next = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t put = ::pwrite(fd_, next, size, static_cast<off_t>(offset));
    if (put < 0) {
      if (errno == EINTR) continue;
      fail_write(errno);
    }
    if (put == 0) fail_write(EIO);
    next += put;
    offset += static_cast<std::uint64_t>(put);
    size -= static_cast<std::size_t>(put);
  }
}

int OutputFile::name_temporary() noexcept {
  if (mode_ != Mode::unnamed) return 0;
  temporary_ = link_hidden(fd_, target_);
  if (temporary_.empty()) {
    const int error_number = errno;
    discard();
    return error_number;
  }
  mode_ = Mode::named;
  return 0;
}

void OutputFile::rename_over_target(ReplacedFile* replaced) {
  if (replaced != nullptr) {
    replaced->drop();
    replaced->target_ = target_;
    struct stat info {};
    if (::lstat(target_.c_str(), &info) != 0) {
      replaced->kept_ = errno == ENOENT;  // new: restoring removes it
    } else if (S_ISREG(info.st_mode)) {
      for (int attempt = 0; attempt < 100 && replaced->previous_.empty(); ++attempt) {
        const std::string name = hidden_name(target_, attempt) + "-previous";
        if (::link(target_.c_str(), name.c_str()) == 0) replaced->previous_ = name;
        else if (errno != EEXIST) break;
      }
      replaced->kept_ = !replaced->previous_.empty();
    }
    replaced->armed_ = true;
  }
  if (mode_ == Mode::named && ::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int error_number = errno;
    if (replaced != nullptr) replaced->drop();
    discard();
    fail_write(error_number);
  }
  temporary_.clear();
}

bool ReplacedFile::restore() noexcept {
  if (!armed_) return true;
  armed_ = false;
  bool restored = false;
  if (!kept_) {
    restored = false;
  } else if (previous_.empty()) {
    restored = ::unlink(target_.c_str()) == 0 || errno == ENOENT;
  } else {
    restored = ::rename(previous_.c_str(), target_.c_str()) == 0;
    if (!restored) ::unlink(previous_.c_str());
  }
  previous_.clear();
  return restored;
}

void ReplacedFile::drop() noexcept {
  if (armed_ && !previous_.empty()) ::unlink(previous_.c_str());
  previous_.clear();
  armed_ = false;
  kept_ = false;
}

void OutputFile::close(ReplacedFile* replaced) {
  if (finished_) {
    // finish_writes() closed the descriptor; what is left is the creator's rename.
    finished_ = false;
    rename_over_target(replaced);
    return;
  }
  if (fd_ < 0) throw ResourceError("cannot write " + path_ + ": the file was already closed or discarded");
  if (const int error_number = name_temporary()) fail_write(error_number);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int error_number = errno;
    discard();
    fail_write(error_number);
  }
  rename_over_target(replaced);
}

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  finished_ = false;
  if ((mode_ == Mode::named || mode_ == Mode::joined) && !temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
}

std::string OutputFile::share() {
  if (fd_ < 0) throw ResourceError("cannot share " + path_ + ": the file was already closed or discarded");
  if (const int error_number = name_temporary())
    throw ResourceError("cannot name the temporary file for " + path_ + ": " + reason(error_number));
  return mode_ == Mode::named ? temporary_ : std::string();
}

std::unique_ptr<OutputFile> OutputFile::join(const std::string& path, const std::string& shared_name) {
  std::unique_ptr<OutputFile> file(new OutputFile());
  file->path_ = path;
  file->target_ = path;
  const std::string& name = shared_name.empty() ? path : shared_name;
  file->fd_ = ::open(name.c_str(), O_WRONLY | O_CLOEXEC);
  if (file->fd_ < 0)
    throw ResourceError("cannot open " + name + " for writing: " + reason(errno) +
                     " (the processes writing " + path + " must share its file system)");
  if (!shared_name.empty()) {
    file->mode_ = Mode::joined;
    file->temporary_ = shared_name;
  }
  return file;
}

void OutputFile::finish_writes() {
  if (fd_ < 0) throw ResourceError("cannot write " + path_ + ": the file was already closed or discarded");
  // fsync refuses special files (EINVAL): nothing to flush there.
  const bool synced = ::fsync(fd_) == 0 || errno == EINVAL || errno == EROFS;
  const int sync_error = errno;
  const int fd = fd_;
  fd_ = -1;
  const bool closed = ::close(fd) == 0;
  const int close_error = errno;
  if (!synced || !closed) {
    discard();
    fail_write(!synced ? sync_error : close_error);
  }
  finished_ = true;
}

namespace {

// The file that writing `path` replaces, as one spelling: a symbolic link
// resolved to its target, else the real path of the directory and the name.
std::string resolved_output(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode))
    if (char* resolved = ::realpath(path.c_str(), nullptr)) {
      std::string target = resolved;
      std::free(resolved);
      return target;
    }
  char* directory = ::realpath(directory_of(path).c_str(), nullptr);
  if (directory == nullptr) return path;
  std::string joined = directory;
  std::free(directory);
  return (joined == "/" ? joined : joined + "/") + base_name_of(path);
}

}  // namespace

bool same_output_file(const std::string& a, const std::string& b) {
  struct stat x {}, y {};
  const bool a_exists = ::stat(a.c_str(), &x) == 0, b_exists = ::stat(b.c_str(), &y) == 0;
  if ((a_exists && !S_ISREG(x.st_mode)) || (b_exists && !S_ISREG(y.st_mode))) return false;
  if (a_exists && b_exists && x.st_dev == y.st_dev && x.st_ino == y.st_ino) return true;
  return resolved_output(a) == resolved_output(b);
}

void set_unnamed_temporaries_for_testing(bool allowed) { g_unnamed_allowed = allowed; }

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
