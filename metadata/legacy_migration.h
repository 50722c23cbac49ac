// The one-time move of a data dir written before the MetadataStore: each
// namespace's legacy file in the first log dir (namespaces.h names them;
// formats below) is read with its old reader, which lives only here, written
// to the store as that namespace's version-1 records, and removed.
//
// Per namespace, idempotent under kill -9 at any point:
//   1. "<legacy>.tmp" (a write of the old broker cut short) is removed;
//   2. no legacy file: nothing to do;
//   3. the store has no file for the namespace: the legacy file is decoded
//      and written to the store durably (MetadataStore's temp+rename);
//   4. the legacy file is removed and the log dir fsynced.
// A crash before 3 completes leaves the legacy file alone (a leftover temp
// file of the store is removed on open); after it, both exist and the
// store's file wins, since it was complete before the legacy one was removed.
// One info line per migrated file. A legacy file that does not decode is an
// Error naming it: the broker refuses to start, as it did before.
//
// Legacy formats (all written whole, atomically):
//   skiff-acls, skiff-scram-credentials, skiff-client-quotas,
//   skiff-client-metrics: magic (8 bytes: SKIFFACL, SKIFFSCR, SKIFFCQS,
//     SKIFFCMS) | version int16 = 1 | count int32 | records | CRC-32C; the
//     records are the owners' version-1 records, unframed.
//   skiff-group-configs: "skiff-group-configs v1\n", then
//     "<group>\t<key>\t<value>\n" with % TAB LF CR percent-escaped.
//   skiff-dynamic-broker-config: "skiff-dynamic-broker-config v1\n", then
//     "<broker|default>\t<key>\t<value>\n".
//   skiff-producer-ids: "version: 0\nnext.block.start: <n>\n".
//
// Threads: startup only, before any owner reads the store.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metadata/metadata_store.h"

namespace skiff::metadata {

// Migrates every legacy file found in `log_dir`; returns how many it moved.
Result<int> migrate_legacy_files(MetadataStore& store, const std::filesystem::path& log_dir);

// The store of the first log dir, opened and migrated: what the broker
// calls at startup.
Result<std::unique_ptr<MetadataStore>> open_metadata_store(const std::filesystem::path& log_dir);

// A legacy file's bytes as the namespace's version-1 records; throws
// std::runtime_error saying what is wrong (tests).
std::vector<std::string> legacy_records(const NamespaceDef& def, std::string_view bytes);

}  // namespace skiff::metadata
