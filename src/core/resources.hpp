// The one place that decides whether memory or disk space is there before
// the library allocates a large buffer or starts writing a large file. The
// checks throw ResourceError naming the sizes (the CLI's exit 3), so that an
// impossible size fails at once instead of in the OOM killer or half-way
// through a file.
#pragma once

#include <sys/statvfs.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace apsp::resources {

// Where the memory available to this process is read from. Tests point these
// at files they write (set_memory_sources_for_testing).
struct MemorySources {
  std::string meminfo = "/proc/meminfo";          // MemAvailable
  std::string self_cgroup = "/proc/self/cgroup";  // this process's cgroups
  std::string cgroup_root = "/sys/fs/cgroup";     // where the hierarchies are mounted
};

// Memory this process can still use, and what limits it.
struct AvailableMemory {
  std::uint64_t bytes = 0;
  std::string limited_by;  // "MemAvailable" or the cgroup file that sets the limit
};

// The smaller of MemAvailable (/proc/meminfo) and, for each cgroup level of
// this process that sets a memory limit, the limit minus the level's working
// set (usage less the inactive page cache, which the kernel reclaims before
// it runs out): cgroup v2 memory.max / memory.current / memory.stat, or v1
// memory.limit_in_bytes / memory.usage_in_bytes / memory.stat. nullopt when
// nothing can be read (then nothing is refused).
std::optional<AvailableMemory> available_memory(const MemorySources& sources);

// Throws ResourceError "<what> needs X GiB (N bytes) of memory but only Y GiB
// are available (<limited by>)" when `bytes`, plus the memory reserved below, do
// not fit the available memory.
void require_memory(std::uint64_t bytes, const std::string& what);

// Memory that was allocated but whose pages may not be touched yet, so that
// MemAvailable does not show it: a result matrix allocated without zero-fill.
// require_memory counts it until it is released.
void reserve_memory(std::uint64_t bytes);
void release_memory(std::uint64_t bytes);

// Throws ResourceError "<what> needs X GiB (N bytes) on the file system of
// <path>, which has Y GiB free" when the file system that will hold `path`
// (its directory) has fewer than `bytes` free for unprivileged users. Does
// nothing when the file system cannot be asked (the open reports that) or
// when `path` is a device or a pipe.
void require_disk_space(const std::string& path, std::uint64_t bytes, const std::string& what);

// Files to be written at once: each `bytes` at `path`, named `what`.
struct DiskNeed {
  std::string path;
  std::uint64_t bytes = 0;
  std::string what;
};
// require_disk_space for several files together: those whose directories
// are on one file system (one st_dev) must fit it as a sum, so that two
// outputs that each fit, but not both, are refused before any work. The
// message names every file of the group ("<what> and <what> need ...").
void require_disk_space(const std::vector<DiskNeed>& files);

// "4.00 GiB (4294967296 bytes)".
std::string describe_bytes(std::uint64_t bytes);

// Test hooks: replace the sources of available_memory / the statvfs call
// that require_memory / require_disk_space use; nullptr restores the real ones.
void set_memory_sources_for_testing(const MemorySources* sources);
using StatvfsFunction = int (*)(const char* path, struct statvfs* out);
void set_statvfs_for_testing(StatvfsFunction function);

}  // namespace apsp::resources
