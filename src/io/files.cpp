#include "io/files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <iterator>
#include <system_error>
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
std::atomic<bool> g_exchange_allowed{true};

// renameat2(a, b, RENAME_EXCHANGE): swaps the two names atomically. 0, or
// the errno: EINVAL where the file system cannot (NFS, FUSE, older
// kernels), ENOSYS without renameat2. Called through syscall(): glibc
// wraps it only from 2.28.
int exchange_names(const std::string& a, const std::string& b) noexcept {
  if (!g_exchange_allowed.load()) return EINVAL;
#ifdef SYS_renameat2
  constexpr unsigned kRenameExchange = 1u << 1;  // RENAME_EXCHANGE, <linux/fs.h>
  if (::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), kRenameExchange) == 0) return 0;
  return errno;
#else
  (void)a;
  (void)b;
  return ENOSYS;
#endif
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

// This host's name as hidden names carry it: letters, digits, '.' and '-'.
const std::string& host_name() {
  static const std::string name = [] {
    char text[256] = {};
    if (::gethostname(text, sizeof text - 1) != 0) return std::string("host");
    std::string kept;
    for (const char* c = text; *c; ++c)
      if (std::isalnum(static_cast<unsigned char>(*c)) || *c == '.' || *c == '-') kept += *c;
    return kept.empty() ? std::string("host") : kept;
  }();
  return name;
}

// The start of the hidden names this host gives temporaries of `target`:
// ".NAME.apsp-HOST-"; the writing process's pid follows, then "-".
std::string hidden_prefix(const std::string& target) {
  return "." + base_name_of(target) + ".apsp-" + host_name() + "-";
}

// A fresh hidden name beside `target` (".NAME.apsp-HOST-PID-N-ATTEMPT"):
// for linking the finished file before the rename, or for a named
// temporary; the caller retries when it exists.
std::string hidden_name(const std::string& target, int attempt) {
  static std::atomic<unsigned> counter{0};
  return directory_of(target) + "/" + hidden_prefix(target) + std::to_string(::getpid()) + "-" +
         std::to_string(counter++) + "-" + std::to_string(attempt);
}

// True when no process `pid` runs on this host: none exists, or it is a
// zombie (an orphan that nobody reaped still answers kill(pid, 0)).
bool process_gone(long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  std::FILE* stat = std::fopen(path, "r");
  if (stat == nullptr) return false;
  char text[512] = {};
  const std::size_t got = std::fread(text, 1, sizeof text - 1, stat);
  std::fclose(stat);
  const char* paren = std::strrchr(text, ')');
  return got > 0 && paren != nullptr && paren[1] == ' ' && paren[2] == 'Z';
}

// Removes the hidden temporaries of `target` that processes of this host
// left when they died without their signal handlers (SIGKILL, a power cut):
// those whose pid names no live process. Names of other hosts (a shared
// file system) and of live processes stay.
void remove_stale_temporaries(const std::string& target) {
  const std::string directory = directory_of(target), prefix = hidden_prefix(target);
  DIR* listing = ::opendir(directory.c_str());
  if (listing == nullptr) return;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    long pid = 0;
    const char* digits = name.c_str() + prefix.size();
    const auto parsed = std::from_chars(digits, name.c_str() + name.size(), pid);
    if (parsed.ec != std::errc() || parsed.ptr == digits || *parsed.ptr != '-' || pid <= 0) continue;
    if (pid == ::getpid() || !process_gone(pid)) continue;
    ::unlink((directory + "/" + name).c_str());
  }
  ::closedir(listing);
}

// The named temporaries of this process's open outputs, for
// remove_temporaries_on_signal: fixed slots, so that a signal handler reads
// them without locks or allocation. state 0: free; 1: being filled; 2: path
// holds a temporary's name. A temporary beyond the slots is only removed by
// its owner and by remove_stale_temporaries.
struct TemporarySlot {
  std::atomic<int> state{0};
  char path[4096];
};
TemporarySlot g_temporaries[64];

int register_temporary(const std::string& path) noexcept {
  if (path.size() >= sizeof g_temporaries[0].path) return -1;
  for (int slot = 0; slot < static_cast<int>(std::size(g_temporaries)); ++slot) {
    int free = 0;
    if (!g_temporaries[slot].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(g_temporaries[slot].path, path.c_str(), path.size() + 1);
    g_temporaries[slot].state = 2;
    return slot;
  }
  return -1;
}

void unregister_temporary(int& slot) noexcept {
  if (slot >= 0) g_temporaries[slot].state = 0;
  slot = -1;
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

// Links the file `existing` under a fresh hidden name beside `target`
// (`suffix` appended); returns the name, or "" with errno set.
std::string link_beside(const std::string& existing, const std::string& target, const char* suffix) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = hidden_name(target, attempt) + suffix;
    if (::link(existing.c_str(), name.c_str()) == 0) return name;
    if (errno != EEXIST) return {};
  }
  return {};
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

namespace {

// What writing `path` replaces: the file a symbolic link points to, not the link.
std::string target_of(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode))
    if (char* resolved = ::realpath(path.c_str(), nullptr)) {
      std::string target = resolved;
      std::free(resolved);
      return target;
    }
  return path;
}

}  // namespace

std::string kept_file_name(const std::string& path, const std::string& what) {
  const std::string target = target_of(path);
  return directory_of(target) + "/." + base_name_of(target) + ".apsp-" + what;
}

std::unique_ptr<OutputFile> OutputFile::kept(const std::string& path, bool reopen) {
  std::unique_ptr<OutputFile> file(new OutputFile());
  file->path_ = path;
  file->target_ = target_of(path);
  struct stat info {};
  const bool exists = ::stat(file->target_.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode))
    throw UsageError("cannot keep the partial rows of " + path +
                         " for a resumed run: it is not a regular file (write a file, or run without --checkpoint)",
                     "checkpoint");
  file->temporary_ = kept_file_name(path, "partial");
  // A run killed inside its commit (between exchange_over_target's exchange
  // and unlink) leaves the partial name on the finished output: the name
  // goes, so that this run does not write into the output in place.
  struct stat partial {};
  if (exists && ::stat(file->temporary_.c_str(), &partial) == 0 && partial.st_dev == info.st_dev &&
      partial.st_ino == info.st_ino)
    ::unlink(file->temporary_.c_str());
  file->fd_ = ::open(file->temporary_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (file->fd_ < 0) throw ResourceError("cannot open " + file->temporary_ + " for writing: " + reason(errno));
  file->mode_ = Mode::kept;
  if (::flock(file->fd_, LOCK_EX | LOCK_NB) != 0)
    throw ResourceError("cannot write " + path + ": another run holds its partial output " + file->temporary_);
  if (!reopen) file->resize(0);
  if (exists) ::fchmod(file->fd_, info.st_mode & 07777);
  return file;
}

bool OutputFile::read_at(std::uint64_t offset, void* data, std::size_t size) const {
  auto* next = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t got = ::pread(fd_, next, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    next += got;
    offset += static_cast<std::uint64_t>(got);
    size -= static_cast<std::size_t>(got);
  }
  return true;
}

std::uint64_t OutputFile::size() const {
  struct stat info {};
  return fd_ >= 0 && ::fstat(fd_, &info) == 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
}

void OutputFile::resize(std::uint64_t size) {
  // A length the file has already is left alone: ftruncate to it would still
  // count as a cut (below), and a fresh partial file is created empty.
  const std::uint64_t before = this->size();
  if (size == before) return;
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) fail_write(errno);
  if (size < before) take_flush_on_close();
}

void OutputFile::take_flush_on_close() noexcept {
  // A file cut shorter is flagged to have its dirty pages written back when
  // a descriptor of it is next closed (ext4's auto_da_alloc and btrfs for a
  // cut to 0, XFS for any cut: against the "zero-length file after a crash"
  // of the truncate-and-rewrite idiom). That flush starts writeback of every dirty
  // page and waits while the block layer takes them: at close(), after a
  // solve wrote the whole matrix, it costs the write of the file to disk
  // (7 s for a 16 GiB output on the H100 host, issue 24). The flag is taken
  // here instead, when nothing of the file is dirty, by closing a second
  // descriptor of it (any release of the inode consumes it). Losing it
  // costs nothing a kill can tell (page-cache data outlives the process);
  // what a power cut may lose is docs/perf.md's ("What a checkpointed
  // output survives").
  const std::string self = "/proc/self/fd/" + std::to_string(fd_);
  int again = ::open(self.c_str(), O_RDONLY | O_CLOEXEC);
  if (again < 0 && !temporary_.empty()) again = ::open(temporary_.c_str(), O_RDONLY | O_CLOEXEC);
  if (again >= 0) ::close(again);
}

OutputFile::OutputFile(const std::string& path) : path_(path), target_(target_of(path)) {
  struct stat info {};
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
    // A hidden name with this host and pid, so that a later run can tell a
    // dead process's temporary (remove_stale_temporaries); created as
    // open(O_CREAT) creates files, 0666 less the umask.
    remove_stale_temporaries(target_);
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      const std::string name = hidden_name(target_, attempt);
      fd_ = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ >= 0)
        temporary_ = name;
      else if (errno != EEXIST)
        break;
    }
    if (fd_ < 0) throw ResourceError("cannot open " + path + " for writing: " + reason(errno));
    mode_ = Mode::named;
    slot_ = register_temporary(temporary_);
  }
  if (exists) ::fchmod(fd_, info.st_mode & 07777);
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

void write_fully(int fd, const void* data, std::size_t size, const std::string& path) {
  const char* next = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t put = ::write(fd, next, std::min<std::size_t>(size, std::size_t{1} << 30));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) throw ResourceError("cannot write " + path + ": " + reason(put < 0 ? errno : EIO));
    next += put;
    size -= static_cast<std::size_t>(put);
  }
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
  remove_stale_temporaries(target_);
  slot_ = register_temporary(temporary_);
  return 0;
}

void OutputFile::rename_over_target(ReplacedFile* replaced) {
  const bool renames = mode_ == Mode::named || mode_ == Mode::kept;
  if (replaced != nullptr) {
    replaced->drop();
    replaced->target_ = target_;
    replaced->armed_ = true;
  }
  if (renames && exchange_over_target(replaced)) return;
  if (replaced != nullptr) {
    struct stat info {};
    if (::lstat(target_.c_str(), &info) != 0) {
      replaced->kept_ = errno == ENOENT;  // new: restoring removes it
    } else if (S_ISREG(info.st_mode)) {
      replaced->previous_ = link_beside(target_, target_, "-previous");
      replaced->kept_ = !replaced->previous_.empty();
    }
  }
  if (renames && ::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int error_number = errno;
    if (replaced != nullptr) replaced->drop();
    discard();
    fail_write(error_number);
  }
  unregister_temporary(slot_);
  temporary_.clear();
}

// An existing regular target is replaced by exchanging names with it
// (renameat2 RENAME_EXCHANGE), then unlinking the name that now holds the
// old file, not by rename(2) over it: ext4 (auto_da_alloc, the default) and
// btrfs start writeback of a file renamed over an existing one and wait while
// the block layer takes it, so that after a power cut the name holds the old
// or the new contents and never a new file whose data did not reach the
// disk. That flush cost 0.6-0.8 s per GiB in rename on the development
// machine (the write of the whole output at the disk's bandwidth: about 7 s
// for 16 GiB on the H100 host, predicted); an exchange is not flushed, and the
// new pages are left to the kernel's writeback, as for a target that did not
// exist. What changes is only what a power cut (or a kernel crash) in the
// seconds after the commit leaves, until writeback has run
// (vm.dirty_expire_centisecs, 30 s by default): the target may then be
// short, empty or lack pages, and the old file be gone, as a new output
// could be before. The library never promised outputs durable against
// power loss (no output is fsynced but a distributed one, whose ranks sync
// their rows before this; docs/perf.md "What a checkpointed output
// survives"); `sync FILE` after the run makes one durable. What a kill or a
// failure leaves is as before: the target names the old file or the new
// one at every instant; the old file sits under the temporary's hidden,
// registered name until unlinked (a signal handler removes it, after a
// SIGKILL the next run of the target does); with `replaced` it stays
// there for restore(). False, with nothing changed, where the target is
// new or not a regular file, or the exchange fails (a file system without
// it): rename(2) then, as before.
bool OutputFile::exchange_over_target(ReplacedFile* replaced) {
  struct stat info {};
  if (::lstat(target_.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;
  // The kept partial file keeps its name for a resumed run, so a second,
  // hidden link of it is exchanged: the partial name never holds the old
  // output, and a kill between the steps leaves it naming the new rows.
  std::string source = temporary_;
  int slot = slot_;
  if (mode_ == Mode::kept) {
    remove_stale_temporaries(target_);
    source = link_beside(temporary_, target_, "");
    if (source.empty()) return false;
    slot = register_temporary(source);
  }
  if (exchange_names(source, target_) != 0) {
    if (mode_ == Mode::kept) {
      ::unlink(source.c_str());
      unregister_temporary(slot);
    }
    return false;
  }
  if (mode_ == Mode::kept) {
    // A kill just before this leaves the partial name on the finished
    // output's inode: kept() drops such a name before reusing it.
    ::unlink(temporary_.c_str());
    unregister_temporary(slot_);
  }
  temporary_.clear();
  slot_ = -1;
  if (replaced != nullptr) {
    replaced->previous_ = source;
    replaced->slot_ = slot;
    replaced->kept_ = true;
  } else {
    ::unlink(source.c_str());
    unregister_temporary(slot);
  }
  return true;
}

bool ReplacedFile::restore() noexcept {
  if (!armed_) return true;
  armed_ = false;
  bool restored = false;
  if (!kept_) {
    restored = false;
  } else if (previous_.empty()) {
    restored = ::unlink(target_.c_str()) == 0 || errno == ENOENT;
  } else if (exchange_names(previous_, target_) == 0) {
    // As in OutputFile::exchange_over_target: no flush of the old file.
    restored = true;
    ::unlink(previous_.c_str());
  } else {
    restored = ::rename(previous_.c_str(), target_.c_str()) == 0;
    if (!restored) ::unlink(previous_.c_str());
  }
  unregister_temporary(slot_);
  previous_.clear();
  return restored;
}

void ReplacedFile::drop() noexcept {
  if (armed_ && !previous_.empty()) ::unlink(previous_.c_str());
  unregister_temporary(slot_);
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
  unregister_temporary(slot_);
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
    throw ResourceError("cannot open " + name + " for writing: " + reason(errno) + " (the processes writing " + path +
                        " must share its file system)");
  if (!shared_name.empty()) {
    file->mode_ = Mode::joined;
    file->temporary_ = shared_name;
    file->slot_ = register_temporary(shared_name);  // any rank a signal ends removes it
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
  struct stat x {
  }, y{};
  const bool a_exists = ::stat(a.c_str(), &x) == 0, b_exists = ::stat(b.c_str(), &y) == 0;
  if ((a_exists && !S_ISREG(x.st_mode)) || (b_exists && !S_ISREG(y.st_mode))) return false;
  if (a_exists && b_exists && x.st_dev == y.st_dev && x.st_ino == y.st_ino) return true;
  return resolved_output(a) == resolved_output(b);
}

void remove_registered_temporaries() noexcept {
  for (TemporarySlot& slot : g_temporaries)
    if (slot.state.load() == 2) ::unlink(slot.path);
}

void set_unnamed_temporaries_for_testing(bool allowed) { g_unnamed_allowed = allowed; }

void set_rename_exchange_for_testing(bool allowed) { g_exchange_allowed = allowed; }

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

namespace apsp::io {

void remove_temporaries_on_signal() noexcept { detail::remove_registered_temporaries(); }

}  // namespace apsp::io
