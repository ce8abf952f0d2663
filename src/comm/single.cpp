// The single communicator: one rank, so broadcasts and barriers are no-ops,
// an all-reduce is a copy, and a message to itself waits in a queue.
#include <atomic>
#include <cstring>
#include <deque>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/staging.hpp"

namespace apsp {
namespace {

class SingleCommunicator final : public Communicator {
 public:
  explicit SingleCommunicator(int device) : Communicator(0, 1), device_(device) {}
  const char* kind() const override { return "single"; }
  int device() const override { return device_; }

 protected:
  void do_broadcast(void*, std::size_t, DataType, std::size_t, int, Memory, void*) override { check_alive(); }

  void do_send(const void* data, std::size_t bytes, int, Memory memory, void* stream) override {
    check_alive();
    std::vector<unsigned char> message(bytes);
    if (memory == Memory::device) {
      comm::StagedBuffer staged(data, bytes, stream, true);
      if (bytes > 0) std::memcpy(message.data(), staged.host(), bytes);
    } else if (bytes > 0) {
      std::memcpy(message.data(), data, bytes);
    }
    queue_.push_back(std::move(message));
  }

  void do_receive(void* data, std::size_t bytes, int, Memory memory, void* stream) override {
    check_alive();
    if (queue_.empty()) throw UsageError("receive on the single communicator with no message sent to itself");
    std::vector<unsigned char> message = std::move(queue_.front());
    queue_.pop_front();
    if (message.size() != bytes)
      throw UsageError("receive of " + std::to_string(bytes) + " bytes, but the message sent has " +
                       std::to_string(message.size()));
    if (memory == Memory::device) {
      comm::StagedBuffer staged(data, bytes, stream, false);
      if (bytes > 0) std::memcpy(staged.host(), message.data(), bytes);
      staged.store(data);
    } else if (bytes > 0) {
      std::memcpy(data, message.data(), bytes);
    }
  }

  void do_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp, Memory memory,
                     void* stream) override {
    check_alive();
    const std::size_t bytes = count * data_type_bytes(type);
    if (memory == Memory::device)
      comm::copy_device_to_device(output, input, bytes, stream);
    else if (bytes > 0 && input != output)
      std::memmove(output, input, bytes);
  }

  void do_barrier() override { check_alive(); }

  std::unique_ptr<Communicator> do_split(int, int) override {
    check_alive();
    return std::make_unique<SingleCommunicator>(device_);
  }

  std::unique_ptr<SharedCounter> do_make_counter() override {
    check_alive();
    return std::make_unique<Counter>(aborted_);
  }

  void do_abort(int) noexcept override { aborted_ = true; }

 private:
  // One rank's counter: an atomic for its threads, which throws once the
  // communicator was aborted.
  class Counter final : public SharedCounter {
   public:
    explicit Counter(const std::atomic<bool>& aborted) : aborted_(aborted) {}
    std::int64_t fetch_add(std::int64_t k) override {
      if (aborted_) throw CommAborted("the distributed run was aborted");
      return value_.fetch_add(k);
    }

   private:
    const std::atomic<bool>& aborted_;
    std::atomic<std::int64_t> value_{0};
  };

  void check_alive() const {
    if (aborted_) throw CommAborted("the distributed run was aborted");
  }

  int device_;
  std::atomic<bool> aborted_{false};
  std::deque<std::vector<unsigned char>> queue_;
};

}  // namespace

std::unique_ptr<Communicator> make_single_communicator(int device) {
  comm::use_device(device);
  return std::make_unique<SingleCommunicator>(device);
}

}  // namespace apsp
