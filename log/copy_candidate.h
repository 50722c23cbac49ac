// CopyCandidate: one closed segment that the remote log manager (tiered
// storage, docs/tiered-storage.md) may upload, with everything Kafka's
// RemoteLogManager.copyLogSegment puts in its LogSegmentData and
// RemoteLogSegmentMetadata. Log::copy_candidates lists them.
//
// Files: the paths are those of the live segment. An upload first calls
// open_files(): the descriptors it returns keep reading the same bytes even
// if retention, DeleteRecords or topic deletion unlinks the files meanwhile
// (as a FileSlice does). A file already unlinked when open_files runs is an
// I/O Error with errno ENOENT: the segment went, drop the candidate.
//
// Leader-epoch checkpoint text: Kafka's LeaderEpochCheckpointFile format
// (CheckpointFile with version 0), '\n' line ends:
//   0                 <- version
//   <n>               <- number of entries
//   <epoch> <start>   <- n lines: leader epoch (int32), its first offset (int64)
//
// Threads: a plain value; open_files() may run on any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "log/file_util.h"
#include "log/result.h"

namespace skiff::storage {

class LogSegment;

// Kafka's EpochEntry: `epoch` began at `start_offset`.
struct LeaderEpochEntry {
  int32_t epoch = 0;
  int64_t start_offset = 0;
  bool operator==(const LeaderEpochEntry&) const = default;
};

// The entries in Kafka's LeaderEpochCheckpointFile text (see above).
std::string leader_epoch_checkpoint_text(const std::vector<LeaderEpochEntry>& entries);

// A candidate's files, open read-only. txn_index and producer_snapshot are
// invalid descriptors when the candidate has no such file.
struct CopyFiles {
  FileDescriptor log;
  FileDescriptor offset_index;
  FileDescriptor time_index;
  FileDescriptor txn_index;
  FileDescriptor producer_snapshot;
};

struct CopyCandidate {
  // Holds the segment object (not its files: see open_files) while listed.
  std::shared_ptr<LogSegment> segment;
  int64_t base_offset = 0;
  // Kafka's endOffset: next_base_offset - 1, what the manager then passes
  // to Log::update_highest_offset_in_remote once the upload is durable.
  int64_t last_offset = 0;
  int64_t next_base_offset = 0;
  int64_t max_timestamp = -1;  // Kafka's segment.largestTimestamp(): the largest record time, else the file's mtime
  uint64_t size_bytes = 0;     // of the .log (closed: it no longer changes)
  std::filesystem::path log_file;
  std::filesystem::path offset_index_file;
  std::filesystem::path time_index_file;
  // `<base>.txnindex`: set only when the segment holds aborted transactions
  // (TxnIndex: the aborts whose ABORT marker lies in this segment).
  std::optional<std::filesystem::path> txn_index_file;
  // `<next_base_offset>.snapshot`: the producer state at the segment's end.
  // Unset when there is none (segments rolled before tiered storage was
  // enabled: only the two newest snapshots were kept then).
  std::optional<std::filesystem::path> producer_snapshot_file;
  // The leader epochs within [base_offset, next_base_offset) (Kafka's
  // segmentLeaderEpochs of the RemoteLogSegmentMetadata).
  std::vector<LeaderEpochEntry> segment_leader_epochs;
  // The log's leader-epoch history up to next_base_offset as Kafka uploads
  // it with the segment (epochEntriesInRange(-1, next)), as checkpoint text.
  std::string leader_epoch_checkpoint;

  // Opens every file above (O_RDONLY). An I/O Error (its errno) if one
  // cannot be opened; nothing stays open then.
  Result<CopyFiles> open_files() const;
};

}  // namespace skiff::storage
