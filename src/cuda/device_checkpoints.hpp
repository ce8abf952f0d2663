// Round checkpoints (apsp/sink.hpp, RoundCheckpoints) of a solver whose
// working matrices live in device memory: GPU fw's rounds. At a round
// boundary where the checkpoints are due, the planes are copied into one
// pinned host buffer on a copy stream (the compute stream waits for that
// copy on the device, not on the host), and a host thread writes the
// checkpoint file while the device goes on with the next rounds; a boundary
// that comes while the previous save is still being written is skipped.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "apsp/sink.hpp"

struct CUstream_st;

namespace apsp::cuda {

class DeviceRoundCheckpoints {
 public:
  struct Plane {
    void* device;  // device memory
    std::size_t bytes;
  };
  // `checkpoints` null: every call does nothing. `layout` names the solver,
  // its element types and padded size (RoundState::layout); `rounds`: all of
  // them. The planes stay valid until finish() or destruction.
  DeviceRoundCheckpoints(RoundCheckpoints* checkpoints, std::string layout, std::int64_t rounds,
                         std::vector<Plane> planes, CUstream_st* stream);
  DeviceRoundCheckpoints(const DeviceRoundCheckpoints&) = delete;
  DeviceRoundCheckpoints& operator=(const DeviceRoundCheckpoints&) = delete;
  ~DeviceRoundCheckpoints();  // waits for a save in flight, ignoring its failure

  // Before the first round, after the planes are initialized: uploads the
  // newest valid checkpoint of this layout and returns its round, or leaves
  // the planes as they are and returns 0.
  std::int64_t restore();
  // After the kernels of round `rounds_done` are queued on the stream.
  void round_done(std::int64_t rounds_done);
  // After the last round: waits for a save in flight; rethrows its failure.
  void finish();
  std::int64_t saves() const { return saves_; }

 private:
  void join();
  void host_buffer();

  RoundCheckpoints* checkpoints_;
  RoundState state_;
  std::vector<Plane> planes_;
  CUstream_st* stream_;
  CUstream_st* copy_stream_ = nullptr;
  void* copied_ = nullptr;  // cudaEvent_t: the planes are in host memory
  void* host_ = nullptr;    // pinned, the planes one after another
  std::size_t host_bytes_ = 0;
  int device_ = 0;
  std::int64_t saves_ = 0;
  std::atomic<bool> written_{true};
  std::thread writer_;
  std::exception_ptr failure_;
};

}  // namespace apsp::cuda
