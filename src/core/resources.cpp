#include "core/resources.hpp"

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <vector>

#include "apsp/error.hpp"

namespace apsp::resources {
namespace {

// The directory that holds `path` ("." for a bare name).
std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::atomic<std::uint64_t> g_reserved{0};

std::mutex g_hooks_mutex;
std::optional<MemorySources> g_sources_override;
StatvfsFunction g_statvfs = nullptr;

MemorySources current_sources() {
  std::lock_guard<std::mutex> lock(g_hooks_mutex);
  return g_sources_override ? *g_sources_override : MemorySources{};
}

std::optional<std::string> read_small_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A decimal number at the start of `text` (after spaces), or nullopt; "max"
// (cgroup v2's "no limit") is nullopt too.
std::optional<std::uint64_t> leading_number(const std::string& text) {
  std::size_t at = text.find_first_not_of(" \t");
  if (at == std::string::npos || text[at] < '0' || text[at] > '9') return std::nullopt;
  std::uint64_t value = 0;
  for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[at] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<std::uint64_t> number_in_file(const std::string& path) {
  const auto text = read_small_file(path);
  return text ? leading_number(*text) : std::nullopt;
}

// The value of "key value" (or "key: value") in a file of such lines.
std::optional<std::uint64_t> keyed_number(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() &&
        (line[key.size()] == ' ' || line[key.size()] == ':' || line[key.size()] == '\t'))
      return leading_number(line.substr(line.find_first_not_of(" :\t", key.size())));
  return std::nullopt;
}

// The cgroup path of this process in the v2 hierarchy ("0::/path") and in
// the v1 memory hierarchy ("N:...memory...:/path").
struct CgroupPaths {
  std::optional<std::string> v2;
  std::optional<std::string> v1_memory;
};

CgroupPaths cgroup_paths(const std::string& self_cgroup) {
  CgroupPaths paths;
  const auto text = read_small_file(self_cgroup);
  if (!text) return paths;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      paths.v2 = path;
      continue;
    }
    std::istringstream names(controllers);
    std::string name;
    while (std::getline(names, name, ','))
      if (name == "memory") paths.v1_memory = path;
  }
  return paths;
}

// "/a/b/c" -> "/a/b/c", "/a/b", "/a", "" (the mount root).
std::vector<std::string> self_and_ancestors(std::string path) {
  std::vector<std::string> levels;
  while (!path.empty() && path.back() == '/') path.pop_back();
  for (;;) {
    levels.push_back(path);
    if (path.empty()) return levels;
    const std::size_t slash = path.find_last_of('/');
    path.erase(slash == std::string::npos ? 0 : slash);
  }
}

// Room left under the cgroup limit set at `directory`, if one is set there:
// limit - (usage - inactive file cache).
struct Room {
  std::uint64_t bytes;
  std::string limit_file;
};

std::optional<Room> room_at(const std::string& directory, const char* limit_name, const char* usage_name,
                            const char* inactive_key) {
  const auto limit = number_in_file(directory + "/" + limit_name);
  // v1 says "no limit" with a value near 2^63.
  if (!limit || *limit >= (std::uint64_t{1} << 62)) return std::nullopt;
  const auto usage = number_in_file(directory + "/" + usage_name);
  if (!usage) return std::nullopt;
  std::uint64_t working_set = *usage;
  if (const auto stat = read_small_file(directory + "/memory.stat"))
    if (const auto inactive = keyed_number(*stat, inactive_key)) working_set -= std::min(working_set, *inactive);
  return Room{*limit > working_set ? *limit - working_set : 0, directory + "/" + limit_name};
}

void lower_to(std::optional<AvailableMemory>& best, const std::optional<Room>& room) {
  if (room && (!best || room->bytes < best->bytes)) best = AvailableMemory{room->bytes, room->limit_file};
}

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

std::optional<AvailableMemory> available_memory(const MemorySources& sources) {
  std::optional<AvailableMemory> best;
  if (const auto meminfo = read_small_file(sources.meminfo))
    if (const auto kib = keyed_number(*meminfo, "MemAvailable")) best = AvailableMemory{*kib * 1024, "MemAvailable"};
  const CgroupPaths paths = cgroup_paths(sources.self_cgroup);
  if (paths.v2) {
    // Pure v2 mounts at the root; hybrid systems mount v2 at unified/. Under
    // a cgroup namespace the path is "/" and the mount root is our cgroup.
    for (const std::string& mount : {sources.cgroup_root, sources.cgroup_root + "/unified"})
      for (const std::string& level : self_and_ancestors(*paths.v2))
        lower_to(best, room_at(mount + level, "memory.max", "memory.current", "inactive_file"));
  }
  if (paths.v1_memory)
    for (const std::string& level : self_and_ancestors(*paths.v1_memory))
      lower_to(best, room_at(sources.cgroup_root + "/memory" + level, "memory.limit_in_bytes", "memory.usage_in_bytes",
                             "total_inactive_file"));
  return best;
}

void require_memory(std::uint64_t bytes, const std::string& what) {
  const auto available = available_memory(current_sources());
  if (!available) return;
  const std::uint64_t reserved = g_reserved.load();
  const std::uint64_t free_now = available->bytes > reserved ? available->bytes - reserved : 0;
  if (bytes <= free_now) return;
  std::string message = what + " needs " + describe_bytes(bytes) + " of memory but only " + gib(free_now) +
                        " are available (" + available->limited_by;
  if (reserved > 0) message += ", less " + gib(reserved) + " already allocated for results";
  throw ResourceError(message + ")");
}

void reserve_memory(std::uint64_t bytes) { g_reserved += bytes; }

void release_memory(std::uint64_t bytes) { g_reserved -= bytes; }

void require_disk_space(const std::string& path, std::uint64_t bytes, const std::string& what) {
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) return;  // a device or a pipe: no file to fit
  const std::string directory = directory_of(path);
  StatvfsFunction call = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_hooks_mutex);
    call = g_statvfs;
  }
  struct statvfs info {};
  if ((call ? call : ::statvfs)(directory.c_str(), &info) != 0) return;
  const unsigned __int128 free_bytes = static_cast<unsigned __int128>(info.f_bavail) * info.f_frsize;
  if (bytes <= free_bytes) return;
  throw ResourceError(what + " needs " + describe_bytes(bytes) + " on the file system of " + directory +
                      ", which has " + describe_bytes(static_cast<std::uint64_t>(free_bytes)) + " free");
}

void require_disk_space(const std::vector<DiskNeed>& files) {
  // Groups by the device of the directory that will hold each file; a file
  // whose directory cannot be asked is checked alone (the open reports it).
  std::vector<bool> done(files.size(), false);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (done[i]) continue;
    struct stat target {};
    if (::stat(files[i].path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) continue;  // a device or a pipe
    struct stat directory {};
    const bool known = ::stat(directory_of(files[i].path).c_str(), &directory) == 0;
    std::uint64_t bytes = files[i].bytes;
    std::string what = files[i].what;
    for (std::size_t j = i + 1; known && j < files.size(); ++j) {
      struct stat other {};
      if (done[j] || (::stat(files[j].path.c_str(), &other) == 0 && !S_ISREG(other.st_mode))) continue;
      if (::stat(directory_of(files[j].path).c_str(), &other) != 0 || other.st_dev != directory.st_dev) continue;
      bytes += files[j].bytes;
      what += " and " + files[j].what;
      done[j] = true;
    }
    require_disk_space(files[i].path, bytes, what);
  }
}

std::string describe_bytes(std::uint64_t bytes) { return gib(bytes) + " (" + std::to_string(bytes) + " bytes)"; }

void set_memory_sources_for_testing(const MemorySources* sources) {
  std::lock_guard<std::mutex> lock(g_hooks_mutex);
  if (sources)
    g_sources_override = *sources;
  else
    g_sources_override.reset();
}

void set_statvfs_for_testing(StatvfsFunction function) {
  std::lock_guard<std::mutex> lock(g_hooks_mutex);
  g_statvfs = function;
}

}  // namespace apsp::resources
