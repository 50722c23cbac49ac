// Migration of the group coordinator's state from the file Skiff kept before
// `__consumer_offsets` existed (`<first log dir>/skiff-consumer-offsets.log`,
// read by the legacy OffsetStore) into the topic, on the first start after
// the upgrade:
//   1. the file is read (its torn tail, if any, dropped as before);
//   2. its whole state is written into the topic — per group the group
//      record, the pending transactional offsets a later commit superseded,
//      the committed offsets, then the other pending offsets, each pending
//      set as a transactional batch of its producer, so that replaying the
//      topic rebuilds exactly the file's state (offsets_replay.h) — and
//      fsynced;
//   3. only then is the file renamed to `<file>.migrated` (and the directory
//      fsynced): the rename is the "migration complete" mark.
// A kill -9 before step 3 leaves the file in place; the next start writes
// the same state again. Every record rewrites a key with the value it
// already has, so the result is the same state, not a duplicate one.
//
// Threads: startup only, before the coordinator serves anything.
#pragma once

#include <filesystem>

#include "coordinator/group/offsets_topic.h"

namespace skiff::group {

// Returns true when a file was migrated. Throws std::runtime_error (the file
// is kept) when the state cannot be written durably.
bool migrate_legacy_offsets(const std::filesystem::path& legacy_file, OffsetsTopic& topic);

}  // namespace skiff::group
