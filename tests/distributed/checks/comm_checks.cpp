#include "distributed/checks/comm_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <variant>
#include <vector>

#include "apsp/error.hpp"

namespace apsp::test {
namespace {

// A value that differs by rank, element and type, fits every type and has a
// fractional part for doubles.
template <class T>
T value_of(int rank, std::size_t i) {
  const double v = static_cast<double>(rank) * 7.0 - static_cast<double>(i % 13) + 3.0;
  if constexpr (std::is_same_v<T, double>) return v + 0.25;
  if constexpr (std::is_same_v<T, std::uint8_t>) return static_cast<T>((rank * 7 + static_cast<int>(i % 13)) & 0x7f);
  return static_cast<T>(v);
}

template <class T>
void broadcast_typed(Communicator& comm) {
  for (int root = 0; root < comm.size(); ++root)
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{1000}}) {
      std::vector<T> data(count);
      for (std::size_t i = 0; i < count; ++i) data[i] = value_of<T>(comm.rank(), i);
      comm.broadcast(data.data(), count, root);
      for (std::size_t i = 0; i < count; ++i)
        if (data[i] != value_of<T>(root, i)) {
          ADD_FAILURE() << "rank " << comm.rank() << ": broadcast of " << count << " "
                        << to_string(DataTypeOf<T>::value) << " from root " << root << " differs at " << i;
          break;
        }
    }
}

template <class T>
void all_reduce_typed(Communicator& comm) {
  constexpr std::size_t count = 257;
  for (ReduceOp op : {ReduceOp::min, ReduceOp::max, ReduceOp::sum})
    for (bool in_place : {false, true}) {
      std::vector<T> in(count), out(count);
      for (std::size_t i = 0; i < count; ++i) in[i] = value_of<T>(comm.rank(), i);
      comm.all_reduce(in.data(), in_place ? in.data() : out.data(), count, op);
      const std::vector<T>& got = in_place ? in : out;
      for (std::size_t i = 0; i < count; ++i) {
        T expected = value_of<T>(0, i);
        for (int r = 1; r < comm.size(); ++r) {
          const T v = value_of<T>(r, i);
          expected = op == ReduceOp::min   ? std::min(expected, v)
                     : op == ReduceOp::max ? std::max(expected, v)
                                           : static_cast<T>(expected + v);
        }
        if (got[i] != expected) {
          ADD_FAILURE() << "rank " << comm.rank() << ": all_reduce of " << to_string(DataTypeOf<T>::value) << " op "
                        << static_cast<int>(op) << (in_place ? " in place" : "") << " differs at " << i;
          break;
        }
      }
    }
}

}  // namespace

void check_broadcast(Communicator& comm) {
  broadcast_typed<std::uint8_t>(comm);
  broadcast_typed<std::int32_t>(comm);
  broadcast_typed<std::int64_t>(comm);
  broadcast_typed<double>(comm);
}

void check_all_reduce(Communicator& comm) {
  all_reduce_typed<std::uint8_t>(comm);
  all_reduce_typed<std::int32_t>(comm);
  all_reduce_typed<std::int64_t>(comm);
  all_reduce_typed<double>(comm);
  EXPECT_EQ(comm.all_reduce(std::int64_t{comm.rank()}, ReduceOp::sum),
            std::int64_t{comm.size()} * (comm.size() - 1) / 2);
}

void check_send_receive(Communicator& comm) {
  const int r = comm.rank();
  std::vector<std::int32_t> first(100), second(3);
  if (r > 0) {
    comm.receive(first.data(), first.size(), r - 1);
    comm.receive(second.data(), second.size(), r - 1);
    for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i], (r - 1) * 1000 + static_cast<int>(i));
    for (std::size_t i = 0; i < second.size(); ++i) EXPECT_EQ(second[i], -(r - 1) - static_cast<int>(i));
  }
  if (r + 1 < comm.size()) {
    for (std::size_t i = 0; i < first.size(); ++i) first[i] = r * 1000 + static_cast<int>(i);
    for (std::size_t i = 0; i < second.size(); ++i) second[i] = -r - static_cast<int>(i);
    comm.send(first.data(), first.size(), r + 1);
    comm.send(second.data(), second.size(), r + 1);
  }
  const std::int64_t mine = 42 + r;
  std::int64_t back = 0;
  comm.send(&mine, 1, r);
  comm.receive(&back, 1, r);
  EXPECT_EQ(back, mine);
}

void check_split(Communicator& comm) {
  const int parity = comm.rank() % 2;
  std::unique_ptr<Communicator> part = comm.split(parity, -comm.rank());
  // Members of this parity, by descending world rank.
  std::vector<int> members;
  for (int r = comm.size() - 1; r >= 0; --r)
    if (r % 2 == parity) members.push_back(r);
  EXPECT_EQ(part->size(), static_cast<int>(members.size()));
  const int expected_rank = static_cast<int>(std::find(members.begin(), members.end(), comm.rank()) - members.begin());
  EXPECT_EQ(part->rank(), expected_rank);
  std::int32_t from_first = comm.rank();
  part->broadcast(&from_first, 1, 0);
  EXPECT_EQ(from_first, members.front());
  const std::int64_t sum = part->all_reduce(std::int64_t{comm.rank()}, ReduceOp::sum);
  EXPECT_EQ(sum, std::accumulate(members.begin(), members.end(), std::int64_t{0}));
  part->barrier();
  comm.barrier();
  EXPECT_GT(comm.seconds_in_calls(), 0.0);
}

void check_bad_arguments(Communicator& comm) {
  std::int32_t x = 0;
  EXPECT_THROW(comm.broadcast(&x, 1, comm.size()), UsageError);
  EXPECT_THROW(comm.broadcast(&x, 1, -1), UsageError);
  EXPECT_THROW(comm.send(&x, 1, comm.size()), UsageError);
  EXPECT_THROW(comm.receive(&x, 1, -1), UsageError);
  EXPECT_THROW(comm.split(-1, 0), UsageError);
  comm.barrier();
}

void check_broadcast_graph(Communicator& comm) {
  const int root = comm.size() - 1;
  const bool is_root = comm.rank() == root;
  const Graph ints{5, {Edge{4, 0, -3}, Edge{0, 1, 7}, Edge{2, 2, 0}}};
  const GraphF32 floats{3, {EdgeF32{0, 2, 0.25f}, EdgeF32{1, 0, -1.5f}}};
  const GraphF64 doubles{4, {EdgeF64{3, 1, 1e-300}, EdgeF64{0, 3, -2.5}}};
  const GraphF64 empty{0, {}};
  const AnyGraph sent[] = {ints, floats, doubles, empty};
  for (const AnyGraph& expected : sent) {
    // The receivers start from another type and size: all of it is replaced.
    AnyGraph g = is_root ? expected : AnyGraph{Graph{9, {Edge{1, 2, 3}}}};
    broadcast_graph(comm, g, root);
    ASSERT_EQ(g.index(), expected.index());
    std::visit(
        [&](const auto& got) {
          const auto& want = std::get<std::decay_t<decltype(got)>>(expected);
          EXPECT_EQ(got.n, want.n);
          ASSERT_EQ(got.edges.size(), want.edges.size());
          for (std::size_t e = 0; e < got.edges.size(); ++e) {
            EXPECT_EQ(got.edges[e].src, want.edges[e].src);
            EXPECT_EQ(got.edges[e].dst, want.edges[e].dst);
            EXPECT_EQ(got.edges[e].w, want.edges[e].w);
          }
        },
        g);
  }
}

void check_agree_from(Communicator& comm) {
  int runs = 0;
  agree_from(comm, 0, [&] { ++runs; });
  EXPECT_EQ(runs, comm.rank() == 0 ? 1 : 0);
  try {
    agree_from(comm, 0, [] { throw InputError("g.txt:3: bad weight"); });
    ADD_FAILURE() << "rank 0's error was not thrown";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "g.txt:3: bad weight");
    const auto* agreed = dynamic_cast<const AgreedFailure*>(&e);
    ASSERT_NE(agreed, nullptr);
    EXPECT_EQ(agreed->origin_rank(), -1);
  }
  comm.barrier();
}

}  // namespace apsp::test
