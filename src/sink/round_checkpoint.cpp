#include "sink/round_checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "apsp/error.hpp"
#include "core/fingerprint.hpp"
#include "io/files.hpp"
#include "sink/row_journal.hpp"

namespace apsp::sink {
namespace {

constexpr std::uint64_t kMagic = 0x31504b4350535041ull;  // "APSPCKP1" as little-endian bytes
constexpr std::uint64_t kVersion = 1;
constexpr std::size_t kWords = 14, kMaxPlanes = 4;
using Header = std::array<std::uint64_t, kWords>;

std::uint64_t header_digest(const Header& h) {
  return core::Fingerprint().bytes(h.data(), (kWords - 1) * sizeof(std::uint64_t)).digest();
}

std::string reason() { return std::strerror(errno); }

// A file descriptor closed on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};


bool read_all(int fd, void* data, std::size_t size) {
  char* next = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t got = ::read(fd, next, std::min<std::size_t>(size, std::size_t{1} << 30));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    next += got;
    size -= static_cast<std::size_t>(got);
  }
  return true;
}

bool header_valid(int fd, Header& h) {
  return read_all(fd, h.data(), sizeof h) && h[0] == kMagic && h[1] == kVersion && h[kWords - 1] == header_digest(h);
}

// The header describes `state` of the solve `key`.
bool header_matches(const Header& h, std::uint64_t key, const RoundState& state) {
  bool same = h[2] == key && h[4] == static_cast<std::uint64_t>(state.rounds) &&
              h[5] == core::Fingerprint().text(state.layout).digest() && h[6] == state.planes.size() &&
              state.planes.size() <= kMaxPlanes && h[3] <= h[4];
  for (std::size_t p = 0; same && p < state.planes.size(); ++p) same = h[7 + p] == state.planes[p].bytes;
  return same;
}

}  // namespace

FileRoundCheckpoints::FileRoundCheckpoints(std::string path, std::uint64_t key, double interval_seconds, bool resume)
    : path_(std::move(path)),
      key_(key),
      interval_(interval_seconds),
      resume_(resume),
      last_(std::chrono::steady_clock::now()) {
  if (!resume_) ::unlink(path_.c_str());
}

bool FileRoundCheckpoints::holds(const RoundState& state) const {
  if (!resume_) return false;
  Fd file{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  Header h{};
  return file.fd >= 0 && header_valid(file.fd, h) && header_matches(h, key_, state);
}

std::int64_t FileRoundCheckpoints::restore(const RoundState& state) {
  if (!resume_) return 0;
  Fd file{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return 0;  // no checkpoint: the rounds start afresh, as the journal's note says
  Header h{};
  if (!header_valid(file.fd, h)) {
    note_ = "the checkpoint " + path_ + " is damaged: the rounds started afresh";
    return 0;
  }
  if (!header_matches(h, key_, state)) {
    note_ = "the checkpoint " + path_ + " belongs to another solve or layout: the rounds started afresh";
    return 0;
  }
  core::Fingerprint digest;
  for (const RoundState::Buffer& plane : state.planes) {
    if (!read_all(file.fd, plane.data, plane.bytes)) {
      note_ = "the checkpoint " + path_ + " is truncated: the rounds started afresh";
      return 0;
    }
    digest.bytes(plane.data, plane.bytes);
  }
  if (digest.digest() != h[11]) {
    note_ = "the checkpoint " + path_ + " is damaged: the rounds started afresh";
    return 0;
  }
  note_ = "resumed from the checkpoint after round " + std::to_string(h[3]) + " of " + std::to_string(h[4]);
  last_ = std::chrono::steady_clock::now();
  return static_cast<std::int64_t>(h[3]);
}

bool FileRoundCheckpoints::due(std::int64_t round, std::int64_t rounds) const {
  if (interval_ <= 0 || round >= rounds) return false;  // after the last round the rows follow at once
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= interval_;
}

void FileRoundCheckpoints::round_done(const RoundState& state) {
  if (!due(state.round, state.rounds)) return;
  save(state);
  last_ = std::chrono::steady_clock::now();
}

void FileRoundCheckpoints::save(const RoundState& state) {
  if (state.planes.size() > kMaxPlanes) throw UsageError("a round checkpoint holds at most 4 matrices");
  Header h{};
  h[0] = kMagic;
  h[1] = kVersion;
  h[2] = key_;
  h[3] = static_cast<std::uint64_t>(state.round);
  h[4] = static_cast<std::uint64_t>(state.rounds);
  h[5] = core::Fingerprint().text(state.layout).digest();
  h[6] = state.planes.size();
  core::Fingerprint digest;
  for (std::size_t p = 0; p < state.planes.size(); ++p) {
    h[7 + p] = state.planes[p].bytes;
    digest.bytes(state.planes[p].data, state.planes[p].bytes);
  }
  h[11] = digest.digest();
  h[kWords - 1] = header_digest(h);
  const std::string fresh = path_ + ".new";
  Fd file{::open(fresh.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)};
  if (file.fd < 0) throw ResourceError("cannot open " + fresh + " for writing: " + reason());
  try {
    io::detail::write_fully(file.fd, h.data(), sizeof h, fresh);
    for (const RoundState::Buffer& plane : state.planes) {
      io::detail::write_fully(file.fd, plane.data, plane.bytes / 2, fresh);
      if (&plane == &state.planes.front()) kill_point_for_testing("checkpoint-write");  // once per save
      io::detail::write_fully(file.fd, static_cast<const char*>(plane.data) + plane.bytes / 2,
                              plane.bytes - plane.bytes / 2, fresh);
    }
    if (::fdatasync(file.fd) != 0) throw ResourceError("cannot write " + fresh + ": " + reason());
    if (::rename(fresh.c_str(), path_.c_str()) != 0)
      throw ResourceError("cannot rename " + fresh + " to " + path_ + ": " + reason());
  } catch (...) {
    ::unlink(fresh.c_str());
    throw;
  }
  // The rename is durable once the directory is.
  Fd directory{::open(io::detail::directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (directory.fd >= 0) ::fsync(directory.fd);
  ++saves_;
  kill_point_for_testing("checkpoint");
}

void FileRoundCheckpoints::remove() noexcept {
  ::unlink(path_.c_str());
  ::unlink((path_ + ".new").c_str());
}

}  // namespace apsp::sink
