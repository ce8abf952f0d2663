// Communicators: how the ranks of a distributed solve talk to each other.
//
// Algorithm code (src/distributed) is written against this interface only; the
// implementations in src/comm are the only files that include mpi.h or
// nccl.h. Kinds:
//   single  one rank; every collective is a copy or a no-op, so the
//           distributed code path runs in any build.
//   local   several ranks in one process, one thread each (run_on_threads):
//           host buffers through shared memory; device buffers through NCCL
//           (ncclCommInitAll over the ranks' devices) when the build has it,
//           else staged through host memory. One process driving the GPUs of
//           a node, and the in-process test harness of the distributed code.
//   mpi     one rank per process under mpirun: host buffers through MPI;
//           device buffers through pinned host staging, or passed to MPI
//           directly when the MPI library is CUDA-aware. Ranks may share one
//           GPU.
//   nccl    one rank per process and per GPU: device buffers through NCCL
//           (bootstrapped by broadcasting the ncclUniqueId over MPI), host
//           buffers through MPI.
// Every call is collective over the communicator's ranks unless it says
// otherwise (send, receive), and every rank must make the same collective
// calls in the same order.
//
// Buffers are typed (DataType) and live in host or device memory (Memory).
// `stream` is a cudaStream_t passed as void* so that this header stays
// host-only; it matters for device buffers only. Host-buffer calls complete
// before they return. Device-buffer calls are ordered on `stream`: the nccl
// and local-with-NCCL kinds only enqueue the operation (it completes in
// stream order); the staged kinds wait for the stream, move the data and
// return when the result is in the device buffer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"

namespace apsp {

enum class DataType { uint8, int32, int64, float32, float64 };
enum class ReduceOp { min, max, sum };
enum class Memory { host, device };

std::size_t data_type_bytes(DataType t);
const char* to_string(DataType t);

template <class T>
struct DataTypeOf;
template <>
struct DataTypeOf<std::uint8_t> {
  static constexpr DataType value = DataType::uint8;
};
template <>
struct DataTypeOf<std::int32_t> {
  static constexpr DataType value = DataType::int32;
};
template <>
struct DataTypeOf<std::int64_t> {
  static constexpr DataType value = DataType::int64;
};
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DataType::float32;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = DataType::float64;
};

// What the calls of a single or local communicator throw once some rank
// aborted the group (Communicator::abort).
class CommAborted : public ResourceError {
 public:
  using ResourceError::ResourceError;
};

// A 64-bit counter shared by every rank of a communicator and every thread
// of those ranks (Communicator::make_counter), starting at 0: the shared
// state of the row split (apsp/row_split.hpp).
class SharedCounter {
 public:
  virtual ~SharedCounter() = default;
  // Adds k and returns the value before, atomically over all ranks and
  // threads. Not collective; thread-safe.
  virtual std::int64_t fetch_add(std::int64_t k) = 0;
};

// What the caller of make_nccl_communicator knows, when it makes the
// communicator, of the world's device calls to come:
// - `unknown`: the layout may split the world (a 2d grid's process rows
//   and columns need NCCL): the world's NCCL is made on a helper thread
//   beside the startup, and the device calls are staged until it is ready
//   (the early way);
// - `unsplit`: no split of the world will be asked for (the rows layout of
//   the distributed fw, or a row split): where every rank is on one node,
//   the staged broadcasts (CUDA IPC between the GPUs, else the node's
//   shared segment) serve every device call as fast as NCCL's rounds, and
//   NCCL's init would only compete with them (docs/scaling.md, "No NCCL
//   for an unsplit world on one node"), so NCCL is not started (the
//   `never` way). Across nodes it is made early, as for `unknown`;
// - `later`: the layout is chosen after the input is read (distributed
//   `auto`): on one node nothing is started until
//   Communicator::plan_device_calls says `unsplit` (never) or `unknown`
//   (NCCL started then, early); across nodes, early at once.
// APSP_NCCL_EARLY (wait, never, mpi, mpi:R), set alike on every rank,
// overrides each.
enum class DeviceCalls { unknown, unsplit, later };

class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // "single", "local", "mpi" or "nccl".
  virtual const char* kind() const = 0;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // The CUDA device this rank's device buffers live on; -1 when none.
  virtual int device() const { return -1; }

  // Sends `count` elements at `data` from `root` to every rank (in place).
  void broadcast(void* data, std::size_t count, DataType type, int root, Memory memory = Memory::host,
                 void* stream = nullptr);
  // Point to point. send returns once `data` may be reused (it may wait for
  // the matching receive, so two ranks must not both send first to each
  // other with large messages); receive returns when the data has arrived.
  // Messages between two ranks arrive in the order they were sent; a receive
  // must name the count its send used.
  void send(const void* data, std::size_t count, DataType type, int peer, Memory memory = Memory::host,
            void* stream = nullptr);
  void receive(void* data, std::size_t count, DataType type, int peer, Memory memory = Memory::host,
               void* stream = nullptr);
  // output[i] = op over all ranks of input[i]; input == output is allowed.
  void all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op,
                  Memory memory = Memory::host, void* stream = nullptr);
  void barrier();
  // Collective: a communicator of the ranks that passed the same `color`,
  // ordered by `key` (then by rank here). Used for the process rows and
  // columns of a 2D grid.
  std::unique_ptr<Communicator> split(int color, int key);
  // Collective: a SharedCounter at 0 over the ranks of this communicator.
  // Destroy it collectively too (mpi: the counter is an MPI window on rank
  // 0, and freeing it is collective), after every rank's last fetch_add.
  std::unique_ptr<SharedCounter> make_counter();

  // Stops every rank after a failure this rank cannot report through a
  // collective (the others may be waiting for it). mpi and nccl: ends every
  // process of the job with `exit_code` and does not return. single and
  // local: every rank blocked in, or later calling, this communicator or one
  // split from the same group throws ResourceError; then it returns. Never
  // throws.
  void abort(int exit_code) noexcept;

  // Typed forms of the calls above.
  template <class T>
  void broadcast(T* data, std::size_t count, int root, Memory memory = Memory::host, void* stream = nullptr) {
    broadcast(static_cast<void*>(data), count, DataTypeOf<T>::value, root, memory, stream);
  }
  template <class T>
  void send(const T* data, std::size_t count, int peer, Memory memory = Memory::host, void* stream = nullptr) {
    send(static_cast<const void*>(data), count, DataTypeOf<T>::value, peer, memory, stream);
  }
  template <class T>
  void receive(T* data, std::size_t count, int peer, Memory memory = Memory::host, void* stream = nullptr) {
    receive(static_cast<void*>(data), count, DataTypeOf<T>::value, peer, memory, stream);
  }
  template <class T>
  void all_reduce(const T* input, T* output, std::size_t count, ReduceOp op, Memory memory = Memory::host,
                  void* stream = nullptr) {
    all_reduce(static_cast<const void*>(input), static_cast<void*>(output), count, DataTypeOf<T>::value, op, memory,
               stream);
  }
  // One host value reduced over all ranks.
  template <class T>
  T all_reduce(T value, ReduceOp op) {
    all_reduce(&value, &value, 1, op);
    return value;
  }

  // Where this communicator's creation went, in named parts (seconds), for
  // a launcher's summary: e.g. mpi's "mpi init", nccl's "nccl id", its
  // communicator's "nccl init (overlapped)", made on a helper thread while
  // the caller works on, and "nccl warm-up", its first broadcast when the
  // device side is first needed (both listed once done). Empty for kinds
  // with nothing to say.
  virtual std::vector<std::pair<std::string, double>> startup_parts() const { return {}; }
  // Waits until the communicator can move device buffers (nccl: its NCCL
  // communicator, made on a helper thread, is ready); at once for the other
  // kinds. A device call or split waits by itself; this places the wait
  // where the caller wants to time it. Rethrows the helper's error.
  void wait_ready() { do_wait_ready(); }
  // Collective, before the first device call: what the caller now knows of
  // the world's device calls (DeviceCalls). The nccl kind's world made with
  // DeviceCalls::later decides its way here (never for `unsplit`, else
  // starts NCCL's init and stages until it is ready); nothing for the
  // other kinds and ways. Never called, a `later` world stays never.
  void plan_device_calls(DeviceCalls calls) { do_plan_device_calls(calls); }

  // Early device calls (issue 22's startup): true when this communicator's
  // device calls may run before its device transport is ready. They then go
  // through its host transport (nccl: MPI, staged over CUDA IPC or through
  // host memory) until advance_transport() switches every rank to the device
  // transport at once, so a caller whose device calls all follow an
  // advance_transport() need not wait_ready() first. The nccl kind's world
  // communicator, unless APSP_NCCL_EARLY=wait (then its device calls wait
  // for NCCL, as before); false for the other kinds and for splits (made
  // from a ready transport).
  bool stages_until_ready() const { return do_stages_until_ready(); }
  // Collective, at points that every rank reaches in the same order (the
  // distributed fw's round boundaries; `round` names the point). While
  // device calls are staged, every rank says whether its device transport
  // is ready (one host all-reduce), and once every rank's is, all switch to
  // it here, before their next device call: no rank ever sends through one
  // transport what another receives through the other. Returns true when
  // device calls take the device transport from here on: at once, without
  // communicating, after the switch and for kinds with nothing to switch.
  // A failure making the transport on some rank is thrown on every rank
  // (Agreed).
  bool advance_transport(std::int64_t round);
  // False while staged device calls will never switch by themselves (nccl
  // with APSP_NCCL_EARLY=never: the world's NCCL is not made, every device
  // call is staged); advance_transport() then returns false at once,
  // without communicating. A split still makes the device transport (on
  // every rank alike), and from then on this is true. True for the other
  // kinds and ways.
  bool switches_transport() const { return do_switches_transport(); }
  // The `round` of the advance_transport() call that switched, or -1 (not
  // switched yet, or nothing to switch).
  std::int64_t transport_switch_round() const { return switch_round_.load(); }

  // Wall seconds this rank has spent inside calls of this communicator
  // (not of communicators split from it), from any thread.
  double seconds_in_calls() const { return static_cast<double>(nanoseconds_in_calls_.load()) * 1e-9; }

 protected:
  Communicator(int rank, int size) : rank_(rank), size_(size) {}

  // The implementations. Arguments are checked by the public calls first:
  // ranks are in range, counts fit in memory, and device buffers are only
  // passed to a communicator built with CUDA.
  virtual void do_broadcast(void* data, std::size_t bytes, DataType type, std::size_t count, int root, Memory memory,
                            void* stream) = 0;
  virtual void do_send(const void* data, std::size_t bytes, int peer, Memory memory, void* stream) = 0;
  virtual void do_receive(void* data, std::size_t bytes, int peer, Memory memory, void* stream) = 0;
  virtual void do_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op,
                             Memory memory, void* stream) = 0;
  virtual void do_barrier() = 0;
  virtual std::unique_ptr<Communicator> do_split(int color, int key) = 0;
  virtual std::unique_ptr<SharedCounter> do_make_counter() = 0;
  virtual void do_abort(int exit_code) noexcept = 0;
  virtual void do_wait_ready() {}
  virtual void do_plan_device_calls(DeviceCalls) {}
  // Early device calls (advance_transport): whether device calls are staged
  // until the switch; whether this rank's device transport is ready (not
  // collective, never waits); the switch itself, collective, called on every
  // rank once every rank's transport is ready.
  virtual bool do_stages_until_ready() const { return false; }
  virtual bool do_switches_transport() const { return true; }
  virtual bool do_transport_ready() { return true; }
  virtual void do_switch_transport() {}

 private:
  void check_rank(int r, const char* role) const;
  void check_memory(Memory memory) const;
  template <class F>
  void timed(F&& call);

  int rank_;
  int size_;
  std::atomic<std::int64_t> nanoseconds_in_calls_{0};
  std::atomic<std::int64_t> switch_round_{-1};
};

// What this build has, for `apsp info`.
struct CommSupport {
  bool mpi = false;             // the mpi kind (and so the CLI under mpirun)
  std::string mpi_library;      // e.g. "Open MPI v4.1.4"; empty without MPI
  bool cuda_aware_mpi = false;  // device buffers go to MPI directly
  bool nccl = false;            // the nccl kind, and NCCL device transport in local
  std::string nccl_version;     // e.g. "2.28.9"; empty without NCCL
};
CommSupport comm_support();

// True when this process was started by an MPI launcher (mpirun, srun with
// PMI/PMIx): OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK is set.
bool launched_by_mpi();

// One rank. `device` is the CUDA device for device buffers (-1: host only).
std::unique_ptr<Communicator> make_single_communicator(int device = -1);

// The job's MPI_COMM_WORLD. Initializes MPI on first use (threads: serialized,
// since a look-ahead thread calls it while the main thread computes) and
// finalizes it at process exit. `device` as above. ResourceError when the
// build has no MPI.
std::unique_ptr<Communicator> make_mpi_communicator(int device = -1);

// MPI_COMM_WORLD for host buffers and one NCCL communicator over the ranks'
// devices (one GPU per rank) for device buffers; sets NCCL_NVLS_ENABLE=0
// unless the environment sets it. ResourceError without MPI, NCCL or CUDA.
std::unique_ptr<Communicator> make_nccl_communicator(int device, DeviceCalls calls = DeviceCalls::unknown);

// `ranks` communicators of one process, for one thread each (run_on_threads).
// `devices` is empty (host buffers only) or names one CUDA device per rank.
std::vector<std::unique_ptr<Communicator>> make_local_communicators(int ranks, const std::vector<int>& devices = {});

// Launch and placement: where the launcher put this process, which GPU and
// how many host threads each rank takes, and which communicator a launched
// process opens. The CLI's distributed solve is built on these.

// This process's place among the ranks of its node, as the launcher says
// (OMPI_COMM_WORLD_LOCAL_RANK / _SIZE, MPI_LOCALRANKID / MPI_LOCALNRANKS,
// SLURM_LOCALID): rank 0 of 1 without a launcher.
struct NodePlace {
  int local_rank = 0;
  int local_size = 1;
};
NodePlace node_place();

// "0,1,3": CUDA device ordinals. UsageError (option "devices") for anything
// else.
std::vector<int> parse_device_list(const std::string& text);

// The GPU of the rank `local_rank` of a node: the `listed` devices, or when
// none are listed the node's `node_devices`, taken in turn by the node's
// ranks. ResourceError when both are empty.
int rank_device(const std::vector<int>& listed, const std::vector<int>& node_devices, int local_rank);

// Opt-in (APSP_RANK_GPU_ONLY=1, an experiment of issue 22's startup): a
// launched rank sees its own GPU alone. Before CUDA starts in this process,
// CUDA_VISIBLE_DEVICES is narrowed to the GPU that rank_device would give
// the rank (`listed`, else the node's GPUs counted without CUDA: the
// entries of CUDA_VISIBLE_DEVICES, else /dev/nvidia<N>), so that CUDA's
// initialization opens one device instead of every rank opening all of
// them at once (the contexts took 0.41 s on 2 ranks and 0.63-0.88 s on 4 of
// four H200s). Inside the process that GPU is then device 0. Returns the
// node's GPU count (> 0) when it narrowed, else 0 (not asked for, not
// launched, or no GPU found). NCCL must then reach its peers' GPUs without
// seeing them (CUDA IPC between processes): measure before making it the
// default.
int narrow_to_rank_gpu(const std::vector<int>& listed, int local_rank);

// Host threads per rank when the user gave none: OMP_NUM_THREADS when set;
// else the CPUs this process may run on (omp_get_max_threads), split among
// the `ranks_sharing` ranks that share them. Ranks of one process
// (`same_process`) always share; ranks of an MPI launch share when the
// launcher left each every CPU (mpirun --bind-to none). A rank bound to CPUs
// of its own keeps them all. Without the split, two ranks on two H100s each
// ran 32 threads on the 32 cores, and delivering n = 65536 took them 5.5 s
// against 1.4 s for one rank alone (docs/scaling.md).
int rank_threads(int ranks_sharing, bool same_process);

// Seconds since this process began (its exec, as /proc/self/stat says: in
// clock ticks, 10 ms), or -1 where the system does not say. A startup's
// parts made on different threads go on this one clock, and the time before
// the solve began (loading the CUDA, NCCL and MPI libraries, the options)
// shows.
double seconds_since_process_start();

// The communicator kinds a launched process may ask for.
enum class CommChoice { automatic, mpi, nccl };
// "auto", "mpi" or "nccl"; UsageError (option "comm") otherwise.
CommChoice parse_comm_choice(const std::string& text);

// The communicator of this process on `device` (-1: host only). Without an
// MPI launch: the single communicator (asking for mpi or nccl is a
// UsageError). Under one: nccl when asked for, or for `automatic` when the
// build has NCCL and each of the node's ranks has a GPU of its own
// (`device` >= 0 and the node's ranks no more than its `node_gpus`); else
// mpi. `calls` goes to make_nccl_communicator.
std::unique_ptr<Communicator> make_launch_communicator(CommChoice choice, int device, int node_gpus,
                                                       DeviceCalls calls = DeviceCalls::unknown);

// Runs body(rank's communicator) on one thread per communicator of a local
// group and waits for all. When a body throws, the group is aborted (the
// others' calls throw instead of waiting forever) and the first exception
// that is not such an abort is rethrown.
void run_on_threads(const std::vector<std::unique_ptr<Communicator>>& group,
                    const std::function<void(Communicator&)>& body);

// Marks an error that every rank of a distributed call throws together, so
// that one of them reports it (the CLI: rank 0) and none has to abort the
// others. `origin_rank` is the lowest rank where it happened, or -1 when it
// happened on every rank (a usage error, a negative cycle: a verdict of all).
class AgreedFailure {
 public:
  explicit AgreedFailure(int origin_rank) : origin_rank_(origin_rank) {}
  virtual ~AgreedFailure() = default;
  int origin_rank() const { return origin_rank_; }

 private:
  int origin_rank_;
};

template <class E>
class Agreed final : public E, public AgreedFailure {
 public:
  template <class... Args>
  explicit Agreed(int origin_rank, Args&&... args) : E(std::forward<Args>(args)...), AgreedFailure(origin_rank) {}
};

// Runs `step` on every rank of `comm`, then agrees: if it threw on some
// ranks, every rank throws the error of the lowest such rank as Agreed<E>,
// E its type (UsageError, InputError, NegativeCycleError, OverflowError,
// ResourceError, else Error), the message prefixed with "rank R: " unless
// every rank failed. An Agreed error thrown inside `step` passes through as
// it is. Collective; for steps that may fail on some ranks only,
// such as reading the input.
void agree(Communicator& comm, const std::function<void()>& step);

// Runs `step` on rank `root` alone (the others wait in the agreement): an
// error there is every rank's verdict, thrown on every rank as Agreed<E>
// with origin -1 and the message as it is (the input that rank 0 alone
// reads is everyone's input). Collective.
void agree_from(Communicator& comm, int root, const std::function<void()>& step);

// Rank `root`'s graph `g` on every rank (its weight type, n and edges, in
// the order they are: a normalized graph stays normalized); the others'
// `g` is replaced. Collective; the edges travel as bytes, in pieces the
// communicator splits as it needs.
void broadcast_graph(Communicator& comm, AnyGraph& g, int root);

}  // namespace apsp
