// The supernodal factor's front kernels: each supernode K with k columns and
// a structure S_K of s rows owns a (k + s) x (k + s) row-major front F_K at
// F + front_offset[K] (leading dimension k + s; index p < k is column
// first[K] + p, index k + i is S_K[i]). After the factor
//   C_KK = F_K[0:k, 0:k], U_K = F_K[0:k, k:], L_K = F_K[k:, 0:k],
// and F_K[k:, k:] is K's update matrix, merged into its parent's front.
#pragma once

#include <cstdint>

#include "cuda/kernels/supernodal/arith.cuh"

namespace apsp::cuda::kernels::supernodal {

// Where the fronts are and how big: per supernode.
struct FrontIndex {
  const std::int64_t* front_offset;  // element offset of F_K
  const std::int32_t* columns;       // k
  const std::int32_t* structure;     // s
  const std::int64_t* struct_ptr;    // S_K's entries start at struct_rel + struct_ptr[K]
  const std::int32_t* struct_rel;    // position of S_K[i] in the parent's front
  const std::int32_t* parent;        // -1 for a root
};

// Fronts of supernodes[blockIdx.x]: +inf everywhere, 0 on the diagonal
// (every index reaches itself by the empty path). Rows stride gridDim.y.
template <class D>
__global__ void init_fronts(D* __restrict__ f, FrontIndex index, const std::int32_t* __restrict__ supernodes) {
  const std::int32_t K = supernodes[blockIdx.x];
  const std::int64_t ld = index.columns[K] + index.structure[K];
  D* front = f + index.front_offset[K];
  const D inf = Arith<D>::infinity();
  for (std::int64_t i = blockIdx.y; i < ld; i += gridDim.y)
    for (std::int64_t j = threadIdx.x; j < ld; j += blockDim.x) front[i * ld + j] = i == j ? D{0} : inf;
}

// The graph's own entries, one per distinct (front, row, column): f[at[e]] = w[e].
template <class D>
__global__ void assemble_entries(D* __restrict__ f, const std::int64_t* __restrict__ at, const D* __restrict__ w,
                                 std::int64_t count) {
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < count;
       e += std::int64_t{gridDim.x} * blockDim.x)
    f[at[e]] = w[e];
}

// Which entries of a child's update matrix extend_add merges. The look-ahead
// (the tiled factor's chains, cuda/supernodal_solver.cu) splits a child's
// update in two: the parent's pivot block (the entries whose row and column
// both map below the parent's k columns: S_child is sorted, so the leading
// p x p block) before the parent's closure, and the rest later.
enum class ExtendPart : int {
  whole,        // every child whole
  pivot_block,  // children flagged in `lookahead`: the pivot block only; the others whole
  outside,      // every child: all but the pivot block
};

// Extend-add: the update matrix of children[blockIdx.x] min-merged into its
// parent's front through struct_rel (siblings share the parent: atomic).
// Rows stride gridDim.y. `lookahead` (per supernode, for pivot_block; may
// be null otherwise) flags the children whose pivot block alone is merged.
template <class D>
__global__ void extend_add(D* __restrict__ f, FrontIndex index, const std::int32_t* __restrict__ children,
                           ExtendPart part = ExtendPart::whole, const std::uint8_t* __restrict__ lookahead = nullptr) {
  const std::int32_t child = children[blockIdx.x];
  const std::int32_t parent = index.parent[child];
  const std::int64_t k = index.columns[child], s = index.structure[child];
  const std::int64_t ld = k + s;
  const std::int64_t parent_k = index.columns[parent];
  const std::int64_t parent_ld = parent_k + index.structure[parent];
  const D* update = f + index.front_offset[child] + k * ld + k;
  D* into = f + index.front_offset[parent];
  const std::int32_t* rel = index.struct_rel + index.struct_ptr[child];
  const D inf = Arith<D>::infinity();
  const bool pivot_only = part == ExtendPart::pivot_block && lookahead[child] != 0;
  for (std::int64_t a = blockIdx.y; a < s; a += gridDim.y) {
    const std::int64_t row = rel[a];
    if (pivot_only && row >= parent_k) break;  // rel ascends with a
    for (std::int64_t b = threadIdx.x; b < s; b += blockDim.x) {
      const std::int64_t col = rel[b];
      if (pivot_only && col >= parent_k) break;
      if (part == ExtendPart::outside && row < parent_k && col < parent_k) continue;
      const D v = update[a * ld + b];
      if (v < inf) Arith<D>::atomic_min(into + row * parent_ld + col, v);
    }
  }
}

// The largest diagonal block close_small_fronts closes in shared memory.
inline constexpr int kSmallColumns = 64;

// C_KK = the min-plus closure of F_K[0:k, 0:k] for supernodes[blockIdx.x],
// k <= kSmallColumns, by Floyd-Warshall in shared memory. Row and column p
// never change in round p (the diagonal is 0 and entries are non-negative),
// and a cell is written only when it improves, so no cell is written while
// another thread reads it in the same round.
template <class D>
__global__ void close_small_fronts(D* __restrict__ f, FrontIndex index, const std::int32_t* __restrict__ supernodes) {
  __shared__ D c[kSmallColumns][kSmallColumns + 1];
  const std::int32_t K = supernodes[blockIdx.x];
  const int k = index.columns[K];
  const std::int64_t ld = k + index.structure[K];
  D* front = f + index.front_offset[K];
  for (int e = threadIdx.x; e < k * k; e += blockDim.x) c[e / k][e % k] = front[(e / k) * ld + e % k];
  __syncthreads();
  for (int p = 0; p < k; ++p) {
    for (int e = threadIdx.x; e < k * k; e += blockDim.x) {
      const int i = e / k, j = e % k;
      const D via = c[i][p] + c[p][j];
      if (via < c[i][j]) c[i][j] = via;
    }
    __syncthreads();
  }
  for (int e = threadIdx.x; e < k * k; e += blockDim.x) front[(e / k) * ld + e % k] = c[e / k][e % k];
}

// A large front in the dense solver's padded layout: n_pad x n_pad, with
// F's column indices 0..k-1 at 0..k-1, isolated padding at k..k_pad-1,
// F's structure indices k..k+s-1 at k_pad..k_pad+s-1, isolated padding
// after (0 on the diagonal, +inf elsewhere). Eliminating pivots 0..k_pad-1
// there is K's whole factor step (closure, panels and update matrix).
struct PaddedFront {
  std::int64_t k, s, k_pad, n_pad;
  // The front's row stride: k + s (the whole front) when 0; the whole
  // front's k + s when the copy is only its k x k diagonal block (s = 0).
  std::int64_t front_ld = 0;
  __host__ __device__ std::int64_t ld() const { return front_ld > 0 ? front_ld : k + s; }
  // The front index of padded index p, or -1 for padding.
  __device__ std::int64_t front_index(std::int64_t p) const {
    return p < k ? p : p < k_pad ? -1 : p < k_pad + s ? k + (p - k_pad) : -1;
  }
};

// Entry x of the padded copy (padding isolated: 0 on the diagonal, +inf
// off it), and entry x of the copied block back into the front (the whole
// front, or its diagonal block when s = 0): pad_front's and unpad_front's
// bodies, and the first and last phases of persistent_rounds
// (kernels/supernodal/persistent_rounds.cuh).
template <class D>
__device__ __forceinline__ void pad_entry(const D* front, const PaddedFront& shape, D* padded, std::int64_t x) {
  const std::int64_t i = x / shape.n_pad, j = x - i * shape.n_pad;
  const std::int64_t fi = shape.front_index(i), fj = shape.front_index(j);
  padded[x] = fi >= 0 && fj >= 0 ? front[fi * shape.ld() + fj] : i == j ? D{0} : Arith<D>::infinity();
}
__host__ __device__ inline std::int64_t unpad_entries(const PaddedFront& shape) {
  return (shape.k + shape.s) * (shape.k + shape.s);
}
template <class D>
__device__ __forceinline__ void unpad_entry(const D* padded, const PaddedFront& shape, D* front, std::int64_t x) {
  const std::int64_t block = shape.k + shape.s;
  const std::int64_t fi = x / block, fj = x - fi * block;
  const std::int64_t pi = fi < shape.k ? fi : shape.k_pad + (fi - shape.k);
  const std::int64_t pj = fj < shape.k ? fj : shape.k_pad + (fj - shape.k);
  front[fi * shape.ld() + fj] = padded[pi * shape.n_pad + pj];
}

template <class D>
__global__ void pad_front(const D* __restrict__ front, PaddedFront shape, D* __restrict__ padded) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < shape.n_pad * shape.n_pad;
       x += std::int64_t{gridDim.x} * blockDim.x)
    pad_entry(front, shape, padded, x);
}

template <class D>
__global__ void unpad_front(const D* __restrict__ padded, PaddedFront shape, D* __restrict__ front) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < unpad_entries(shape);
       x += std::int64_t{gridDim.x} * blockDim.x)
    unpad_entry(padded, shape, front, x);
}

// The factor in int16 for the solve's int16 working rows: min(entry,
// kInf16). Entries are lengths of real paths (>= 0) or kInf, so a clamped
// entry is at least the int16 infinity, as it would be in int16 throughout.
static __global__ void narrow_fronts(const std::int32_t* __restrict__ f, std::int64_t count,
                                     std::int16_t* __restrict__ out) {
  for (std::int64_t x = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; x < count;
       x += std::int64_t{gridDim.x} * blockDim.x)
    out[x] = static_cast<std::int16_t>(min(f[x], kInf16));
}

}  // namespace apsp::cuda::kernels::supernodal
