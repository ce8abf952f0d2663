#include "sink/row_journal.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "apsp/error.hpp"
#include "core/fingerprint.hpp"
#include "io/files.hpp"

namespace apsp::sink {
namespace {

constexpr std::uint64_t kMagic = 0x314e524a50535041ull;  // "APSPJRN1" as little-endian bytes
constexpr std::uint64_t kVersion = 1;
constexpr std::size_t kHeaderWords = 7, kRecordWords = 5;

template <std::size_t N>
std::uint64_t digest_of_words(const std::array<std::uint64_t, N>& words, std::size_t count) {
  return core::Fingerprint().bytes(words.data(), count * sizeof(std::uint64_t)).digest();
}

std::array<std::uint64_t, kHeaderWords> header_words(const JournalHeader& h) {
  std::array<std::uint64_t, kHeaderWords> w = {
      kMagic, kVersion, h.key, static_cast<std::uint64_t>(h.n), static_cast<std::uint64_t>(h.rows), h.shape, 0};
  w[kHeaderWords - 1] = digest_of_words(w, kHeaderWords - 1);
  return w;
}

std::array<std::uint64_t, kRecordWords> record_words(const JournalRecord& r) {
  std::array<std::uint64_t, kRecordWords> w = {r.plane == Plane::distances ? 0u : 1u,
                                               static_cast<std::uint64_t>(r.first_row),
                                               static_cast<std::uint64_t>(r.rows), r.digest, 0};
  w[kRecordWords - 1] = digest_of_words(w, kRecordWords - 1);
  return w;
}


}  // namespace

JournalContents read_journal(const std::string& path) {
  JournalContents contents;
  std::string bytes;
  try {
    bytes = std::string(io::detail::InputFile(path).bytes());
  } catch (const Error&) {
    return contents;  // missing or unreadable: nothing to resume from
  }
  contents.state = JournalContents::State::damaged;
  std::array<std::uint64_t, kHeaderWords> header{};
  if (bytes.size() < sizeof header) return contents;
  std::memcpy(header.data(), bytes.data(), sizeof header);
  if (header[0] != kMagic || header[1] != kVersion ||
      header[kHeaderWords - 1] != digest_of_words(header, kHeaderWords - 1))
    return contents;
  contents.state = JournalContents::State::ok;
  contents.header = {header[2], static_cast<std::int64_t>(header[3]), static_cast<std::int64_t>(header[4]), header[5]};
  std::size_t at = sizeof header;
  std::array<std::uint64_t, kRecordWords> record{};
  for (; at + sizeof record <= bytes.size(); at += sizeof record) {
    std::memcpy(record.data(), bytes.data() + at, sizeof record);
    const auto first = static_cast<std::int64_t>(record[1]), rows = static_cast<std::int64_t>(record[2]);
    if (record[kRecordWords - 1] != digest_of_words(record, kRecordWords - 1) || record[0] > 1 || first < 0 ||
        rows <= 0 || first > contents.header.rows - rows) {
      ++contents.damaged_records;
      continue;
    }
    contents.records.push_back({record[0] == 0 ? Plane::distances : Plane::predecessors, first, rows, record[3]});
  }
  if (at != bytes.size()) ++contents.damaged_records;  // a torn last record
  return contents;
}

RowJournal::RowJournal(std::string path, const JournalHeader& header, const std::vector<JournalRecord>& records)
    : path_(std::move(path)) {
  const std::string fresh = path_ + ".new";
  const int fd = ::open(fresh.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw ResourceError("cannot open " + fresh + " for writing: " + std::strerror(errno));
  try {
    std::string bytes;
    const auto words = header_words(header);
    bytes.append(reinterpret_cast<const char*>(words.data()), sizeof words);
    for (const JournalRecord& r : records) {
      const auto w = record_words(r);
      bytes.append(reinterpret_cast<const char*>(w.data()), sizeof w);
    }
    io::detail::write_fully(fd, bytes.data(), bytes.size(), fresh);
    if (::rename(fresh.c_str(), path_.c_str()) != 0)
      throw ResourceError("cannot rename " + fresh + " to " + path_ + ": " + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(fresh.c_str());
    throw;
  }
  ::close(fd);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) throw ResourceError("cannot open " + path_ + " for writing: " + std::strerror(errno));
}

RowJournal::~RowJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void RowJournal::append(const JournalRecord& record) {
  const auto words = record_words(record);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    io::detail::write_fully(fd_, words.data(), sizeof words, path_);
  }
  kill_point_for_testing("journal");
}

void RowJournal::remove() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

void kill_point_for_testing(const char* point) {
  static const std::string wanted = [] {
    const char* text = std::getenv("APSP_TEST_KILL_AT");
    return std::string(text == nullptr ? "" : text);
  }();
  if (wanted.empty()) return;
  const std::size_t colon = wanted.find(':');
  if (wanted.compare(0, colon, point) != 0) return;
  static std::atomic<long> passes{0};
  const long count = colon == std::string::npos ? 1 : std::atol(wanted.c_str() + colon + 1);
  if (++passes == count) ::raise(SIGKILL);
}

}  // namespace apsp::sink
