// OffsetStore (legacy): the file in which Skiff kept the group coordinator's
// durable state before it moved to the internal topic `__consumer_offsets`
// (offsets_topic.h): `<first log dir>/skiff-consumer-offsets.log`. The broker
// now only reads it, once, to migrate it (offsets_migration.h); the writer is
// kept for the tests that produce old-format files.
//
// The file compacted itself: when it had grown well past its live content it
// was rewritten (to a temporary file, fsynced, renamed over the old one).
//
// Layout: a sequence of records, each
//   u32 payload length | u32 CRC-32C of the payload | payload
// all integers big-endian; payload = u8 type, then
//   1 offset     str16 group, str16 topic, i32 partition, i64 offset,
//                i32 leader epoch, str32 metadata, i64 commit ts, i64 expire ts
//   2 offset del str16 group, str16 topic, i32 partition
//   3 group      str16 group, str16 protocol type, i32 generation, i64 state ts
//   4 group del  str16 group
//   5 pending    str16 group, i64 producer id, i16 producer epoch, i64 order,
//                u8 superseded, str16 topic, i32 partition, then as 1 from the
//                offset on (a TxnOffsetCommit offset waiting for its marker)
//   6 txn end    str16 group, i64 producer id, i16 producer epoch, u8 commit:
//                drops that producer's pending offsets of the group (a
//                COMMIT's offsets are written just before it, as type 1)
// A type 2 also drops the pending offsets of that partition, a type 4 all of
// the group's (Kafka's tombstones do the same).
// A torn or corrupt tail (kill -9 during a write) ends the replay; the file
// is truncated there.
//
// Threads: every method is thread-safe. Writes are serialised by one mutex
// (write(2) only, no fsync); flush() is a group commit: concurrent callers
// share one fdatasync, done outside the write mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/group_types.h"
#include "coordinator/group/offsets_replay.h"

namespace skiff::group {

// A pending transactional offset as written (type 5).
struct PendingWrite {
  int64_t producer_id = -1;
  TopicPartition tp;
  PendingOffset offset;
};

class OffsetStore {
 public:
  // Opens (creating) the file and replays it into `loaded`. Throws
  // std::system_error if the file cannot be opened.
  OffsetStore(std::filesystem::path file, std::map<std::string, LoadedGroup>& loaded);
  ~OffsetStore();
  OffsetStore(const OffsetStore&) = delete;
  OffsetStore& operator=(const OffsetStore&) = delete;

  // Each returns the sequence number to flush() to, or nothing on I/O error.
  // `pending`: pending offsets rewritten in the same write (a plain commit
  // supersedes them), so that both survive a crash or neither.
  std::optional<uint64_t> write_offsets(const std::string& group,
                                        const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets,
                                        const std::vector<PendingWrite>& pending = {});
  std::optional<uint64_t> delete_offsets(const std::string& group, const std::vector<TopicPartition>& tps);
  std::optional<uint64_t> write_group(const GroupRecord& group);
  std::optional<uint64_t> delete_group(const std::string& group);
  // Transactional offsets (types 5 and 6 above).
  std::optional<uint64_t> write_pending(const std::string& group, const std::vector<PendingWrite>& pending);
  // One write: `superseded` (other producers' pending offsets, rewritten),
  // `applied` (the offsets a COMMIT makes committed; none for an abort), then
  // the end record.
  std::optional<uint64_t> end_txn(const std::string& group, int64_t producer_id, int16_t producer_epoch, bool commit,
                                  const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& applied,
                                  const std::vector<PendingWrite>& superseded);

  // Makes everything up to `seq` durable (fdatasync). False on I/O error.
  bool flush(uint64_t seq);

  const std::filesystem::path& path() const { return path_; }
  uint64_t file_bytes() const;
  uint64_t live_bytes() const;
  // Rewrites the file with only the live records (also run automatically).
  bool compact();

  static constexpr uint64_t kCompactMinBytes = 4 << 20;

 private:
  void replay(std::map<std::string, LoadedGroup>& loaded);
  struct Rec {
    std::string key;  // its name in live_ (erased when `tombstone`)
    std::vector<uint8_t> framed;
    bool tombstone = false;
  };
  // Appends encoded records in one write. Caller holds mu_.
  std::optional<uint64_t> append_locked(const std::vector<Rec>& records);
  // Drops from live_ the keys starting with `prefix` that `pick` accepts. Caller holds mu_.
  void erase_live_locked(const std::string& prefix, const std::function<bool(const std::string&)>& pick);

  bool compact_locked();
  void maybe_compact_locked();

  std::filesystem::path path_;
  mutable std::mutex mu_;  // writes, fd_ replacement, live_
  int fd_ = -1;
  uint64_t file_bytes_ = 0;
  uint64_t live_bytes_ = 0;
  std::map<std::string, std::vector<uint8_t>> live_;  // key -> framed record
  uint64_t written_seq_ = 0;

  std::mutex flush_mu_;  // taken before mu_ when both are needed
  std::atomic<uint64_t> flushed_seq_{0};
};

}  // namespace skiff::group
