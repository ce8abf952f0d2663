// Private to src/distributed: a rank's OpenMP thread count for the length of
// its solve.
#pragma once

#include <omp.h>

namespace apsp::dist {

// `threads` (0: leave as is) for the OpenMP regions of the calling thread (a
// rank), for the scope's life; the caller's setting comes back after.
class RankThreads {
 public:
  explicit RankThreads(int threads) : previous_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  RankThreads(const RankThreads&) = delete;
  RankThreads& operator=(const RankThreads&) = delete;
  ~RankThreads() { omp_set_num_threads(previous_); }

 private:
  int previous_;
};

}  // namespace apsp::dist
