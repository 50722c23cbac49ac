// TxnIndex: one partition's aborted transactions, Kafka's TransactionIndex.
// Each segment `<base>.log` may have `<base>.txnindex` holding the aborted
// transactions whose ABORT marker lies in that segment, in marker order.
// A copy of every entry is kept in memory (aborts are rare: a few per
// segment), so a read_committed Fetch never opens a file.
//
// .txnindex byte layout (Kafka's AbortedTxn, big-endian, no header), entries
// of 34 bytes back to back:
//   version int16 (=0) | producerId int64 | firstOffset int64
//   | lastOffset int64 (the ABORT marker's offset)
//   | lastStableOffset int64 (the LSO right after this abort completed)
// A trailing partial entry (torn write) is ignored and cut off on load.
//
// Durability: each entry is appended and fdatasynced at once (and a new
// file's directory fsynced): aborts are rare, and a power cut must never
// keep an ABORT marker, or a producer snapshot past it (from which recovery
// would not replay the abort), without its entry, or read_committed would
// serve the aborted records (issue 57, docs/durability.md). Any entry the
// log no longer backs (marker offset >= log end after a truncation) is
// dropped on load, and Log's recovery re-adds the aborts it replays that are
// missing (see add_if_missing).
//
// Threads: writers (append, load, drop) run under the owning Log's append
// lock; collect() may run on any thread (an internal mutex guards the map).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "log/result.h"

namespace skiff::storage {

struct AbortedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t last_stable_offset = -1;
  bool operator==(const AbortedTxn&) const = default;
};

inline constexpr size_t kAbortedTxnSize = 34;
inline constexpr int16_t kAbortedTxnVersion = 0;

void encode_aborted_txn(const AbortedTxn& t, uint8_t* out);  // kAbortedTxnSize bytes
// Decodes one entry; false on an unknown version.
bool decode_aborted_txn(const uint8_t* in, AbortedTxn& out);

// Writes a whole .txnindex file durably (the log cleaner's `.txnindex.cleaned`).
Result<void> write_txn_index_file(const std::filesystem::path& p, const std::vector<AbortedTxn>& entries);

class TxnIndex {
 public:
  // `dir` is the owning Log's, which outlives this.
  explicit TxnIndex(const std::string& dir) : dir_(dir) {}
  explicit TxnIndex(const std::string&& dir) = delete;

  static std::filesystem::path path(const std::filesystem::path& dir, int64_t segment_base);

  // Reads `<base>.txnindex` if present, keeping entries whose marker is
  // below `log_end` (rewriting the file if some were cut). An I/O Error on failure.
  Result<void> load_segment(int64_t segment_base, int64_t log_end);
  // Appends an entry to memory, then to the segment's file. An I/O Error
  // if the file write fails (the entry stays in memory even then).
  Result<void> append(int64_t segment_base, const AbortedTxn& t);
  // Recovery: appends `t` unless an entry with its marker offset exists.
  Result<void> add_if_missing(int64_t segment_base, const AbortedTxn& t);
  // Forgets a deleted segment's entries and unlinks its file.
  void drop_segment(int64_t segment_base);
  // Kafka's collectAbortedTxns over the segments from the one holding
  // `fetch_offset` (the greatest base <= it, or the first) on: entries with
  // lastOffset >= fetch_offset and firstOffset < upper_bound, stopping after
  // the first entry whose lastStableOffset >= upper_bound.
  std::vector<AbortedTxn> collect(int64_t fetch_offset, int64_t upper_bound) const;
  std::vector<AbortedTxn> entries(int64_t segment_base) const;
  // The log cleaner's swap (its file is already in place): the entries of
  // `old_bases` become `entries` under `new_base`; files of the other old
  // bases are unlinked.
  void replace_segments(const std::vector<int64_t>& old_bases, int64_t new_base, std::vector<AbortedTxn> entries);

 private:
  const std::string& dir_;  // the Log's
  mutable std::mutex mu_;
  std::map<int64_t, std::vector<AbortedTxn>> by_segment_;
};

}  // namespace skiff::storage
