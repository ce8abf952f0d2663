// A sink that checks real-valued distance rows on the host as they pass on
// to another sink (SolveOptions::verify on the GPU for float32 / float64,
// whose device certificate is int32's): the O(n * m) certificate of
// apsp::verify, one block of rows at a time. Used by fw (real_backend.cpp)
// and sssp (sparse_solver.cpp). Host-only.
#pragma once

#include <cstdint>
#include <string>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/verify.hpp"

namespace apsp::cuda {

template <class D>
class VerifyingSink final : public Sink {
 public:
  // The inner sink has begun; `g` is the normalized graph. Distance blocks
  // must have stride n (the download's); a violation throws VerifyError
  // before the block reaches the inner sink.
  VerifyingSink(Sink& inner, const BasicGraph<D>& g) : inner_(inner), verifier_(g), layout_n_(g.n) {}
  void begin(const SinkLayout& layout) override { inner_.begin(layout); }
  void put(const RowBlock& block) override {
    if (block.plane == Plane::distances) {
      if (block.row_stride != layout_n_)
        throw Error("GPU verify: a row block with stride " + std::to_string(block.row_stride) + " for " +
                    std::to_string(layout_n_) + " columns");
      const VerifyReport report = verifier_.check(block.first_row, block.rows, static_cast<const D*>(block.data));
      if (!report.ok) throw VerifyError(report.first_violation);
    }
    inner_.put(block);
  }
  void commit() override { inner_.commit(); }
  void discard() noexcept override { inner_.discard(); }
  void* row_address(Plane, std::int64_t) override { return nullptr; }  // every block passes through put()
  void prepare() override { inner_.prepare(); }

 private:
  Sink& inner_;
  BasicRowVerifier<D> verifier_;
  std::int64_t layout_n_ = 0;
};

}  // namespace apsp::cuda
