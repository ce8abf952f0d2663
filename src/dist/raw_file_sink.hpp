// Private to src/dist and the CLI: every rank's rows into one raw .bin file
// (n x n int32, row-major, the NTHU output format), written in place.
//
// STAND-IN: replace with the shared file sinks of src/sink (bin, npy, text)
// once they take a communicator; until then the distributed CLI writes .bin
// only. Rank 0 creates a temporary file next to the target and sizes it; every
// rank opens it and pwrite()s its rows at their offsets; commit() agrees that
// every rank's writes and close succeeded, then rank 0 renames it over the
// target. The ranks must share the file system. On failure the target is
// untouched and the temporary file removed (by any rank that sees the
// failure, so also when the others are then killed by an abort).
#pragma once

#include <cstdint>
#include <string>

#include "apsp/comm.hpp"
#include "apsp/sink.hpp"

namespace apsp::dist {

class RawFileSink final : public Sink {
 public:
  // Either path may be empty (that plane is not written).
  RawFileSink(Communicator& comm, std::string distances_path, std::string predecessors_path);
  ~RawFileSink() override;

  void begin(const SinkLayout& layout) override;  // collective
  void put(const RowBlock& block) override;
  void commit() override;  // collective
  void discard() noexcept override;

 private:
  struct Target {
    std::string path;
    std::string temporary;
    int fd = -1;
  };
  void open_all(Target& t, std::int64_t bytes);
  Target& target_of(Plane plane);

  Communicator& comm_;
  Target distances_, predecessors_;
  std::int64_t n_ = 0;
};

}  // namespace apsp::dist
