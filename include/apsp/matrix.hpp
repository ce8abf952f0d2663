// Host storage of n x n result matrices, and a read-only view of one.
//
// HostVector is a std::vector whose resize() leaves trivial elements
// uninitialized: a solver writes every cell of its result, so zero-filling n^2
// cells first would only cost a pass over memory (and touch every page from
// one thread). Span views contiguous values wherever they live: a vector, a
// HostVector, or a file mapped into memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace apsp {

// std::allocator, except that value-initialization (vector::resize(n),
// vector(n)) default-initializes: no zero fill for int, float and the like.
template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// A vector whose resize() does not zero-fill (see DefaultInitAllocator).
template <class T>
using HostVector = std::vector<T, DefaultInitAllocator<T>>;

// Faults in the pages of [data, data + bytes) on every OpenMP thread by
// writing a zero into each: memory whose contents are about to be
// overwritten (a fresh result matrix) is committed before the producer
// needs it (Sink::prepare). A fresh 4 GiB matrix first-touched by the copy
// held the H100 download to about 15 GB/s, a quarter of the link.
void commit_pages(void* data, std::size_t bytes);

// The memory check every result buffer passes before it is allocated
// (HostMatrixSink, the CLI's files, the Python binding's arrays): throws
// ResourceError "<what> needs X GiB (N bytes) of memory but only Y GiB are
// available (<what limits it>)" when `bytes` do not fit the memory this
// process can still use (MemAvailable and its cgroups' limits).
void require_host_memory(std::uint64_t bytes, const std::string& what);

// "4.00 GiB (4294967296 bytes)", as the memory and disk checks name sizes.
std::string describe_bytes(std::uint64_t bytes);

// A view of `size` contiguous T, like C++20 std::span. It does not own the
// values: keep the container alive while the view is used.
template <class T>
class Span {
 public:
  using value_type = std::remove_cv_t<T>;

  constexpr Span() noexcept = default;
  constexpr Span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  // Any contiguous container whose data() converts to T*: std::vector,
  // HostVector, std::array, std::string for char.
  template <class C, class = std::enable_if_t<!std::is_same<std::decay_t<C>, Span>::value &&
                                              std::is_convertible<decltype(std::declval<C&>().data()), T*>::value>>
  constexpr Span(C&& container) noexcept : data_(container.data()), size_(container.size()) {}
  // A braced list of values, e.g. verify(g, {0, 1, kInf, 0}); valid for the
  // full expression only, like any temporary. (It also keeps {0, 1} from
  // meaning Span(nullptr, 1).)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  template <class U = T, class = std::enable_if_t<std::is_const<U>::value>>
  constexpr Span(std::initializer_list<value_type> values) noexcept : data_(values.begin()), size_(values.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr T* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace apsp
