// cp.async helpers (sm_80+): 16-byte copies from global to shared memory that
// bypass the registers, grouped and waited for by count.
#pragma once

namespace apsp::cuda::kernels {

__device__ inline void cp_async16(void* shared, const void* global) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

}  // namespace apsp::cuda::kernels
