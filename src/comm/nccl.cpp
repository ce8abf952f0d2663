// NCCL: device-buffer collectives for the nccl communicator (one rank per
// process and GPU, bootstrapped over the host communicator) and for local
// groups on distinct GPUs (ncclCommInitAll).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/features.hpp"
#include "comm/staging.hpp"
#include "comm/transport.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::comm {
namespace {

[[noreturn]] void throw_nccl_error(ncclResult_t status, ncclComm_t comm, const char* call, const char* file, int line) {
  std::string message = ncclGetErrorString(status);
  if (comm) {
    const char* last = ncclGetLastError(comm);
    if (last && *last) message += std::string(": ") + last;
  }
  throw DeviceError(call, message, file, line);
}

#define APSP_NCCL_CHECK(comm, call)                                                                             \
  do {                                                                                                          \
    const ncclResult_t apsp_nccl_status_ = (call);                                                              \
    if (apsp_nccl_status_ != ncclSuccess) throw_nccl_error(apsp_nccl_status_, comm, #call, __FILE__, __LINE__); \
  } while (0)

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::uint8: return ncclUint8;
    case DataType::int32: return ncclInt32;
    case DataType::int64: return ncclInt64;
    case DataType::float32: return ncclFloat32;
    case DataType::float64: return ncclFloat64;
  }
  return ncclUint8;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::sum: return ncclSum;
  }
  return ncclMin;
}

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

// NCCL's settings for apsp, unless the environment says otherwise:
// - no NVLink SHARP / multicast (NCCL_NVLS_ENABLE=0): the lent machines
//   must not use it;
// - connections made while the communicator is created, not at its first
//   collective (NCCL_RUNTIME_CONNECT=0). Lazily, the first broadcast of the
//   rounds paid about a second for them on two H100s under mpirun, whatever
//   n was (docs/scaling.md), and the rounds' clock counted it.
//
// The lean setup (the default; APSP_NCCL_SETUP=classic turns it off, for
// an A/B of the startup in one device call) also asks for fewer channels
// and one protocol: the communicator's init connects every channel of every
// algorithm and protocol at once, and on four H200s it took 1.1-1.25 s
// against 0.7 s on two (docs/results/2026-11-27-h200x4-scale), on the
// critical path of every run (setup's `comm ready`). apsp's collectives are
// a few large panels a round (tens of MB, broadcast while the round before
// computes) and the 2d gather's sends of tile rows: the Simple protocol
// alone carries them at link speed, and lean_max_ctas() channels
// (APSP_NCCL_MAX_CTAS, default 8) move a panel in well under a
// millisecond against a round's tens.
bool lean_setup() {
  const char* setup = std::getenv("APSP_NCCL_SETUP");
  return !(setup && std::string(setup) == "classic");
}

int lean_max_ctas() {
  const char* given = std::getenv("APSP_NCCL_MAX_CTAS");
  const int ctas = given && *given ? std::atoi(given) : 8;
  return ctas > 0 ? ctas : 8;
}

// Early device calls (Communicator::stages_until_ready): the world
// communicator's device calls go through MPI, staged (over CUDA IPC between
// the ranks' GPUs, else through node-shared or pinned host memory: mpi.cpp),
// while NCCL's communicator is made on its helper thread, and every rank
// switches to NCCL at the first advance_transport() (a round boundary of
// the distributed fw) where every rank's is ready. On four H200s the
// rounds otherwise waited 0.47-0.62 s for NCCL's init (setup's `comm
// ready`, docs/scaling.md). APSP_NCCL_EARLY (set alike on every rank):
// - `wait` makes the device calls wait for NCCL instead (the path before,
//   for the A/B);
// - `mpi:R` (R > 0) stages at least the first R rounds (the first R
//   advance_transport() calls find NCCL not ready): a switch inside the
//   rounds at a known round for the device tests, whatever NCCL's init
//   takes;
// - `never` (ipc9) never starts NCCL for the world's own device calls:
//   every one is staged, and advance_transport() never switches (nor
//   communicates). Nothing waits for NCCL then, and no NCCL init competes
//   with the rounds for the GPUs. A split (the 2d grid's process rows and
//   columns) still needs NCCL: the first one makes the world's NCCL
//   communicator there, synchronously (not overlapped with the startup as
//   the other ways do), and the world's device calls take it from then on.
// Anything else (`mpi`): early. Unset: early_calls (launch.cpp) decides
// from what the caller knows (DeviceCalls, apsp/comm.hpp): never for a
// world that no split will need on one node (rows), early otherwise.
using Early = EarlyCalls;

std::int64_t early_staged_rounds() {
  const char* early = std::getenv("APSP_NCCL_EARLY");
  if (!early || std::string(early).rfind("mpi:", 0) != 0) return 0;
  return std::max<std::int64_t>(0, std::atoll(early + 4));
}

void nccl_environment() {
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  setenv("NCCL_RUNTIME_CONNECT", "0", 0);
  if (lean_setup()) setenv("NCCL_PROTO", "Simple", 0);
}

// The configuration of a communicator apsp makes (ncclCommInitRankConfig,
// ncclCommSplit): lean, at most lean_max_ctas() channels; classic, NCCL's
// defaults.
ncclConfig_t nccl_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  if (lean_setup()) config.maxCTAs = lean_max_ctas();
  return config;
}

// One small broadcast on each of `comms` (comms[r] on devices[r], the ranks
// of this thread: one group), waited for. Whatever NCCL still sets up at a
// communicator's first collective happens here, while it is built, and not
// inside the first round. Collective over each communicator's ranks.
void warm_up(const std::vector<ncclComm_t>& comms, const std::vector<int>& devices) {
  std::vector<std::unique_ptr<cuda::DeviceBuffer<std::int32_t>>> words;
  std::vector<std::unique_ptr<cuda::Stream>> streams;
  for (const int device : devices) {
    use_device(device);
    words.push_back(std::make_unique<cuda::DeviceBuffer<std::int32_t>>(1));
    // The highest priority: after an early switch the rounds' kernels fill
    // the device, and this one-word broadcast takes SMs as soon as a block
    // of theirs ends instead of after the whole kernel.
    streams.push_back(std::make_unique<cuda::Stream>(cuda::StreamPriority::highest));
  }
  APSP_NCCL_CHECK(nullptr, ncclGroupStart());
  for (std::size_t r = 0; r < comms.size(); ++r) {
    const ncclResult_t sent =
        ncclBroadcast(words[r]->get(), words[r]->get(), 1, ncclInt32, 0, comms[r], streams[r]->get());
    if (sent != ncclSuccess) {
      ncclGroupEnd();
      throw_nccl_error(sent, comms[r], "ncclBroadcast", __FILE__, __LINE__);
    }
  }
  APSP_NCCL_CHECK(nullptr, ncclGroupEnd());
  for (std::size_t r = 0; r < comms.size(); ++r) {
    use_device(devices[r]);
    streams[r]->synchronize();
  }
}

class NcclTransport final : public DeviceTransport {
 public:
  NcclTransport(ncclComm_t comm, int device) : comm_(comm), device_(device) {}
  ~NcclTransport() override {
    if (comm_) ncclCommDestroy(comm_);
  }

  void broadcast(void* data, std::size_t count, DataType type, int root, void* stream) override {
    use_device(device_);
    APSP_NCCL_CHECK(comm_, ncclBroadcast(data, data, count, nccl_type(type), root, comm_, as_stream(stream)));
  }
  void send(const void* data, std::size_t bytes, int peer, void* stream) override {
    use_device(device_);
    APSP_NCCL_CHECK(comm_, ncclSend(data, bytes, ncclUint8, peer, comm_, as_stream(stream)));
  }
  void receive(void* data, std::size_t bytes, int peer, void* stream) override {
    use_device(device_);
    APSP_NCCL_CHECK(comm_, ncclRecv(data, bytes, ncclUint8, peer, comm_, as_stream(stream)));
  }
  void all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op,
                  void* stream) override {
    use_device(device_);
    APSP_NCCL_CHECK(comm_, ncclAllReduce(input, output, count, nccl_type(type), nccl_op(op), comm_, as_stream(stream)));
  }
  std::unique_ptr<DeviceTransport> split(int color, int key) override {
    use_device(device_);
    ncclComm_t part = nullptr;
    // The part shares the parent's resources (its proxy thread and buffers):
    // a split then costs its bootstrap and connections only, not a whole
    // communicator's setup (the 2d grid's two splits took 0.65 s of setup on
    // four H200s, docs/scaling.md).
    ncclConfig_t config = nccl_config();
    config.splitShare = 1;
    APSP_NCCL_CHECK(comm_, ncclCommSplit(comm_, color, key, &part, &config));
    auto transport = std::make_unique<NcclTransport>(part, device_);
    warm_up({part}, {device_});
    return transport;
  }
  void abort() noexcept override {
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  // The first collective (warm_up), waited for: collective.
  void warm() { warm_up({comm_}, {device_}); }

 private:
  ncclComm_t comm_;
  int device_;
};

// The world's NCCL communicator, created on a helper thread while the
// caller goes on with its own work (reading and broadcasting the graph,
// building its tiles): ncclCommInitRank needs neither MPI nor the caller,
// only the device's context, and waits for no other rank's kernel. The
// warm-up broadcast, whose kernel does wait for the other ranks', runs on
// the caller's thread when the transport is first needed: a kernel waiting
// for a peer while another thread's cudaFree waits for the whole device
// could deadlock. Its time is kept for the summary.
struct PendingTransport {
  std::future<std::unique_ptr<NcclTransport>> transport;
  std::shared_ptr<std::vector<std::pair<std::string, double>>> parts;  // written by the helper before it returns
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Starts the world's NCCL communicator over `host` on `device`: rank 0's
// id broadcast to every rank (collective), then ncclCommInitRank on a
// helper thread. Appends the id's time to `parts`.
PendingTransport start_world_transport(Communicator& host, int device,
                                       std::vector<std::pair<std::string, double>>& parts) {
  const auto id_start = std::chrono::steady_clock::now();
  use_device(device);
  ncclUniqueId id{};
  if (host.rank() == 0) APSP_NCCL_CHECK(nullptr, ncclGetUniqueId(&id));
  host.broadcast(reinterpret_cast<std::uint8_t*>(&id), sizeof id, 0);
  parts.emplace_back("nccl id", seconds_since(id_start));
  PendingTransport pending;
  pending.parts = std::make_shared<std::vector<std::pair<std::string, double>>>();
  const int ranks = host.size(), rank = host.rank();
  pending.transport = std::async(std::launch::async, [id, ranks, rank, device, times = pending.parts] {
    use_device(device);
    const auto init_start = std::chrono::steady_clock::now();
    const double began = seconds_since_process_start();
    ncclComm_t comm = nullptr;
    ncclConfig_t config = nccl_config();
    APSP_NCCL_CHECK(nullptr, ncclCommInitRankConfig(&comm, ranks, id, rank, &config));
    auto transport = std::make_unique<NcclTransport>(comm, device);
    times->emplace_back("nccl init (overlapped)", seconds_since(init_start));
    // Where it lay on the process's clock (since exec): what it waited
    // for (MPI's start, the context) before it began.
    if (began >= 0) times->emplace_back("nccl init began (since exec)", began);
    return transport;
  });
  return pending;
}

// Host buffers through the host communicator, device buffers through NCCL.
// The transport may still be in the making (a world communicator): the
// first device call, split or wait_ready() waits for it.
class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(std::unique_ptr<Communicator> host, std::unique_ptr<DeviceTransport> device_transport, int device)
      : Communicator(host->rank(), host->size()),
        host_(std::move(host)),
        transport_(std::move(device_transport)),
        device_(device) {}
  NcclCommunicator(std::unique_ptr<Communicator> host, PendingTransport pending, int device,
                   std::vector<std::pair<std::string, double>> parts, Early early)
      : Communicator(host->rank(), host->size()),
        host_(std::move(host)),
        pending_(std::move(pending)),
        device_(device),
        parts_(std::move(parts)),
        early_(early != Early::wait),
        never_(early == Early::never || early == Early::later),
        undecided_(early == Early::later),
        staged_rounds_(early == Early::early ? early_staged_rounds() : 0),
        staging_(early_) {}
  ~NcclCommunicator() override {
    // A transport still in the making is finished (every rank is making it)
    // and destroyed; its error, if any, no longer matters.
    if (pending_.transport.valid()) try {
        pending_.transport.get();
      } catch (...) {
      }
  }
  const char* kind() const override { return "nccl"; }
  int device() const override { return device_; }
  std::vector<std::pair<std::string, double>> startup_parts() const override {
    std::vector<std::pair<std::string, double>> out = host_->startup_parts();
    std::lock_guard<std::mutex> lock(mutex_);
    out.insert(out.end(), parts_.begin(), parts_.end());
    if (pending_.parts && !pending_.transport.valid())
      out.insert(out.end(), pending_.parts->begin(), pending_.parts->end());
    return out;
  }

 protected:
  // Host buffers, and device buffers while they are staged (early device
  // calls before the switch), through the host communicator (MPI: device
  // buffers staged through pinned host memory, or CUDA-aware); device
  // buffers otherwise through NCCL.
  void do_broadcast(void* data, std::size_t, DataType type, std::size_t count, int root, Memory memory,
                    void* stream) override {
    if (memory == Memory::device && !staging_) return transport().broadcast(data, count, type, root, stream);
    host_->broadcast(data, count, type, root, memory, stream);
  }
  void do_send(const void* data, std::size_t bytes, int peer, Memory memory, void* stream) override {
    if (memory == Memory::device && !staging_) return transport().send(data, bytes, peer, stream);
    host_->send(data, bytes, DataType::uint8, peer, memory, stream);
  }
  void do_receive(void* data, std::size_t bytes, int peer, Memory memory, void* stream) override {
    if (memory == Memory::device && !staging_) return transport().receive(data, bytes, peer, stream);
    host_->receive(data, bytes, DataType::uint8, peer, memory, stream);
  }
  void do_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op, Memory memory,
                     void* stream) override {
    if (memory == Memory::device && !staging_) return transport().all_reduce(input, output, count, type, op, stream);
    host_->all_reduce(input, output, count, type, op, memory, stream);
  }
  void do_barrier() override { host_->barrier(); }
  std::unique_ptr<Communicator> do_split(int color, int key) override {
    DeviceTransport& whole = transport();
    std::unique_ptr<Communicator> host_part = host_->split(color, key);
    return std::make_unique<NcclCommunicator>(std::move(host_part), whole.split(color, key), device_);
  }
  std::unique_ptr<SharedCounter> do_make_counter() override { return host_->make_counter(); }
  // Later (DeviceCalls::later): the caller's plan, collective, before any
  // device call: never stays for an unsplit world; otherwise NCCL's init
  // starts now (the id broadcast over MPI, the init on a helper thread) and
  // the device calls are staged until every rank's is ready, as early's.
  void do_plan_device_calls(DeviceCalls calls) override {
    if (!undecided_) return;
    undecided_ = false;
    if (calls == DeviceCalls::unsplit) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!transport_ && !pending_.transport.valid()) pending_ = start_world_transport(*host_, device_, parts_);
    never_ = false;
  }
  // Never (APSP_NCCL_EARLY=never): the staged device calls are ready, and
  // nothing waits for an NCCL that is not being made (unless a split made it).
  void do_wait_ready() override {
    if (!never_ || made_.load()) transport();
  }
  bool do_stages_until_ready() const override { return early_; }
  bool do_switches_transport() const override { return !never_ || made_.load(); }
  bool do_transport_ready() override {
    if (advance_calls_++ < staged_rounds_) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    return transport_ || (pending_.transport.valid() &&
                          pending_.transport.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
  }
  // Every rank's helper has finished: each takes its transport (a failure on
  // one rank is every rank's, before any rank's warm-up kernel waits for
  // it), warms it up and from here on moves device buffers through NCCL.
  void do_switch_transport() override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!transport_) {
      std::unique_ptr<NcclTransport> made;
      agree(*host_, [&] { made = pending_.transport.get(); });
      install(std::move(made));
    }
    const double at = seconds_since_process_start();
    if (at >= 0) parts_.emplace_back("nccl switch (since exec)", at);
    staging_ = false;
  }
  void do_abort(int exit_code) noexcept override {
    // A transport still in the making cannot be aborted; the host's abort
    // ends every process anyway.
    {
      // Not when another thread holds the lock (it may be waiting for the
      // transport): never block here.
      std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
      if (lock && transport_) transport_->abort();
    }
    host_->abort(exit_code);
  }

 private:
  // The device transport, waiting for the helper thread and warming the
  // communicator up the first time.
  // Every rank calls it at the same point (a device call, a split, wait_ready,
  // an early switch), so the warm-up is collective. Stages nothing after it.
  // Never: the first call (a split's) makes the world's NCCL communicator
  // here, waited for.
  DeviceTransport& transport() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!transport_ && !pending_.transport.valid()) pending_ = start_world_transport(*host_, device_, parts_);
    if (!transport_) install(pending_.transport.get());
    staging_ = false;
    return *transport_;
  }
  // Under mutex_: warms `made` up and keeps it.
  void install(std::unique_ptr<NcclTransport> made) {
    const auto warm_start = std::chrono::steady_clock::now();
    made->warm();
    parts_.emplace_back("nccl warm-up", seconds_since(warm_start));
    transport_ = std::move(made);
    made_ = true;
  }

  std::unique_ptr<Communicator> host_;
  mutable std::mutex mutex_;  // transport_ and pending_
  std::unique_ptr<DeviceTransport> transport_;
  PendingTransport pending_;
  int device_;
  std::vector<std::pair<std::string, double>> parts_;  // made on the calling thread (under mutex_)
  // Early device calls (early_calls(); the world communicator only),
  // and whether device buffers still go through host_ (until the switch, or
  // until a split or wait_ready() made the transport: collective points,
  // so every rank's staging_ changes at the same call).
  const bool early_ = false;
  // APSP_NCCL_EARLY=never, or DeviceCalls::later until its plan (set on the
  // caller's thread before any device call; read by const calls).
  std::atomic<bool> never_{false};
  bool undecided_ = false;                // DeviceCalls::later, not yet planned
  std::atomic<bool> made_{false};         // transport_ is set (a collective point made it)
  const std::int64_t staged_rounds_ = 0;  // APSP_NCCL_EARLY=mpi:R
  std::int64_t advance_calls_ = 0;
  std::atomic<bool> staging_{false};
};

}  // namespace

std::string nccl_version() {
  return std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." + std::to_string(NCCL_PATCH);
}

std::vector<std::unique_ptr<DeviceTransport>> make_local_nccl_transports(const std::vector<int>& devices) {
  nccl_environment();
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  APSP_NCCL_CHECK(nullptr, ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  std::vector<std::unique_ptr<DeviceTransport>> out;
  for (std::size_t r = 0; r < devices.size(); ++r) out.push_back(std::make_unique<NcclTransport>(comms[r], devices[r]));
  warm_up(comms, devices);
  return out;
}

std::unique_ptr<Communicator> make_nccl_over(std::unique_ptr<Communicator> host_world, int device, DeviceCalls calls) {
  nccl_environment();
  use_device(device);
  const Early early = early_calls(std::getenv("APSP_NCCL_EARLY"), calls, node_place().local_size == host_world->size());
  std::vector<std::pair<std::string, double>> parts;
  PendingTransport pending;
  if (early == Early::wait || early == Early::early) pending = start_world_transport(*host_world, device, parts);
  return std::make_unique<NcclCommunicator>(std::move(host_world), std::move(pending), device, std::move(parts), early);
}

}  // namespace apsp::comm
