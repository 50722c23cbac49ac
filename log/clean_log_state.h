// CleanLogState: what a clean shutdown knows about each partition's active
// segment, kept so the next start need not open it. At 100,000 partitions,
// opening every active segment's .log, .index and .timeindex and reading
// their ends and the producer snapshot was most of the start.
//
// One file per log dir, `skiff-clean-shutdown-logs`, written durably at a
// clean shutdown after every log is closed and BEFORE the clean-shutdown
// marker; read at start only when the marker is there, and removed at start
// with the marker, before anything is appended. A partition appears only if
// its close flushed everything and wrote its producer snapshot. The load
// still lists each partition's directory and uses an entry only if the
// newest segment there is the entry's, with both its indexes (a segment
// list changed meanwhile falls back to the normal load).
//
// Byte layout (big-endian; common/file_fields.h's fields):
//   magic u32 'SKCL', version u32 (0), count u32, then count entries:
//     name (u32 length, bytes: the partition dir name), active_base i64,
//     next_offset i64, log_bytes u64, offset_entries u32, time_entries u32,
//     max_timestamp i64, max_timestamp_offset i64, roll_base_ms i64,
//     bytes_since_index i64, flags u32 (bit 0: no producers)
//   crc32c u32 of every byte before it.
// A file that is short, has another magic or version, or fails its CRC is
// ignored (every partition then loads the normal way).
//
// Threads: free functions, any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>

#include "log/result.h"

namespace skiff::storage {

inline constexpr char kCleanLogStateFile[] = "skiff-clean-shutdown-logs";

struct CleanLogState {
  int64_t active_base = 0;
  int64_t next_offset = 0;  // the log end offset
  uint64_t log_bytes = 0;   // the active segment's .log size
  uint32_t offset_entries = 0;
  uint32_t time_entries = 0;
  int64_t max_timestamp = -1;
  int64_t max_timestamp_offset = -1;
  int64_t roll_base_ms = 0;
  int64_t bytes_since_index = 0;  // log bytes after the last offset index entry
  bool no_producers = false;      // the snapshot at next_offset holds none
  auto operator<=>(const CleanLogState&) const = default;
};

using CleanLogStates = std::unordered_map<std::string, CleanLogState>;  // partition dir name ->

// The file's bytes for `states`.
std::string encode_clean_log_states(const CleanLogStates& states);
// The entries of `bytes`, or an empty map if they are not a whole valid file.
CleanLogStates decode_clean_log_states(std::string_view bytes);

// Reads `<log_dir>/skiff-clean-shutdown-logs`; missing or invalid: empty.
CleanLogStates read_clean_log_states(const std::filesystem::path& log_dir);
// Writes it durably (temp, fsync, rename, fsync of the dir); errno on failure.
Result<void> write_clean_log_states(const std::filesystem::path& log_dir, const CleanLogStates& states);

}  // namespace skiff::storage
