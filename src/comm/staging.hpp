// Private to src/comm: moving device buffers through host memory, for the
// communicators whose transport works on host memory (local without NCCL,
// single, and MPI that is not CUDA-aware). Host-safe; builds without CUDA
// get versions that throw ResourceError.
#pragma once

#include <cstddef>

namespace apsp::comm {

// Makes `device` the calling thread's current CUDA device (-1: nothing).
void use_device(int device);

// Waits until the work queued on `stream` (a cudaStream_t) is done.
void wait_for_stream(void* stream);

// Copies `bytes` from device to device in `stream` order (asynchronous).
void copy_device_to_device(void* to, const void* from, std::size_t bytes, void* stream);

// The node-shared staging of the mpi communicator's device broadcasts
// (mpi.cpp): host memory that another library mapped (an MPI shared
// window), page-locked for the GPU in place, and copies between it and a
// device buffer in `stream` order, each waited for before it returns.
// pin_host returns false when the memory cannot be page-locked (the caller
// falls back to its own staging); unpin_host undoes a pin_host that
// returned true.
bool pin_host(void* host, std::size_t bytes);
void unpin_host(void* host);
void download(void* host, const void* device_data, std::size_t bytes, void* stream);
void upload(void* device_data, const void* host, std::size_t bytes, void* stream);

// The CUDA IPC staging of the mpi communicator's device broadcasts
// (mpi.cpp, IpcHalves): each rank's device buffer, which the other ranks
// of its node map over CUDA IPC and read from (NVLink between GPUs; ranks
// sharing one GPU map it too). The handle is opaque bytes (a
// cudaIpcMemHandle_t) that travel over MPI.
struct IpcHandle {
  unsigned char bytes[64] = {};
};
// The calling thread's current CUDA device.
int current_device();
// `bytes` of device memory on `device` (made current) and its IPC handle;
// false, with nothing allocated, when either fails (the caller stages
// another way).
bool ipc_allocate(std::size_t bytes, int device, void** data, IpcHandle* handle);
// Frees what ipc_allocate gave, once no other process has it open.
void ipc_free(void* data);
// Another process's buffer mapped on `device` (made current), peer access
// enabled; nullptr when it cannot be opened.
void* ipc_open(const IpcHandle& handle, int device);
void ipc_close(void* mapped);
// Copies `bytes` between two device buffers of any devices (a peer's
// mapped buffer included) in `stream` order, waited for.
void ipc_copy(void* to, const void* from, std::size_t bytes, void* stream);

// A host copy of a device buffer for one call. The constructor waits for
// `stream` and copies the device data to page-locked host memory when
// `load` is set; store() copies the host data back and waits for it. The
// pinned memory is kept per thread and reused, growing as needed, so a
// thread holds at most one StagedBuffer at a time.
class StagedBuffer {
 public:
  StagedBuffer(const void* device_data, std::size_t bytes, void* stream, bool load);
  StagedBuffer(const StagedBuffer&) = delete;
  StagedBuffer& operator=(const StagedBuffer&) = delete;
  void* host() const { return host_; }
  void store(void* device_data) const;

 private:
  void* host_ = nullptr;
  std::size_t bytes_ = 0;
  void* stream_ = nullptr;
};

}  // namespace apsp::comm
