#include "dist/raw_file_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "apsp/distributed.hpp"
#include "apsp/error.hpp"

namespace apsp::dist {
namespace {

std::string system_error(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

void write_all(int fd, const void* data, std::size_t bytes, std::int64_t offset, const std::string& path) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t done = pwrite(fd, p, bytes, static_cast<off_t>(offset));
    if (done < 0) {
      if (errno == EINTR) continue;
      throw ResourceError(system_error("cannot write", path));
    }
    p += done;
    bytes -= static_cast<std::size_t>(done);
    offset += done;
  }
}

}  // namespace

RawFileSink::RawFileSink(Communicator& comm, std::string distances_path, std::string predecessors_path)
    : comm_(comm) {
  distances_.path = std::move(distances_path);
  predecessors_.path = std::move(predecessors_path);
}

RawFileSink::~RawFileSink() {
  for (Target* t : {&distances_, &predecessors_})
    if (t->fd >= 0) close(t->fd);
}

// Rank 0 creates and sizes the temporary file and tells the others its name;
// then every rank opens it. Errors are agreed, so no rank waits for one that
// failed.
void RawFileSink::open_all(Target& t, std::int64_t bytes) {
  agree(comm_, [&] {
    if (comm_.rank() != 0) return;
    t.temporary = t.path + ".apsp-tmp-" + std::to_string(getpid());
    const int fd = ::open(t.temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw InputError(system_error("cannot create", t.temporary));
    const int sized = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
    ::close(fd);
    if (sized != 0 && sized != EOPNOTSUPP && sized != EINVAL) {
      unlink(t.temporary.c_str());
      throw ResourceError("cannot make room for " + std::to_string(bytes) + " bytes in " + t.temporary + ": " +
                          std::strerror(sized));
    }
    if (sized != 0 && truncate(t.temporary.c_str(), static_cast<off_t>(bytes)) != 0) {
      const std::string error = system_error("cannot size", t.temporary);
      unlink(t.temporary.c_str());
      throw ResourceError(error);
    }
  });
  std::vector<std::uint8_t> name(t.temporary.begin(), t.temporary.end());
  std::int64_t length = static_cast<std::int64_t>(name.size());
  comm_.broadcast(&length, 1, 0);
  name.resize(static_cast<std::size_t>(length));
  comm_.broadcast(name.data(), name.size(), 0);
  t.temporary.assign(name.begin(), name.end());
  agree(comm_, [&] {
    t.fd = ::open(t.temporary.c_str(), O_WRONLY | O_CLOEXEC);
    if (t.fd < 0) throw InputError(system_error("cannot open", t.temporary) + " (the ranks must share a file system)");
  });
}

void RawFileSink::begin(const SinkLayout& layout) {
  if (layout.distance_element != Element::int32) throw UsageError("a raw .bin matrix holds int32 distances only");
  n_ = layout.n;
  const std::int64_t bytes = n_ * n_ * static_cast<std::int64_t>(sizeof(std::int32_t));
  if (!distances_.path.empty()) open_all(distances_, bytes);
  if (layout.predecessors && !predecessors_.path.empty()) open_all(predecessors_, bytes);
}

RawFileSink::Target& RawFileSink::target_of(Plane plane) {
  return plane == Plane::distances ? distances_ : predecessors_;
}

void RawFileSink::put(const RowBlock& block) {
  Target& t = target_of(block.plane);
  if (t.fd < 0) return;  // a plane this sink does not write
  // Both planes are int32 here (begin refuses other distance types).
  const std::size_t row_bytes = static_cast<std::size_t>(n_) * sizeof(std::int32_t);
  const auto* data = static_cast<const char*>(block.data);
  const std::int64_t offset = block.first_row * static_cast<std::int64_t>(row_bytes);
  if (block.row_stride == n_) {
    write_all(t.fd, data, row_bytes * static_cast<std::size_t>(block.rows), offset, t.temporary);
    return;
  }
  const std::size_t stride_bytes = static_cast<std::size_t>(block.row_stride) * sizeof(std::int32_t);
  for (std::int64_t r = 0; r < block.rows; ++r)
    write_all(t.fd, data + static_cast<std::size_t>(r) * stride_bytes, row_bytes,
              offset + r * static_cast<std::int64_t>(row_bytes), t.temporary);
}

void RawFileSink::commit() {
  agree(comm_, [&] {
    for (Target* t : {&distances_, &predecessors_}) {
      if (t->fd < 0) continue;
      const bool synced = fsync(t->fd) == 0;
      const std::string error = system_error("cannot write", t->temporary);
      const bool closed = ::close(t->fd) == 0;
      t->fd = -1;
      if (!synced || !closed) throw ResourceError(error);
    }
  });
  agree(comm_, [&] {
    if (comm_.rank() != 0) return;
    for (Target* t : {&distances_, &predecessors_}) {
      if (t->temporary.empty()) continue;
      if (std::rename(t->temporary.c_str(), t->path.c_str()) != 0)
        throw ResourceError(system_error("cannot rename " + t->temporary + " to", t->path));
      t->temporary.clear();
    }
  });
}

// Any rank removes the temporary file: discard() runs on every rank after an
// agreed failure, and on a rank that failed alone just before it aborts the
// job (so its file goes even though rank 0 is killed).
void RawFileSink::discard() noexcept {
  for (Target* t : {&distances_, &predecessors_}) {
    if (t->fd >= 0) ::close(t->fd);
    t->fd = -1;
    if (!t->temporary.empty()) unlink(t->temporary.c_str());
    t->temporary.clear();
  }
}

}  // namespace apsp::dist

namespace apsp {

std::unique_ptr<Sink> make_distributed_bin_file_sink(Communicator& comm, const std::string& distances_path,
                                                     const std::string& predecessors_path) {
  return std::make_unique<dist::RawFileSink>(comm, distances_path, predecessors_path);
}

}  // namespace apsp
