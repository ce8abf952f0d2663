// A test double of early device calls (Communicator::stages_until_ready,
// advance_transport): the switch from a host transport to a device transport
// that becomes ready late, as nccl's does, on any communicator, so that CPU
// ranks (CI, under mpirun and on threads) exercise the schedule's switch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apsp/comm.hpp"
#include "distributed/checks/dist_checks.hpp"

namespace apsp::test {

// A communicator over `inner` (not owned; it must outlive this one) whose
// "device transport" is ready on this rank from its `ready_at`-th
// advance_transport() call on (counting from 0; a split or wait_ready()
// makes it ready at once, collectively, as nccl's does). Until every rank's
// is ready and they switch, every call goes to `inner` as it is. After the
// switch a broadcast goes another way, the root sending to each rank in
// turn and the others receiving, so that ranks that switched at different
// calls would not match their calls and the test fails.
//
// `never` plays nccl's APSP_NCCL_EARLY=never: the transport is not ready
// at any advance_transport() call, which returns at once without asking
// (switches_transport() false; advance_calls() stays 0) and wait_ready()
// makes nothing; a split still makes it ready.
class LateTransport final : public Communicator {
 public:
  LateTransport(Communicator& inner, std::int64_t ready_at, bool never = false);
  const char* kind() const override { return inner_.kind(); }
  int device() const override { return inner_.device(); }
  // Broadcasts through `inner` before the switch and the other way after it.
  std::int64_t staged_broadcasts() const { return staged_; }
  std::int64_t switched_broadcasts() const { return switched_; }
  std::int64_t advance_calls() const { return calls_; }

 protected:
  void do_broadcast(void* data, std::size_t bytes, DataType type, std::size_t count, int root, Memory memory,
                    void* stream) override;
  void do_send(const void* data, std::size_t bytes, int peer, Memory memory, void* stream) override;
  void do_receive(void* data, std::size_t bytes, int peer, Memory memory, void* stream) override;
  void do_all_reduce(const void* input, void* output, std::size_t count, DataType type, ReduceOp op, Memory memory,
                     void* stream) override;
  void do_barrier() override { inner_.barrier(); }
  std::unique_ptr<Communicator> do_split(int color, int key) override;
  std::unique_ptr<SharedCounter> do_make_counter() override { return inner_.make_counter(); }
  void do_abort(int exit_code) noexcept override { inner_.abort(exit_code); }
  void do_wait_ready() override { ready_ = ready_ || !never_; }
  bool do_stages_until_ready() const override { return true; }
  bool do_switches_transport() const override { return !never_ || ready_; }
  bool do_transport_ready() override;
  void do_switch_transport() override { on_ = true; }

 private:
  Communicator& inner_;
  std::int64_t ready_at_;
  bool never_;
  std::int64_t calls_ = 0;
  bool ready_ = false;
  bool on_ = false;
  std::int64_t staged_ = 0, switched_ = 0;
};

// Early device calls on `comm`'s ranks, each configuration of
// configs_for(comm.size()) solved over a LateTransport (on `backend`) whose
// ranks are ready at different rounds, 1, 3 and 2 in turn, and once with the
// last rank never ready: every result is the single-process one's (cpu:
// fw-blocked's, with predecessors; cuda: one GPU's at n = 2000), and every
// rank switched at the same round: the last rank's ready round (or none),
// round 0 where the grid's splits made the transport, with broadcasts
// through both ways where the switch fell inside the rounds.
void check_late_transport_switch(Communicator& comm, Backend backend = Backend::cpu);

// Staged device calls that never switch (LateTransport's `never`, as nccl's
// APSP_NCCL_EARLY=never), each configuration of configs_for(comm.size())
// on CPU ranks: fw-blocked's rows with predecessors; no advance_transport()
// asked the ranks (no all-reduce a round), no switch and every broadcast
// staged, the result's rounds_stages one part "staged (T rounds)"; where
// a grid's splits made the transport, the switch at round 0 and no staged
// round. Then a transport ready on every rank at round 1: "staged (1
// rounds)" and "after the switch (T - 1 rounds)".
void check_never_switching_transport(Communicator& comm);

}  // namespace apsp::test
