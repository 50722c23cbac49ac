#include "powerfs_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace powerfs {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

std::string read_range(int fd, off_t off, off_t end) {
  std::string b(static_cast<size_t>(end - off), '\0');
  size_t got = 0;
  while (got < b.size()) {
    ssize_t n = ::pread(fd, b.data() + got, b.size() - got, off + static_cast<off_t>(got));
    if (n <= 0) break;  // past the end: zeros, as a hole reads
    got += static_cast<size_t>(n);
  }
  return b;
}

void write_all(int fd, const std::string& b, off_t off, const std::string& path) {
  size_t done = 0;
  while (done < b.size()) {
    ssize_t n = ::pwrite(fd, b.data() + done, b.size() - done, off + static_cast<off_t>(done));
    if (n < 0) fail("pwrite", path);
    done += static_cast<size_t>(n);
  }
}

// inode -> a path holding it, over the live tree and the grave.
void index_tree(const std::string& dir, std::unordered_map<ino_t, std::string>& out) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return;
  out.emplace(st.st_ino, dir);
  if (!S_ISDIR(st.st_mode)) return;
  for (const auto& [name, ino] : list_dir(dir)) {
    (void)ino;
    index_tree(std::string(dir).append("/").append(name), out);
  }
}

// Puts a dirty file back as the disk holds it after the cut.
void revert_file(const std::string& path, const DirtyFile& f, const CutMode& mode, std::mt19937_64& rng,
                 std::string& account, int& torn) {
  int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) fail("open", path);
  struct stat st {};
  ::fstat(fd, &st);
  for (auto it = f.undo.rbegin(); it != f.undo.rend(); ++it) write_all(fd, it->old_bytes, it->offset, path);
  off_t size = f.durable_size;
  if (mode.verbose)
    account += "\n  revert " + path + " " + std::to_string(st.st_size) + " -> " + std::to_string(size) + " (" +
               std::to_string(f.undo.size()) + " undo)";
  if (mode.tear && st.st_size > f.durable_size && (rng() & 1)) {
    off_t keep = f.durable_size + 1 + static_cast<off_t>(rng() % static_cast<uint64_t>(st.st_size - f.durable_size));
    size = std::min<off_t>(st.st_size, (keep + 4095) / 4096 * 4096);
    write_all(fd, std::string(static_cast<size_t>(size - keep), '\0'), keep, path);
    ++torn;
    if (mode.verbose) account += "\n  torn " + path + " at " + std::to_string(keep);
  }
  if (::ftruncate(fd, size) != 0) fail("ftruncate", path);
  ::close(fd);
}

struct Builder {
  const DurableState& st;
  const CutMode& mode;
  std::mt19937_64& rng;
  std::unordered_map<ino_t, std::string> where;
  std::set<ino_t> placed;

  Entries entries_of(ino_t ino, const std::string& path) {
    auto d = st.dirty_dirs().find(ino);
    if (d == st.dirty_dirs().end() || (mode.tear && (rng() & 1))) return list_dir(path);
    return d->second;
  }

  void place(ino_t ino, const std::string& dst) {
    auto w = where.find(ino);
    if (w == where.end()) return;  // not there any more: nothing to keep
    struct stat s {};
    if (::lstat(w->second.c_str(), &s) != 0) return;
    bool again = !placed.insert(ino).second;
    if (S_ISDIR(s.st_mode)) {
      if (::mkdir(dst.c_str(), s.st_mode & 07777) != 0) fail("mkdir", dst);
      if (!again) build(ino, w->second, dst);
    } else if (::link(w->second.c_str(), dst.c_str()) != 0) {
      std::filesystem::copy(w->second, dst);  // e.g. too many links
    }
  }

  void build(ino_t ino, const std::string& src, const std::string& dst) {
    for (const auto& [name, child] : entries_of(ino, src)) place(child, std::string(dst).append("/").append(name));
  }
};

}  // namespace

Entries list_dir(const std::string& dir) {
  Entries out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    out.emplace(e->d_name, e->d_ino);
  }
  ::closedir(d);
  return out;
}

void DurableState::before_write(ino_t ino, int fd, off_t size, off_t off, size_t len) {
  auto [it, fresh] = files_.try_emplace(ino);
  if (fresh) it->second.durable_size = size;
  DirtyFile& f = it->second;
  // Bytes at or past the live size were cut by a truncate, whose undo holds them.
  off_t end = std::min({off + static_cast<off_t>(len), f.durable_size, size});
  if (off < end) f.undo.push_back({off, read_range(fd, off, end)});
}

void DurableState::before_truncate(ino_t ino, int fd, off_t size, off_t new_size) {
  auto [it, fresh] = files_.try_emplace(ino);
  if (fresh) it->second.durable_size = size;
  DirtyFile& f = it->second;
  off_t end = std::min(size, f.durable_size);
  if (new_size < end) f.undo.push_back({new_size, read_range(fd, new_size, end)});
}

void DurableState::created_file(ino_t ino) { files_[ino] = DirtyFile{}; }

void DurableState::before_dir_change(ino_t ino, const std::string& dir) {
  if (!dirs_.count(ino)) dirs_[ino] = list_dir(dir);
}

std::string apply_cut(const DurableState& st, const std::string& live, const std::string& grave, const CutMode& mode) {
  std::mt19937_64 rng(mode.seed);
  Builder b{st, mode, rng, {}, {}};
  index_tree(live, b.where);
  index_tree(grave, b.where);
  std::string account =
      "files " + std::to_string(st.dirty_files().size()) + " dirs " + std::to_string(st.dirty_dirs().size());
  int torn = 0;
  for (const auto& [ino, f] : st.dirty_files()) {
    auto w = b.where.find(ino);
    struct stat s {};
    if (w != b.where.end() && ::lstat(w->second.c_str(), &s) == 0 && S_ISREG(s.st_mode))
      revert_file(w->second, f, mode, rng, account, torn);
  }
  if (mode.tear) account += " torn " + std::to_string(torn);
  struct stat root {};
  if (::lstat(live.c_str(), &root) != 0) fail("lstat", live);
  const std::string fresh = live + ".cut", old = live + ".old";
  std::filesystem::remove_all(fresh);
  if (::mkdir(fresh.c_str(), root.st_mode & 07777) != 0) fail("mkdir", fresh);
  b.placed.insert(root.st_ino);
  b.build(root.st_ino, live, fresh);
  if (::rename(live.c_str(), old.c_str()) != 0) fail("rename", live);
  if (::rename(fresh.c_str(), live.c_str()) != 0) fail("rename", fresh);
  std::filesystem::remove_all(old);
  std::filesystem::remove_all(grave);
  std::filesystem::create_directories(grave);
  return account;
}

}  // namespace powerfs
