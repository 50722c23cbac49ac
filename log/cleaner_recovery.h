// Startup half of the cleaner's swap protocol (Kafka's LogLoader handling of
// .cleaned and .swap files), run on a partition directory before its
// segments are opened.
//
// Files of the protocol (Log::swap_in_cleaned), for a group whose first old
// segment has base B:
//   <B>.log.cleaned  the new segment being written (not yet valid)
//   <B>.log.swap     the new segment, complete and fsynced: the commit point
//   <B>.log          after the swap; its indexes are rebuilt by recovery
//   <B>.txnindex.cleaned / .swap  the group's new .txnindex (the aborts whose
//                    marker the cleaner kept); renamed .swap just before the
//                    commit and to <B>.txnindex just before <B>.log
// Recovery: every *.cleaned file is deleted (the old segments are intact). For
// each <B>.log.swap, with N = the offset after its last batch: old segments
// (.log, .index, .timeindex) with base in [B, N) are deleted (old B too, even
// when N == B), then <B>.log.swap is renamed <B>.log, and the directory is
// fsynced; a <B>.txnindex.swap is renamed <B>.txnindex first (one without
// a <B>.log.swap is deleted; other old .txnindex files of the group become
// orphans that Log::load deletes). Old segments of the group past N held only records the cleaner
// removes, and the swap deletes them BEFORE the commit, so the result is the
// new group, whole. Index files named *.swap (never written by us) go.
// Thread: called by Log::load on the loading thread, before any other use.
#pragma once

#include <cstdint>
#include <filesystem>

namespace skiff::storage {

// Offset after the last whole batch of a .log file (`base` if it has none).
int64_t segment_file_next_offset(const std::filesystem::path& log_file, int64_t base);
// Returns the number of swaps completed. Throws std::system_error on I/O errors.
int finish_interrupted_cleaning(const std::filesystem::path& dir);

}  // namespace skiff::storage
