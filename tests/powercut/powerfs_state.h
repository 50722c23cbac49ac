// Power-cut test filesystem (powerfs), its durable-state model: what a power
// cut would keep of a directory tree under Linux's worst-case rules.
//
// The live tree (what processes see) is a real directory, the "backing" dir;
// this model records, per inode (the backing file system's st_ino, kept
// unique because nothing is ever really unlinked: see powerfs.cc), what the
// disk would hold if the power went now:
//   - a file written since its last fsync/fdatasync is "dirty": its durable
//     size (the size at its last sync) and an undo log of the old bytes its
//     writes and truncates overwrote below that size. A sync drops both.
//   - a directory changed (create, mkdir, unlink, rmdir, rename in or out,
//     link) since its last fsync is "dirty": its durable entries (name ->
//     inode) as they were at its last fsync. An fsync of the directory
//     drops them. A directory created since has no durable entries.
// Everything not dirty is durable as it is.
//
// Thread rules: none; powerfs runs FUSE single-threaded (-s).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace powerfs {

struct Undo {
  off_t offset;
  std::string old_bytes;
};

struct DirtyFile {
  off_t durable_size = 0;
  std::vector<Undo> undo;  // in write order; replayed backwards
};

using Entries = std::map<std::string, ino_t>;

// Lists `dir`'s entries (no "." / ".."), name -> d_ino.
Entries list_dir(const std::string& dir);

class DurableState {
 public:
  // A file's data is about to change: before the write of [off, off+len)
  // to `fd` (whose current size is `size`). Saves what the write overwrites.
  void before_write(ino_t ino, int fd, off_t size, off_t off, size_t len);
  // A truncate of `fd` from `size` to `new_size`.
  void before_truncate(ino_t ino, int fd, off_t size, off_t new_size);
  // A new file: nothing of it is durable yet.
  void created_file(ino_t ino);
  // fsync / fdatasync / an O_SYNC/O_DSYNC write.
  void synced_file(ino_t ino) { files_.erase(ino); }

  // Directory `dir` (backing path, inode) is about to change.
  void before_dir_change(ino_t ino, const std::string& dir);
  // A new directory: its entries are not durable yet.
  void created_dir(ino_t ino) { dirs_[ino] = {}; }
  void synced_dir(ino_t ino) { dirs_.erase(ino); }

  const std::unordered_map<ino_t, DirtyFile>& dirty_files() const { return files_; }
  const std::unordered_map<ino_t, Entries>& dirty_dirs() const { return dirs_; }

 private:
  std::unordered_map<ino_t, DirtyFile> files_;
  std::unordered_map<ino_t, Entries> dirs_;
};

// How a cut treats what was not synced.
struct CutMode {
  // false: every unsynced change is lost (POSIX's worst case).
  // true: per dirty file, a coin decides whether a random prefix of its
  // unsynced appended bytes reached the disk, the rest of that last 4 KiB
  // page reading as zeros (a torn page); per dirty directory a coin decides
  // whether its unsynced entry changes reached the disk.
  bool tear = false;
  uint64_t seed = 1;
  bool verbose = false;  // the account lists every file reverted
};

// Rebuilds `live` (the backing dir) as a cut leaves it: reverts each dirty
// file in place (wherever its inode now is: under `live` or `grave`), then
// lays a new tree of hard links from the durable entries, starting at the
// root's, and swaps it in for `live`; `grave` is emptied. Returns a short
// account of what it did (for the log), or throws std::runtime_error.
std::string apply_cut(const DurableState& st, const std::string& live, const std::string& grave, const CutMode& mode);

}  // namespace powerfs
