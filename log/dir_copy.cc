#include "log/dir_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <set>
#include <vector>

#include "log/file_util.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

bool transient(const std::string& name) {
  return name.ends_with(".tmp") || name.ends_with(".deleted") || name.ends_with(".cleaned") || name.ends_with(".swap");
}

bool append_only(const std::string& name) { return name.ends_with(".log") || name.ends_with(".txnindex"); }

// The segment base offset a segment file is named after, or -1.
int64_t segment_base(const std::string& name) {
  if (name.size() < 21) return -1;
  int64_t base = 0;
  for (int i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    base = base * 10 + (name[i] - '0');
  }
  return name[20] == '.' ? base : -1;
}

// Copies [from, to) of `in` to the same positions of `out`; `from` ends
// where the copy stopped (before `to` if the file shrank meanwhile).
Result<void> copy_range(int in, int out, uint64_t& from, uint64_t to, uint64_t* copied,
                        const std::function<void(uint64_t)>& on_copied) {
  std::vector<char> buf(size_t{256} * 1024);
  while (from < to) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), to - from));
    size_t got = 0;
    if (auto r = io_status(pread_full(in, buf.data(), want, static_cast<int64_t>(from), &got)); !r) return r;
    if (got == 0) break;  // the file shrank meanwhile: the next pass sees it
    if (auto r = io_status(pwrite_full(out, buf.data(), got, static_cast<int64_t>(from))); !r) return r;
    from += got;
    if (copied) *copied += got;
    if (on_copied) on_copied(got);
  }
  return {};
}

}  // namespace

Result<void> DirCopier::sync(bool final_pass, uint64_t* copied) {
  if (copied) *copied = 0;
  std::set<std::string> names;
  int64_t newest_base = -1;
  std::error_code ec;
  for (fs::directory_iterator it(src_, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (transient(name) || !it->is_regular_file(ec)) continue;
    names.insert(name);
    if (name.ends_with(".log")) newest_base = std::max(newest_base, segment_base(name));
  }
  if (ec) return unexpected(Error::io(ec.value()));
  for (const auto& name : names) {
    if (auto r = sync_file(name, final_pass, newest_base, copied); !r) return r;
  }
  for (auto it = seen_.begin(); it != seen_.end();) {  // gone from the source
    if (names.count(it->first)) {
      ++it;
      continue;
    }
    if (::unlink((dst_ / it->first).c_str()) != 0 && errno != ENOENT) return unexpected(errno_error());
    it = seen_.erase(it);
  }
  return {};
}

// Where the copy of `name` (the source now `now`, last copied as `last`)
// must start: 0 for the whole file, its old size for an appended tail, or
// nullopt when nothing is to be copied in this pass.
std::optional<uint64_t> DirCopier::copy_from(const std::string& name, const Seen* last, const Seen& now,
                                             bool final_pass, int64_t newest_base) {
  const bool same_file = last && last->ino == now.ino;
  if (same_file && append_only(name) && now.size >= last->size)
    return last->size == now.size ? std::nullopt : std::optional<uint64_t>(last->size);
  const int64_t base = segment_base(name);
  if (same_file && now.size == last->size && now.mtime_ns == last->mtime_ns) {
    const bool immutable = base >= 0 && base < newest_base;
    if (!final_pass || immutable) return std::nullopt;
  } else if (!final_pass && base == newest_base && !append_only(name)) {
    return std::nullopt;  // the active segment's preallocated indexes: copied once trimmed, on the final pass
  }
  return 0;
}

Result<void> DirCopier::sync_file(const std::string& name, bool final_pass, int64_t newest_base, uint64_t* copied) {
  FileDescriptor in(::open((src_ / name).c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) {
    if (errno == ENOENT) return {};  // vanished since the listing: skipped
    return unexpected(errno_error());
  }
  struct stat st {};
  if (::fstat(in.get(), &st) != 0) return unexpected(errno_error());
  Seen now{static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
           static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
  auto it = seen_.find(name);
  const auto start = copy_from(name, it == seen_.end() ? nullptr : &it->second, now, final_pass, newest_base);
  if (!start) return {};
  uint64_t from = *start;
  FileDescriptor out(::open((dst_ / name).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!out.valid()) return unexpected(errno_error());
  if (from == 0 && ::ftruncate(out.get(), 0) != 0) return unexpected(errno_error());
  if (auto r = copy_range(in.get(), out.get(), from, now.size, copied, on_copied_); !r) return r;
  if (::ftruncate(out.get(), static_cast<off_t>(from)) != 0) return unexpected(errno_error());
  now.size = from;
  seen_[name] = now;
  return {};
}

Result<void> DirCopier::fsync_all() const {
  for (const auto& [name, s] : seen_) {
    FileDescriptor f(::open((dst_ / name).c_str(), O_RDONLY | O_CLOEXEC));
    if (!f.valid()) return unexpected(errno_error());
    if (::fdatasync(f.get()) != 0) return unexpected(errno_error());
  }
  return io_status(fsync_dir(dst_));
}

uint64_t DirCopier::copied_bytes() const {
  uint64_t n = 0;
  for (const auto& [name, s] : seen_) n += s.size;
  return n;
}

}  // namespace skiff::storage
