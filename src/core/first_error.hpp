// Exceptions out of OpenMP regions, shared by the CPU algorithms and the sinks.
#pragma once

#include <atomic>
#include <exception>
#include <mutex>

namespace apsp {

// Keeps the first exception thrown inside an OpenMP region (where exceptions
// must not escape) and tells the other threads to stop.
class FirstError {
 public:
  template <class F>
  void run(F&& body) noexcept {
    try {
      body();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      stop_.store(true, std::memory_order_relaxed);
    }
  }
  bool stopped() const { return stop_.load(std::memory_order_relaxed); }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
};

}  // namespace apsp
