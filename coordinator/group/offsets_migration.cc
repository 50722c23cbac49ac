#include "coordinator/group/offsets_migration.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "common/log_escape.h"
#include "coordinator/group/offset_store.h"
#include "coordinator/runtime/coordinator_log.h"
#include "log/file_util.h"

namespace skiff::group {
namespace {

using Offsets = std::vector<std::pair<TopicPartition, OffsetAndMetadata>>;

struct PendingRun {
  int64_t producer_id;
  int16_t epoch;
  Offsets offsets;
};

// The pending offsets of a group with `superseded` as asked, in write order,
// as runs of one producer (each run is one transactional batch).
std::vector<PendingRun> pending_runs(const LoadedGroup& g, bool superseded) {
  std::vector<std::tuple<int64_t, int64_t, TopicPartition, const PendingOffset*>> all;  // order, pid, tp, offset
  for (const auto& [pid, offsets] : g.pending)
    for (const auto& [tp, po] : offsets)
      if (po.superseded == superseded) all.emplace_back(po.order, pid, tp, &po);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::vector<PendingRun> runs;
  for (const auto& [order, pid, tp, po] : all) {
    if (runs.empty() || runs.back().producer_id != pid) runs.push_back({pid, po->producer_epoch, {}});
    runs.back().epoch = std::max(runs.back().epoch, po->producer_epoch);
    runs.back().offsets.push_back({tp, po->offset});
  }
  return runs;
}

void require(const std::optional<FlushPoints>& written, FlushPoints& all, const std::string& what) {
  if (!written) throw std::runtime_error("migration of the offsets file: cannot write " + what);
  all.merge(*written);
}

void write_group_state(const std::string& id, const LoadedGroup& g, OffsetsTopic& topic, FlushPoints& all) {
  if (g.group) require(topic.write_group(*g.group), all, "group " + id);
  auto write_runs = [&](bool superseded) {
    for (const auto& run : pending_runs(g, superseded))
      require(topic.write_pending(id, run.producer_id, run.epoch, run.offsets), all, "pending offsets of " + id);
  };
  write_runs(true);  // a later commit superseded them: before the committed offsets
  if (!g.offsets.empty()) {
    Offsets committed(g.offsets.begin(), g.offsets.end());
    require(topic.write_offsets(id, committed), all, "offsets of " + id);
  }
  write_runs(false);
}

}  // namespace

bool migrate_legacy_offsets(const std::filesystem::path& legacy_file, OffsetsTopic& topic) {
  std::error_code ec;
  if (legacy_file.empty() || !std::filesystem::exists(legacy_file, ec)) return false;
  std::map<std::string, LoadedGroup> legacy;
  {
    OffsetStore reader(legacy_file, legacy);  // replays (and truncates a torn tail), writes nothing
  }
  size_t offsets = 0;
  FlushPoints all;
  if (!legacy.empty()) topic.ensure_created();
  for (const auto& [id, g] : legacy) {
    write_group_state(id, g, topic, all);
    offsets += g.offsets.size();
  }
  if (!topic.flush(all)) throw std::runtime_error("migration of the offsets file: fsync of __consumer_offsets failed");
  auto done = legacy_file;
  done += ".migrated";
  std::filesystem::rename(legacy_file, done);  // throws: the file stays, the next start migrates again
  if (storage::fsync_dir(legacy_file.parent_path()) != 0)
    throw std::runtime_error("migration of the offsets file: fsync of " + legacy_file.parent_path().string());
  coordinator::log().info(
      "migrated {} group(s) with {} committed offset(s) from {} into __consumer_offsets (kept as {})", legacy.size(),
      offsets, escaped(legacy_file.string()), escaped(done.string()));
  return true;
}

}  // namespace skiff::group
