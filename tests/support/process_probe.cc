#include "tests/support/process_probe.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace skiff::test {
namespace {

int64_t status_kb(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  }
  return -1;
}

}  // namespace

double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close_paren = text.rfind(')');
  if (close_paren == std::string::npos) return -1;
  std::istringstream fields(text.substr(close_paren + 2));
  std::string f;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {  // fields 14 and 15: utime, stime
    if (i == 14) utime = std::stoull(f);
    if (i == 15) stime = std::stoull(f);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

int64_t rss_bytes(pid_t pid) { return status_kb(pid, "VmRSS") * 1024; }
int64_t peak_rss_bytes(pid_t pid) { return status_kb(pid, "VmHWM") * 1024; }

int open_fd_count(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

bool set_fd_limit(pid_t pid, uint64_t limit) {
  rlimit rl{limit, limit};
  return ::prlimit(pid, RLIMIT_NOFILE, &rl, nullptr) == 0;
}

bool api_versions_ok(RawClient& client, int32_t correlation_id) {
  const auto id = static_cast<uint32_t>(correlation_id);
  std::vector<uint8_t> frame = {0, 18, 0, 0};  // ApiVersions v0, request header v1
  auto idb = be32(id);
  frame.insert(frame.end(), idb.begin(), idb.end());
  frame.insert(frame.end(), {0, 4, 't', 'e', 's', 't'});
  if (!client.send_frame(frame)) return false;
  auto answer = client.read_frame();
  if (!answer || answer->size() < 6) return false;
  const auto& a = *answer;
  uint32_t got = (uint32_t(a[0]) << 24) | (uint32_t(a[1]) << 16) | (uint32_t(a[2]) << 8) | a[3];
  return got == id && a[4] == 0 && a[5] == 0;
}

size_t count_lines_with(const std::string& text, const std::string& needle) {
  size_t n = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find(needle) != std::string::npos) ++n;
  return n;
}

}  // namespace skiff::test
