// DirCopier: copies one partition directory into another, incrementally,
// while the source log keeps being appended to. The first half of Kafka's
// future-replica move (replica_dir_mover.h): repeated sync() passes copy
// what changed since the previous pass; the last pass runs after the source
// log was closed, so the copy is then exact.
//
// What "changed" means, per regular file of the source directory:
//   - new, or another inode than last time (the cleaner swapped it in): the
//     whole file is copied;
//   - a `.log` or `.txnindex` file (append-only) of the same inode that grew:
//     only the new tail is copied;
//   - any other file (indexes, which are preallocated and rewritten in place,
//     producer snapshots, partition.metadata): copied whole when its size or
//     mtime changed, and always on a `final_pass` unless it belongs to a
//     segment below the newest one (those are immutable); the newest
//     segment's indexes (preallocated, mostly holes) only on the final pass,
//     after the log's close trimmed them;
//   - gone from the source (retention, DeleteRecords): removed from the copy.
// Leftovers of the log's own protocols (.tmp, .deleted, .cleaned, .swap) are
// never copied. A file that vanishes between listing and opening is skipped.
//
// Threads: one thread uses a DirCopier; it shares nothing. Errors are
// Result (result.h): an I/O Error carrying the errno.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "log/result.h"

namespace skiff::storage {

class DirCopier {
 public:
  DirCopier(std::filesystem::path src, std::filesystem::path dst) : src_(std::move(src)), dst_(std::move(dst)) {}

  // One pass; *copied (if set) gets the bytes written.
  Result<void> sync(bool final_pass, uint64_t* copied);
  // Called with the bytes of each chunk copied (a rate limit sleeps in it); none by default.
  void set_on_copied(std::function<void(uint64_t)> f) { on_copied_ = std::move(f); }
  // fdatasync of every copied file, then fsync of the directory.
  Result<void> fsync_all() const;
  // Bytes held by the copy now.
  uint64_t copied_bytes() const;
  const std::filesystem::path& dst() const { return dst_; }

 private:
  struct Seen {
    uint64_t ino = 0;
    uint64_t size = 0;
    int64_t mtime_ns = 0;
  };
  Result<void> sync_file(const std::string& name, bool final_pass, int64_t newest_base, uint64_t* copied);
  static std::optional<uint64_t> copy_from(const std::string& name, const Seen* last, const Seen& now, bool final_pass,
                                           int64_t newest_base);

  std::function<void(uint64_t)> on_copied_;
  const std::filesystem::path src_;
  const std::filesystem::path dst_;
  std::map<std::string, Seen> seen_;  // file name -> the source as last copied
};

}  // namespace skiff::storage
