// Setup costs of a distributed solve, per rank, to choose between every rank
// doing a step itself and rank 0 doing it and broadcasting the result:
//   read        every rank reads the graph file   vs  rank 0 reads, broadcasts the edges
//   potentials  every rank runs Bellman-Ford      vs  rank 0 runs it, broadcasts h
// and, when there is a GPU, what building each rank's tiles costs:
//   tiles gpu   the GPU engine in int32 on the rank's device (rows layout,
//               tiles of 128 built on the device from the rank's edges),
//               potentials included (every rank computes them)
// Run under mpirun (or alone, one rank):
//   mpirun -np 4 build/bench/apsp_bench_dist_setup GRAPH [repeats]
// Prints one line per step with the slowest rank's seconds (what the job waits for).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/cuda.hpp"
#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/potentials.hpp"
#include "distributed/gpu_engine.hpp"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The slowest rank's time for `step`, started together after a barrier.
template <class F>
double slowest(apsp::Communicator& comm, F&& step) {
  comm.barrier();
  const double start = now();
  step();
  return comm.all_reduce(now() - start, apsp::ReduceOp::max);
}

void broadcast_graph(apsp::Communicator& comm, apsp::Graph& g) {
  std::int64_t header[2] = {g.n, static_cast<std::int64_t>(g.edges.size())};
  comm.broadcast(header, 2, 0);
  g.n = header[0];
  g.edges.resize(static_cast<std::size_t>(header[1]));
  static_assert(sizeof(apsp::Edge) == 3 * sizeof(std::int32_t), "edges are three int32");
  comm.broadcast(reinterpret_cast<std::int32_t*>(g.edges.data()), 3 * g.edges.size(), 0);
}

// This rank's place in the rows layout for tiles of `tile`.
apsp::dist::ProcessGrid rows_grid(const apsp::Communicator& comm, std::int64_t n, std::int64_t tile) {
  apsp::dist::ProcessGrid grid;
  grid.rows = comm.size();
  grid.row = comm.rank();
  grid.tiles = (n + tile - 1) / tile;
  return grid;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s GRAPH [repeats]\n", argv[0]);
    return 1;
  }
  const std::string path = argv[1];
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const auto comm = apsp::launched_by_mpi() ? apsp::make_mpi_communicator() : apsp::make_single_communicator();
  double read_all = 1e30, read_bcast = 1e30, pot_all = 1e30, pot_bcast = 1e30;
  apsp::Graph g;
  for (int r = 0; r < repeats; ++r) {
    read_all = std::min(read_all, slowest(*comm, [&] { g = apsp::io::read_graph(path); }));
    read_bcast = std::min(read_bcast, slowest(*comm, [&] {
                            apsp::Graph mine;
                            if (comm->rank() == 0) mine = apsp::io::read_graph(path);
                            broadcast_graph(*comm, mine);
                          }));
  }
  const apsp::Graph normalized = apsp::normalize(g);
  const apsp::Csr csr = apsp::to_csr(normalized);
  for (int r = 0; r < repeats; ++r) {
    pot_all = std::min(pot_all, slowest(*comm, [&] { apsp::johnson_potentials(csr); }));
    pot_bcast = std::min(pot_bcast, slowest(*comm, [&] {
                           std::vector<std::int64_t> h(static_cast<std::size_t>(csr.n));
                           if (comm->rank() == 0) h = apsp::johnson_potentials(csr);
                           comm->broadcast(h.data(), h.size(), 0);
                         }));
  }
  double tiles_gpu = 1e30;
  std::string gpu_problem;  // this rank's, e.g. its tiles do not fit the device
  const bool gpu = apsp::cuda::compiled_in() && !apsp::cuda::devices().empty();
  for (int r = 0; gpu && r < repeats; ++r)
    tiles_gpu =
        std::min(tiles_gpu, slowest(*comm, [&] {
                   apsp::dist::GpuEngineOptions o;
                   o.device = std::max(0, comm->device());
                   o.precision = apsp::Precision::int32;
                   try {
                     apsp::dist::make_gpu_engine(
                         normalized, rows_grid(*comm, normalized.n, apsp::dist::gpu_tile(apsp::WeightType::int32)), o);
                   } catch (const apsp::Error& e) {
                     gpu_problem = e.what();
                   }
                 }));
  const bool gpu_failed = gpu && comm->all_reduce(std::int64_t{!gpu_problem.empty()}, apsp::ReduceOp::max) != 0;
  if (!gpu_problem.empty()) std::fprintf(stderr, "rank %d: tiles gpu: %s\n", comm->rank(), gpu_problem.c_str());
  if (comm->rank() == 0) {
    std::printf("ranks %d, n %lld, m %zu (%s)\n", comm->size(), static_cast<long long>(normalized.n),
                normalized.edges.size(), comm->kind());
    std::printf("read        every rank %.4f s   rank 0 + broadcast %.4f s\n", read_all, read_bcast);
    std::printf("potentials  every rank %.4f s   rank 0 + broadcast %.4f s\n", pot_all, pot_bcast);
    if (gpu && !gpu_failed) std::printf("tiles gpu   %.4f s (potentials included)\n", tiles_gpu);
    if (gpu_failed) std::printf("tiles gpu   failed on some rank (its message is on stderr)\n");
  }
  return 0;
}
