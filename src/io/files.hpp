// Whole-file input (memory-mapped where possible) and checked output for the
// format readers and writers. Every failure throws an apsp error naming the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace apsp::io::detail {

// The bytes of a file, read-only. Regular files are memory-mapped; pipes and
// other streams are read into memory. Missing or unreadable files throw
// InputError "cannot open PATH: <reason>".
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  // Views `bytes`, which the caller keeps alive, named `name` in messages:
  // input that is already in memory (the fuzz harnesses feed the readers so).
  InputFile(std::string name, std::string_view bytes)
      : path_(std::move(name)), data_(bytes.data()), size_(bytes.size()) {}
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::string_view bytes() const { return {data_, size_}; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // "PATH:LINE" and "PATH@OFFSET", the locations InputError carries.
  std::string at_line(std::int64_t line) const;
  std::string at_byte(std::uint64_t offset) const;

 private:
  std::string path_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  void* mapping_ = nullptr;  // non-null when data_ is an mmap of size_ bytes
  std::string read_copy_;    // holds the bytes when the file could not be mapped
};

// A file written atomically. The bytes go to a temporary file in the
// target's directory: an unnamed one (O_TMPFILE) where the file system can
// name it later, so that even a killed process leaves nothing behind, else a
// hidden ".NAME.apsp-HOST-PID-..." removed on failure, by the signal handler
// of a front end (apsp::io::remove_temporaries_on_signal), or, after a
// SIGKILL, by the next OutputFile of that target on this host once PID is
// gone. A file shared by several processes (share()) has such a name too. close() renames it over the
// target: a failed or interrupted write never leaves a truncated file, and an
// existing file of that name (whose permissions the new one keeps) is
// untouched until the new one is complete. A target that exists and is not a
// regular file (/dev/stdout, a FIFO) is written directly.
//
// A failed open (no such directory, no permission) and a failed write,
// close or rename (disk full, I/O error) throw ResourceError: the CLI's
// "failed write", exit 3. close() must be called to keep the
// file; the destructor (or discard()) drops it.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Appends at the end of what write() wrote so far (one writer at a time).
  void write(const void* data, std::size_t size);
  // Writes at `offset` without moving the append position; thread-safe, so
  // several threads may fill disjoint ranges. Do not mix with write().
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  // Completes the file: closes it and gives it the target's name (an
  // existing target's name is exchanged with the temporary's, and the old
  // file unlinked: see exchange_over_target in files.cpp). With `replaced`,
  // the file it replaces is kept (under a hidden name) until the caller
  // restores or drops it: for outputs that must be replaced together or not
  // at all.
  void close(class ReplacedFile* replaced = nullptr);
  // Drops the temporary file (nothing happens to the target). Idempotent.
  void discard() noexcept;
  const std::string& path() const { return path_; }

  // One file written by several processes (the ranks of a distributed
  // solve, on a shared file system), each with write_at. The process that
  // created it calls share(), which gives an unnamed temporary its hidden
  // name and returns the name the others pass to join() ("" for a target
  // written directly). Every process then calls finish_writes() (fsync and
  // close); after all have succeeded the creator's close() renames the
  // temporary over the target, and a joined file's close() does nothing
  // more. discard() on any of them removes the temporary.
  std::string share();
  static std::unique_ptr<OutputFile> join(const std::string& path, const std::string& shared_name);
  void finish_writes();

  // A temporary kept for a resumed run: the hidden kept_file_name(path,
  // "partial") beside the target, opened for reading and writing and locked
  // (flock) against a second run writing the same target (ResourceError).
  // Fresh (`reopen` false), its old contents are dropped; reopened, they
  // stay. Unlike the other modes it is never unlinked: not by discard(), the
  // destructor, a signal handler or a later run; close() gives it the
  // target's name as any temporary (an existing target through a hidden
  // link of it, then the partial name unlinked), and a partial name that a
  // run killed inside that step left on the target's own file is dropped
  // here. A target that exists and is not a regular file (/dev/stdout) is a
  // UsageError: a partial file cannot be kept.
  static std::unique_ptr<OutputFile> kept(const std::string& path, bool reopen);
  // Reads `size` bytes at `offset`; false when the file is shorter or the read fails.
  bool read_at(std::uint64_t offset, void* data, std::size_t size) const;
  // The file's length now (0 when it cannot be told).
  std::uint64_t size() const;
  // Sets the length (holes read as zeros); ResourceError on failure. A cut
  // leaves no flush pending for close() (take_flush_on_close).
  void resize(std::uint64_t size);

 private:
  enum class Mode { direct, unnamed, named, joined, kept };
  OutputFile() = default;
  [[noreturn]] void fail_write(int error_number) const;
  // Gives an unnamed temporary its hidden name: 0, or the errno after discard().
  int name_temporary() noexcept;
  // The creator's last step: the named temporary over the target.
  void rename_over_target(ReplacedFile* replaced);
  // rename_over_target's way where the target exists: true when done.
  bool exchange_over_target(ReplacedFile* replaced);
  // After the file was cut shorter: takes the file system's flush-on-close
  // that the cut armed, while nothing is dirty (see files.cpp).
  void take_flush_on_close() noexcept;

  std::string path_;       // as given, for messages
  std::string target_;     // what close() renames over: path_, or where its symlink points
  std::string temporary_;  // Mode::named: the hidden file's path
  Mode mode_ = Mode::direct;
  int fd_ = -1;
  bool finished_ = false;  // finish_writes() closed fd_; close() only renames
  int slot_ = -1;          // temporary_'s place in remove_temporaries_on_signal's list, or -1
};

// True when writing `a` and writing `b` would replace one file: the same
// name however spelt ("./x" and "x", a symbolic link and its target:
// compared as the real path of the parent directory and the name, a link
// followed to its target), or two hard links of one existing file (st_dev
// and st_ino). An existing target that is not a regular file (/dev/null, a
// FIFO) is written directly, not replaced, and is never "the same".
bool same_output_file(const std::string& a, const std::string& b);

// What OutputFile::close(&replaced) replaced: the previous file under a
// hidden name, or nothing when the target was new. restore() puts the
// previous file back (or removes the new one); drop() (and the destructor)
// forget it. Move-only.
class ReplacedFile {
 public:
  ReplacedFile() = default;
  ~ReplacedFile() { drop(); }
  ReplacedFile(const ReplacedFile&) = delete;
  ReplacedFile& operator=(const ReplacedFile&) = delete;

  // False when the previous file could not be kept (no hard links on its
  // file system) or put back: the target then holds the new file.
  bool restore() noexcept;
  void drop() noexcept;

 private:
  friend class OutputFile;
  std::string target_;
  std::string previous_;  // the hidden name of the replaced file; empty: none
  int slot_ = -1;         // previous_'s place in remove_temporaries_on_signal's list, or -1
  bool kept_ = false;     // the target was new, or previous_ holds its old file
  bool armed_ = false;
};

// The hidden file beside `path` (a symbolic link followed) that a
// resumable output keeps: ".NAME.apsp-WHAT" ("partial": the rows so far,
// "journal": which rows they are). No other temporary has such a name.
std::string kept_file_name(const std::string& path, const std::string& what);

// Writes all `size` bytes to the descriptor `fd` (retrying short writes and
// EINTR); ResourceError "cannot write PATH: <reason>" on failure.
void write_fully(int fd, const void* data, std::size_t size, const std::string& path);

// The directory part of `path` ("." for a bare name).
std::string directory_of(const std::string& path);

// Unlinks the named temporaries of this process's open outputs;
// async-signal-safe (apsp::io::remove_temporaries_on_signal).
void remove_registered_temporaries() noexcept;

// Test hook: false makes OutputFile use hidden named temporaries even where
// unnamed ones work, so both paths can be tested on one machine.
void set_unnamed_temporaries_for_testing(bool allowed);

// Test hook: false makes OutputFile replace an existing target by rename(2)
// over it, as on a file system without renameat2's RENAME_EXCHANGE.
void set_rename_exchange_for_testing(bool allowed);

// Buffered text output over an OutputFile, flushed in large chunks.
class TextWriter {
 public:
  explicit TextWriter(OutputFile& out) : out_(out) { buffer_.reserve(kChunk + 64); }
  TextWriter& text(std::string_view text);
  TextWriter& character(char c);
  TextWriter& number(std::int64_t value);
  // Writes everything buffered so far to the file.
  void flush();

 private:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  void flush_if_full() {
    if (buffer_.size() >= kChunk) flush();
  }
  OutputFile& out_;
  std::string buffer_;
};

// Creates `path` and writes it through a TextWriter handed to fill(TextWriter&).
template <class Fill>
void write_text_file(const std::string& path, Fill fill) {
  OutputFile out(path);
  TextWriter text(out);
  fill(text);
  text.flush();
  out.close();
}

}  // namespace apsp::io::detail
