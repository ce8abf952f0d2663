// The local communicator: the ranks are threads of one process. Host buffers
// move through shared memory: each collective is two rendezvous of the
// group, the first after every rank has posted its buffer, the second after
// every rank has read what it needs, so no buffer is freed while another
// rank reads it. Device buffers go through NCCL when the group's devices are
// distinct and the build has NCCL, else through host copies.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/staging.hpp"
#include "comm/transport.hpp"

namespace apsp {
namespace {

struct Group;

// Abort state shared by a group and every group split from it.
struct Family {
  std::atomic<bool> aborted{false};
  std::mutex mutex;
  std::vector<std::weak_ptr<Group>> groups;

  void add(const std::shared_ptr<Group>& g) {
    std::lock_guard<std::mutex> lock(mutex);
    groups.push_back(g);
  }
  void abort();
};

[[noreturn]] void throw_aborted() { throw CommAborted("another rank aborted the distributed run"); }

struct Group {
  Group(int ranks, std::shared_ptr<Family> f)
      : size(ranks),
        family(std::move(f)),
        posted(static_cast<std::size_t>(ranks), nullptr),
        split_requests(static_cast<std::size_t>(ranks)),
        mailboxes(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks)) {}

  const int size;
  const std::shared_ptr<Family> family;
  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t generation = 0;  // completed rendezvous
  int arrived = 0;
  std::vector<const void*> posted;                                // one buffer per rank, during a collective
  std::vector<std::pair<int, int>> split_requests;                // (color, key) per rank, during a split
  std::map<int, std::shared_ptr<Group>> split_children;           // by color, during a split
  std::shared_ptr<std::atomic<std::int64_t>> counter;             // during make_counter
  std::vector<std::deque<std::vector<unsigned char>>> mailboxes;  // [from * size + to]

  // Waits until every rank has arrived. An abortable wait withdraws and
  // throws CommAborted when the family is aborted before the last rank
  // arrives; a wait that is not abortable is only used after a first
  // rendezvous of the same call, which every rank has passed.
  void rendezvous(std::unique_lock<std::mutex>& lock, bool abortable) {
    if (abortable && family->aborted) throw_aborted();
    const std::uint64_t entered = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      changed.notify_all();
      return;
    }
    changed.wait(lock, [&] { return generation != entered || (abortable && family->aborted); });
    if (generation == entered) {
      --arrived;
      throw_aborted();
    }
  }
};

void Family::abort() {
  aborted = true;
  std::vector<std::weak_ptr<Group>> all;
  {
    // Not held while waking the groups: a split holds its group's lock while
    // it adds a child here.
    std::lock_guard<std::mutex> lock(mutex);
    all = groups;
  }
  for (const auto& weak : all)
    if (auto g = weak.lock()) {
      std::lock_guard<std::mutex> group_lock(g->mutex);
      g->changed.notify_all();
    }
}

template <class T>
void reduce(const std::vector<const void*>& inputs, T* out, std::size_t count, ReduceOp op) {
  const T* first = static_cast<const T*>(inputs[0]);
  std::copy(first, first + count, out);
  for (std::size_t r = 1; r < inputs.size(); ++r) {
    const T* in = static_cast<const T*>(inputs[r]);
    for (std::size_t i = 0; i < count; ++i) {
      switch (op) {
        case ReduceOp::min: out[i] = std::min(out[i], in[i]); break;
        case ReduceOp::max: out[i] = std::max(out[i], in[i]); break;
        case ReduceOp::sum: out[i] = static_cast<T>(out[i] + in[i]); break;
      }
    }
  }
}

void reduce(const std::vector<const void*>& inputs, void* out, std::size_t count, DataType type, ReduceOp op) {
  switch (type) {
    case DataType::uint8: reduce(inputs, static_cast<std::uint8_t*>(out), count, op); break;
    case DataType::int32: reduce(inputs, static_cast<std::int32_t*>(out), count, op); break;
    case DataType::int64: reduce(inputs, static_cast<std::int64_t*>(out), count, op); break;
    case DataType::float32: reduce(inputs, static_cast<float*>(out), count, op); break;
    case DataType::float64: reduce(inputs, static_cast<double*>(out), count, op); break;
  }
}

// The group's counter: one atomic in the process; its calls throw
// CommAborted once the family was aborted, so the other ranks stop taking
// rows after one failed.
class Counter final : public SharedCounter {
 public:
  Counter(std::shared_ptr<std::atomic<std::int64_t>> value, std::shared_ptr<Family> family)
      : value_(std::move(value)), family_(std::move(family)) {}
  std::int64_t fetch_add(std::int64_t k) override {
    if (family_->aborted) throw_aborted();
    return value_->fetch_add(k);
  }

 private:
  std::shared_ptr<std::atomic<std::int64_t>> value_;
  std::shared_ptr<Family> family_;
};

class LocalCommunicator final : public Communicator {
 public:
  LocalCommunicator(std::shared_ptr<Group> group, int rank, int device,
                    std::unique_ptr<comm::DeviceTransport> transport)
      : Communicator(rank, group->size), group_(std::move(group)), device_(device), transport_(std::move(transport)) {}
  const char* kind() const override { return "local"; }
  int device() const override { return device_; }

 protected:
  void do_broadcast(void* data, std::size_t bytes, DataType type, std::size_t count, int root, Memory memory,
                    void* stream) override {
    if (memory == Memory::host) return host_broadcast(data, bytes, root);
    comm::use_device(device_);
    if (transport_) return transport_->broadcast(data, count, type, root, stream);
    comm::StagedBuffer staged(data, bytes, stream, rank() == root);
    host_broadcast(staged.host(), bytes, root);
    if (rank() != root) staged.store(data);
  }

  void do_send(const void* data, std::size_t bytes, int peer, Memory memory, void* stream) override {
    if (memory == Memory::host) return host_send(data, bytes, peer);
    comm::use_device(device_);
    if (transport_) return transport_->send(data, bytes, peer, stream);
    comm::StagedBuffer staged(data, bytes, stream, true);
    host_send(staged.host(), bytes, peer);
  }

  void do_receive(void* data, std::size_t bytes, int peer, Memory memory, void* stream) override {
    if (memory == Memory::host) return host_receive(data, bytes, peer);
    comm::use_device(device_);
    if (transport_) return transport_->receive(data, bytes, peer, stream);
    comm::StagedBuffer staged(data, bytes, stream, false);
    host_receive(staged.host(), bytes, peer);
    staged.store(data);
  }

  void do_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op, Memory memory,
                     void* stream) override {
    if (memory == Memory::host) return host_all_reduce(input, output, count, type, op);
    comm::use_device(device_);
    if (transport_) return transport_->all_reduce(input, output, count, type, op, stream);
    comm::StagedBuffer staged(input, count * data_type_bytes(type), stream, true);
    host_all_reduce(staged.host(), staged.host(), count, type, op);
    staged.store(output);
  }

  void do_barrier() override {
    std::unique_lock<std::mutex> lock(group_->mutex);
    group_->rendezvous(lock, true);
  }

  std::unique_ptr<SharedCounter> do_make_counter() override {
    Group& g = *group_;
    std::shared_ptr<std::atomic<std::int64_t>> value;
    {
      std::unique_lock<std::mutex> lock(g.mutex);
      g.rendezvous(lock, true);
      if (!g.counter) g.counter = std::make_shared<std::atomic<std::int64_t>>(0);
      value = g.counter;
      g.rendezvous(lock, false);
      g.counter.reset();
    }
    return std::make_unique<Counter>(std::move(value), g.family);
  }

  std::unique_ptr<Communicator> do_split(int color, int key) override {
    Group& g = *group_;
    std::shared_ptr<Group> child;
    int child_rank = 0;
    {
      std::unique_lock<std::mutex> lock(g.mutex);
      g.split_requests[static_cast<std::size_t>(rank())] = {color, key};
      g.rendezvous(lock, true);
      std::vector<std::pair<int, int>> members;  // (key, parent rank) of this color
      for (int r = 0; r < g.size; ++r)
        if (g.split_requests[static_cast<std::size_t>(r)].first == color)
          members.emplace_back(g.split_requests[static_cast<std::size_t>(r)].second, r);
      std::sort(members.begin(), members.end());
      child_rank =
          static_cast<int>(std::find(members.begin(), members.end(), std::make_pair(key, rank())) - members.begin());
      std::shared_ptr<Group>& slot = g.split_children[color];
      if (!slot) {
        slot = std::make_shared<Group>(static_cast<int>(members.size()), g.family);
        g.family->add(slot);
      }
      child = slot;
      g.rendezvous(lock, false);
      g.split_children.clear();
    }
    std::unique_ptr<comm::DeviceTransport> child_transport;
    if (transport_) {
      comm::use_device(device_);
      child_transport = transport_->split(color, key);
    }
    return std::make_unique<LocalCommunicator>(std::move(child), child_rank, device_, std::move(child_transport));
  }

  void do_abort(int) noexcept override {
    if (transport_) transport_->abort();
    group_->family->abort();
  }

 private:
  void host_broadcast(void* data, std::size_t bytes, int root) {
    Group& g = *group_;
    std::unique_lock<std::mutex> lock(g.mutex);
    g.posted[static_cast<std::size_t>(rank())] = data;
    g.rendezvous(lock, true);
    const void* source = g.posted[static_cast<std::size_t>(root)];
    lock.unlock();
    if (rank() != root && bytes > 0) std::memcpy(data, source, bytes);
    lock.lock();
    g.rendezvous(lock, false);
  }

  void host_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op) {
    Group& g = *group_;
    std::vector<unsigned char> result(count * data_type_bytes(type));
    std::unique_lock<std::mutex> lock(g.mutex);
    g.posted[static_cast<std::size_t>(rank())] = input;
    g.rendezvous(lock, true);
    const std::vector<const void*> inputs = g.posted;
    lock.unlock();
    if (count > 0) reduce(inputs, result.data(), count, type, op);
    lock.lock();
    g.rendezvous(lock, false);  // every rank has read every input: `output` may overwrite `input` now
    lock.unlock();
    if (!result.empty()) std::memcpy(output, result.data(), result.size());
  }

  void host_send(const void* data, std::size_t bytes, int peer) {
    if (group_->family->aborted) throw_aborted();
    const auto* begin = static_cast<const unsigned char*>(data);
    std::vector<unsigned char> message(begin, begin + bytes);
    Group& g = *group_;
    std::lock_guard<std::mutex> lock(g.mutex);
    g.mailboxes[static_cast<std::size_t>(rank() * g.size + peer)].push_back(std::move(message));
    g.changed.notify_all();
  }

  void host_receive(void* data, std::size_t bytes, int peer) {
    Group& g = *group_;
    std::unique_lock<std::mutex> lock(g.mutex);
    auto& box = g.mailboxes[static_cast<std::size_t>(peer * g.size + rank())];
    g.changed.wait(lock, [&] { return !box.empty() || g.family->aborted; });
    if (box.empty()) throw_aborted();
    std::vector<unsigned char> message = std::move(box.front());
    box.pop_front();
    lock.unlock();
    if (message.size() != bytes)
      throw UsageError("receive of " + std::to_string(bytes) + " bytes from rank " + std::to_string(peer) +
                       ", but its message has " + std::to_string(message.size()));
    if (bytes > 0) std::memcpy(data, message.data(), bytes);
  }

  std::shared_ptr<Group> group_;
  int device_;
  std::unique_ptr<comm::DeviceTransport> transport_;
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> make_local_communicators(int ranks, const std::vector<int>& devices) {
  if (ranks < 1) throw UsageError("a local group needs at least one rank, got " + std::to_string(ranks));
  if (!devices.empty() && static_cast<int>(devices.size()) != ranks)
    throw UsageError("a local group of " + std::to_string(ranks) + " ranks needs one device per rank, got " +
                         std::to_string(devices.size()),
                     "devices");
  for (int d : devices)
    if (d < 0) throw UsageError("device " + std::to_string(d) + " is not a CUDA device ordinal", "devices");
  std::vector<int> distinct = devices;
  std::sort(distinct.begin(), distinct.end());
  std::vector<std::unique_ptr<comm::DeviceTransport>> transports;
  if (!devices.empty() && std::adjacent_find(distinct.begin(), distinct.end()) == distinct.end())
    transports = comm::make_local_nccl_transports(devices);
  auto family = std::make_shared<Family>();
  auto group = std::make_shared<Group>(ranks, family);
  family->add(group);
  std::vector<std::unique_ptr<Communicator>> out;
  for (int r = 0; r < ranks; ++r)
    out.push_back(std::make_unique<LocalCommunicator>(
        group, r, devices.empty() ? -1 : devices[static_cast<std::size_t>(r)],
        transports.empty() ? nullptr : std::move(transports[static_cast<std::size_t>(r)])));
  return out;
}

}  // namespace apsp
