// Builds without CUDA: communicators take host buffers only (see staging.hpp).
#include "apsp/error.hpp"
#include "comm/staging.hpp"

namespace apsp::comm {
namespace {

[[noreturn]] void no_cuda() { throw ResourceError("device buffers need CUDA; this build of apsp has none"); }

}  // namespace

void use_device(int device) {
  if (device >= 0) no_cuda();
}
void wait_for_stream(void*) { no_cuda(); }
void copy_device_to_device(void*, const void*, std::size_t, void*) { no_cuda(); }
bool pin_host(void*, std::size_t) { no_cuda(); }
void unpin_host(void*) { no_cuda(); }
void download(void*, const void*, std::size_t, void*) { no_cuda(); }
void upload(void*, const void*, std::size_t, void*) { no_cuda(); }
int current_device() { no_cuda(); }
bool ipc_allocate(std::size_t, int, void**, IpcHandle*) { no_cuda(); }
void ipc_free(void*) { no_cuda(); }
void* ipc_open(const IpcHandle&, int) { no_cuda(); }
void ipc_close(void*) { no_cuda(); }
void ipc_copy(void*, const void*, std::size_t, void*) { no_cuda(); }
StagedBuffer::StagedBuffer(const void*, std::size_t, void*, bool) { no_cuda(); }
void StagedBuffer::store(void*) const { no_cuda(); }

}  // namespace apsp::comm
