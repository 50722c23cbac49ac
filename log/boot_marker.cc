#include "log/boot_marker.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "log/file_util.h"
#include "log/storage_log.h"

namespace skiff::storage {

std::string current_boot_id() {
  std::string id;
  if (!read_small_file("/proc/sys/kernel/random/boot_id", id)) return {};
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

bool marked_on_boot(const std::filesystem::path& dir, const std::string& boot_id) {
  std::string stored;
  return !boot_id.empty() && read_small_file(dir / kBootMarkerFile, stored) && stored == boot_id;
}

void mark_boot(const std::filesystem::path& dir, const std::string& boot_id) {
  if (boot_id.empty()) return;
  const auto path = dir / kBootMarkerFile;
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  int rc = fd.valid() ? pwrite_full(fd.get(), boot_id.data(), boot_id.size(), 0) : errno;
  if (rc != 0) storage_log().warn("writing {}: {}", path.string(), std::strerror(rc));
}

}  // namespace skiff::storage
