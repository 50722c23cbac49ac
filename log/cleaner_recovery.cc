#include "log/cleaner_recovery.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <vector>

#include "log/chunk_reader.h"
#include "log/file_util.h"
#include "log/log_segment.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace fs = std::filesystem;

int64_t segment_file_next_offset(const fs::path& log_file, int64_t base) {
  FileDescriptor fd(::open(log_file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw std::system_error(errno, std::generic_category(), "open " + log_file.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw std::system_error(errno, std::generic_category(), "stat");
  ChunkReader r(fd.get(), static_cast<uint64_t>(st.st_size), size_t{64} * 1024);
  BatchHeader h;
  int64_t next = base;
  for (uint64_t pos = 0; read_batch_header(r, pos, h); pos += h.size) next = h.last_offset() + 1;
  if (auto st = r.status(); !st) throw_io(st.error(), "read " + log_file.string());
  return next;
}

namespace {

bool parse_base(const std::string& name, size_t suffix_len, int64_t& base) {
  if (name.size() != 20 + suffix_len) return false;
  base = 0;
  for (int i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    base = base * 10 + (name[i] - '0');
  }
  return true;
}

void remove_segment_files(const fs::path& dir, int64_t base) {
  for (const char* suf : {".log", ".index", ".timeindex"}) fs::remove(dir / segment_file_name(base, suf));
}

void complete_swap(const fs::path& dir, int64_t base, const std::vector<int64_t>& old_bases) {
  const fs::path swap = dir / (segment_file_name(base, ".log") + ".swap");
  const int64_t next = segment_file_next_offset(swap, base);
  for (int64_t b : old_bases) {
    if (b == base || (b > base && b < next)) remove_segment_files(dir, b);
  }
  if (int rc = fsync_dir(dir); rc != 0) throw std::system_error(rc, std::generic_category(), "fsync dir");
  const fs::path txn_swap = dir / (segment_file_name(base, ".txnindex") + ".swap");
  if (fs::exists(txn_swap)) fs::rename(txn_swap, dir / segment_file_name(base, ".txnindex"));
  fs::rename(swap, dir / segment_file_name(base, ".log"));
  storage_log().info("log {}: completed an interrupted cleaner swap at offset {} (up to {})", dir.string(), base, next);
}

}  // namespace

int finish_interrupted_cleaning(const fs::path& dir) {
  std::vector<int64_t> swaps, old_bases, txn_swaps;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    int64_t base;
    if (parse_base(name, 9, base) && name.ends_with(".log.swap")) {
      swaps.push_back(base);
    } else if (parse_base(name, 14, base) && name.ends_with(".txnindex.swap")) {
      txn_swaps.push_back(base);  // goes with its .log.swap, or alone if that never came
    } else if (name.ends_with(".cleaned") || name.ends_with(".swap")) {
      fs::remove(e.path());
    } else if (parse_base(name, 4, base) && name.ends_with(".log")) {
      old_bases.push_back(base);
    }
  }
  for (int64_t b : txn_swaps) {
    if (std::find(swaps.begin(), swaps.end(), b) == swaps.end())
      fs::remove(dir / (segment_file_name(b, ".txnindex") + ".swap"));
  }
  for (int64_t b : swaps) complete_swap(dir, b, old_bases);
  if (int rc = fsync_dir(dir); rc != 0) throw std::system_error(rc, std::generic_category(), "fsync dir");
  return static_cast<int>(swaps.size());
}

}  // namespace skiff::storage
