// The solver interface: one entry point, backends and algorithms chosen by name.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp {

enum class Backend { automatic, cpu, cuda };
// Arithmetic width. As a request (SolveOptions::precision): automatic picks;
// int16 is a GPU mode (two distances per 32-bit word where the result proves
// it exact); int32 means no narrower than 32 bits (the GPU skips the int16
// attempt; the CPU still widens to int64 where sums could overflow); int64 is
// a CPU mode that computes every algorithm in int64. As a result
// (SolveResult::precision): the width actually used.
enum class Precision { automatic, int32, int16, int64 };

struct BlockShape {
  int x = 0;  // 0 means the kernel's default
  int y = 0;
};

struct SolveOptions {
  // Algorithm name: "auto", or one of list_algorithms(backend).
  std::string algorithm = "auto";
  Backend backend = Backend::automatic;
  int threads = 0;              // CPU threads; 0 = OpenMP default
  bool predecessors = false;    // also fill SolveResult::pred
  Precision precision = Precision::automatic;  // requested arithmetic width (see Precision)
  BlockShape block;             // GPU thread-block shape for kernels that take one
  int device = 0;               // CUDA device ordinal
  // Called with the fraction done (0..1) from the calling thread; may be empty.
  std::function<void(double)> progress;
};

// Seconds spent in each stage of a solve (the seeds' "time distribution").
struct StageTimes {
  double host_to_device = 0;
  double compute = 0;
  double device_to_host = 0;
};

struct SolveResult {
  std::int64_t n = 0;
  std::vector<dist_t> dist;  // n*n row-major; kInf = unreachable
  std::vector<vertex_t> pred;  // n*n when requested: pred[i*n+j] = vertex before j on a shortest i->j path, -1 if none
  std::string algorithm;     // the algorithm that actually ran (auto resolved)
  Backend backend = Backend::cpu;
  Precision precision = Precision::int32;  // arithmetic width actually used (int32, int16 or int64)
  StageTimes times;
  // One line about how the result was reached when it is not the plain
  // choice, e.g. why the GPU handed the graph to the CPU; empty otherwise.
  std::string note;
};

// Solves APSP. The graph need not be normalized. Throws apsp::Error subtypes.
SolveResult solve(const Graph& g, const SolveOptions& opts = {});

// Algorithm names available on a backend (without "auto"), in a stable order.
std::vector<std::string> list_algorithms(Backend b);

const char* to_string(Backend b);
const char* to_string(Precision p);
Backend parse_backend(const std::string& s);      // throws UsageError
Precision parse_precision(const std::string& s);  // throws UsageError

}  // namespace apsp
