// The local log's side of tiered storage (log.h's tiered-storage section), as
// Kafka 4.4's UnifiedLog with remote storage: the remote config keys, a local
// log start apart from the log start, local retention that deletes only
// uploaded segments, reads below the local start, the copy candidates with
// their files, producer snapshots and leader-epoch checkpoint, and restarts.
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "common/byte_order.h"
#include "log/batch_builder.h"
#include "test_util.h"

using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace {

// Remote storage on, total retention forever, `local_ms` of local retention.
std::shared_ptr<const LogConfig> tiered(int64_t local_ms = 10000, bool copy_disable = false) {
  return config_with([&](LogConfig& c) {
    c.remote_storage_enable = true;
    c.remote_log_copy_disable = copy_disable;
    c.retention_ms = -1;
    c.local_retention_ms = local_ms;
  });
}

std::shared_ptr<Log> reopen(const fs::path& dir, std::shared_ptr<const LogConfig> cfg, int64_t log_start) {
  LogLoadParams p;
  p.topic = "t";
  p.clean_shutdown = true;
  p.log_start_offset = log_start;
  return Log::open(dir, p, std::move(cfg));
}

// Three closed segments of two records each (0-1, 2-3, 4-5, timestamps
// 1000) and an empty active one at 6, flushed.
void three_closed_segments(Log& log) {
  for (int i = 0; i < 3; ++i) {
    REQUIRE(append_tmp(log, make_test_batch(2, 100, 1000), 0, 2000).has_value());
    REQUIRE(log.roll(2000).has_value());
  }
  REQUIRE(log.flush().has_value());
}

LogErrc read_outcome(const Log& log, int64_t offset) { return outcome(log.read(Offset(offset), 1 << 20)); }

}  // namespace

TEST_CASE("the remote storage topic keys and their broker defaults", "[log][config][tiered]") {
  LogConfig c;
  CHECK_FALSE(c.remote_storage_enable);
  CHECK(c.local_retention_ms == -2);
  CHECK(c.local_retention_bytes == -2);
  c.retention_ms = 5000;
  c.retention_bytes = 7000;
  CHECK(c.effective_local_retention_ms() == 5000);  // -2: the total retention
  CHECK(c.effective_local_retention_bytes() == 7000);
  REQUIRE(c.set("remote.storage.enable", "true"));
  REQUIRE(c.set("local.retention.ms", "1000"));
  REQUIRE(c.set("local.retention.bytes", "-1"));
  REQUIRE(c.set("remote.log.delete.on.disable", "TRUE"));
  CHECK(c.remote_storage_enable);
  CHECK(c.effective_local_retention_ms() == 1000);
  CHECK(c.effective_local_retention_bytes() == -1);
  CHECK(c.remote_log_delete_on_disable);
  CHECK(c.tiering_active());
  REQUIRE(c.set("remote.log.copy.disable", "true"));
  CHECK_FALSE(c.tiering_active());                 // Kafka's remoteLogEnabledAndRemoteCopyEnabled
  CHECK_FALSE(c.set("local.retention.ms", "-3"));  // the table's minimum, -2
  CHECK(c.local_retention_ms == 1000);
  auto values = c.effective_values();
  CHECK(values.at("local.retention.ms") == "1000");
  CHECK(values.at("remote.storage.enable") == "true");
  CHECK(values.at("remote.log.copy.disable") == "true");

  auto b = LogConfig::from_broker_properties({{"log.local.retention.ms", "60000"}, {"log.local.retention.bytes", "5"}});
  REQUIRE(b);
  CHECK(b->local_retention_ms == 60000);
  CHECK(b->local_retention_bytes == 5);
  CHECK(b->effective_values().at("local.retention.bytes") == "5");
  CHECK_FALSE(LogConfig::from_broker_properties({{"log.local.retention.ms", "-7"}}));
}

TEST_CASE("local retention deletes only uploaded segments and moves only the local start", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered());
  three_closed_segments(*log);
  CHECK(log->highest_offset_in_remote() == -1);
  CHECK(log->delete_old_segments(50000) == 0);  // past local retention, but nothing uploaded
  CHECK(log->segment_count() == 4);

  REQUIRE(log->update_highest_offset_in_remote(1));  // the first segment is remote
  CHECK(log->delete_old_segments(50000) == 1);
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{2, 4, 6});
  CHECK(log->log_start_offset().value == 0);
  CHECK(log->local_log_start_offset().value == 2);
  CHECK(read_outcome(*log, 0) == LogErrc::kOffsetMovedToTieredStorage);
  CHECK(read_outcome(*log, 1) == LogErrc::kOffsetMovedToTieredStorage);
  CHECK(read_outcome(*log, 2) == LogErrc::kNone);
  CHECK(read_outcome(*log, -1) == LogErrc::kOffsetOutOfRange);
  CHECK(read_outcome(*log, 7) == LogErrc::kOffsetOutOfRange);
  CHECK(log->read(Offset(2), 1 << 20)->log_start_offset.value == 0);  // the fetch answer's log start

  REQUIRE(log->update_highest_offset_in_remote(4));  // covers 2-3, not all of 4-5
  REQUIRE(log->update_highest_offset_in_remote(3));  // never lowered
  CHECK(log->highest_offset_in_remote() == 4);
  CHECK(log->delete_old_segments(50000) == 1);
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{4, 6});
  CHECK(outcome(log->update_highest_offset_in_remote(6)) == LogErrc::kOffsetOutOfRange);  // at the end

  REQUIRE(log->update_highest_offset_in_remote(5));
  CHECK(log->delete_old_segments(5000) == 0);  // within local.retention.ms
  CHECK(log->delete_old_segments(50000) == 1);
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{6});
  CHECK(log->log_start_offset().value == 0);
  CHECK(log->local_log_start_offset().value == 6);
  CHECK(log->log_end_offset().value == 6);
}

TEST_CASE("local retention rolls a breaching active segment so it can be uploaded", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered());
  REQUIRE(append_tmp(*log, make_test_batch(2, 100, 1000), 0, 2000).has_value());
  CHECK(log->delete_old_segments(50000) == 0);  // the active segment is never uploaded, so never deleted
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{0, 2});  // but rolled (Kafka: shouldRoll)
  REQUIRE(log->flush().has_value());
  auto c = log->copy_candidates(0);
  REQUIRE(c.size() == 1);
  REQUIRE(log->update_highest_offset_in_remote(c[0].last_offset));
  CHECK(log->delete_old_segments(50000) == 1);
  CHECK(log->local_log_start_offset().value == 2);
  CHECK(log->log_start_offset().value == 0);
}

TEST_CASE("local.retention.bytes (-2: retention.bytes) under tiering", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered(-1));
  three_closed_segments(*log);
  const auto seg = static_cast<int64_t>(log->size_in_bytes() / 3);
  REQUIRE(log->update_highest_offset_in_remote(5));
  log->set_config(config_with([&](LogConfig& c) {
    c.remote_storage_enable = true;
    c.retention_ms = -1;
    c.retention_bytes = seg;  // local.retention.bytes -2: this
  }));
  CHECK(log->delete_old_segments(3000) == 2);  // one segment's bytes stay
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{4, 6});
  CHECK(log->log_start_offset().value == 0);
}

TEST_CASE("remote.log.copy.disable: retention.ms applies locally and moves the log start", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered(-2, /*copy_disable=*/true));
  log->set_config(config_with([](LogConfig& c) {
    c.remote_storage_enable = true;
    c.remote_log_copy_disable = true;
    c.retention_ms = 10000;
    c.local_retention_ms = 1;  // not used: copying is off (Kafka's localRetentionMs(config, false))
  }));
  three_closed_segments(*log);
  CHECK(log->delete_old_segments(5000) == 0);
  CHECK(log->delete_old_segments(50000) == 3);  // nothing uploaded, deleted anyway
  CHECK(log->log_start_offset().value == 6);
  CHECK(log->local_log_start_offset().value == 6);
}

TEST_CASE("without remote storage the local start is the log start", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with([](LogConfig& c) { c.retention_ms = 10000; }));
  three_closed_segments(*log);
  CHECK(log->delete_old_segments(50000) == 3);
  CHECK(log->log_start_offset().value == 6);
  CHECK(log->local_log_start_offset().value == 6);
  CHECK(read_outcome(*log, 2) == LogErrc::kOffsetOutOfRange);
  REQUIRE(log->maybe_increment_log_start_offset(Offset(6)));
  CHECK(log->local_log_start_offset().value == 6);
}

TEST_CASE("the remote manager's log start moves delete nothing local below the local start", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered());
  three_closed_segments(*log);
  REQUIRE(log->update_highest_offset_in_remote(3));
  REQUIRE(log->delete_old_segments(50000) == 2);
  REQUIRE(log->local_log_start_offset().value == 4);

  REQUIRE(log->maybe_increment_log_start_offset(Offset(2)));  // remote retention dropped 0-1
  CHECK(log->log_start_offset().value == 2);
  CHECK(log->local_log_start_offset().value == 4);
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{4, 6});
  CHECK(read_outcome(*log, 1) == LogErrc::kOffsetOutOfRange);
  CHECK(read_outcome(*log, 2) == LogErrc::kOffsetMovedToTieredStorage);
  CHECK(read_outcome(*log, 4) == LogErrc::kNone);

  REQUIRE(log->maybe_increment_log_start_offset(Offset(5)));  // DeleteRecords past the local start
  CHECK(log->log_start_offset().value == 5);
  CHECK(log->local_log_start_offset().value == 5);
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{4, 6});  // 4-5 still holds 5
  REQUIRE(log->maybe_increment_log_start_offset(Offset(6)));
  CHECK(log->segment_base_offsets() == std::vector<int64_t>{6});
  CHECK(log->local_log_start_offset().value == 6);
}

TEST_CASE("a restart keeps the log start below the local start with remote storage on", "[log][tiered]") {
  TempDir dir;
  {
    auto log = open_log(dir.path(), tiered());
    three_closed_segments(*log);
    REQUIRE(log->update_highest_offset_in_remote(3));
    REQUIRE(log->delete_old_segments(50000) == 2);
    log->close();
  }
  auto log = reopen(dir.path(), tiered(), 1);  // log-start-offset-checkpoint said 1
  CHECK(log->log_start_offset().value == 1);
  CHECK(log->local_log_start_offset().value == 4);
  CHECK(log->highest_offset_in_remote() == -1);  // the manager restores it
  CHECK(log->delete_old_segments(50000) == 0);   // and until then nothing local goes
  CHECK(read_outcome(*log, 1) == LogErrc::kOffsetMovedToTieredStorage);
  CHECK(read_outcome(*log, 0) == LogErrc::kOffsetOutOfRange);
  CHECK(read_all_batches(*log, 4).size() == 1);
  log->close();
  // Without remote storage the start is clamped up to the local data, as before.
  log = reopen(dir.path(), config_with(), 1);
  CHECK(log->log_start_offset().value == 4);
  CHECK(log->local_log_start_offset().value == 4);
}

TEST_CASE("ListOffsets by timestamp answers from the local data", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered());
  for (int64_t ts : {1000, 2000, 3000}) {
    REQUIRE(append_tmp(*log, make_test_batch(2, 100, ts), 0, 4000).has_value());
    REQUIRE(log->roll(4000).has_value());
  }
  REQUIRE(log->flush().has_value());
  REQUIRE(log->update_highest_offset_in_remote(1));
  log->set_config(tiered(100000));
  REQUIRE(log->delete_old_segments(102000) == 1);  // 0-1 (time 1000) only
  auto before = log->offset_for_timestamp(500);    // older than every local record
  CHECK(before.offset.value == 2);                 // the first local one (the caller asks remote first)
  CHECK(before.timestamp == 2000);
  CHECK(log->offset_for_timestamp(2500).offset.value == 4);
  CHECK(log->max_timestamp_offset().timestamp == 3000);
}

TEST_CASE("copy candidates: closed, flushed, below the LSO, with their files", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered());
  REQUIRE(append_tmp(*log, make_test_batch(2, 100, 1000), 0, 2000).has_value());  // 0-1
  REQUIRE(log->roll(2000).has_value());
  REQUIRE(append_tmp(*log, txn_batch(7, 0, 0)).has_value());  // 2-3
  REQUIRE(marker(*log, 7, 0, /*commit=*/false).has_value());  // 4: an abort in this segment
  REQUIRE(log->roll(2000).has_value());
  REQUIRE(append_tmp(*log, txn_batch(8, 0, 0)).has_value());  // 5-6, left open: the LSO stays at 5
  REQUIRE(log->roll(2000).has_value());
  REQUIRE(append_tmp(*log, make_test_batch(2, 100, 1000), 0, 2000).has_value());  // 7-8
  REQUIRE(log->roll(2000).has_value());                                           // active at 9

  CHECK(log->copy_candidates(0).empty());  // nothing flushed yet (recovery point 0)
  REQUIRE(log->flush().has_value());
  auto c = log->copy_candidates(0);
  REQUIRE(c.size() == 2);  // 0-1 and 2-4: 5-6 holds the open transaction
  CHECK(c[0].base_offset == 0);
  CHECK(c[0].last_offset == 1);
  CHECK(c[0].next_base_offset == 2);
  CHECK(c[0].max_timestamp == 1000);
  CHECK(c[0].size_bytes == fs::file_size(c[0].log_file));
  CHECK(c[0].log_file == dir.path() / segment_file_name(0, ".log"));
  CHECK(fs::exists(c[0].offset_index_file));
  CHECK(fs::exists(c[0].time_index_file));
  CHECK_FALSE(c[0].txn_index_file.has_value());
  REQUIRE(c[0].producer_snapshot_file.has_value());
  CHECK(*c[0].producer_snapshot_file == ProducerStateManager::snapshot_path(dir.path(), 2));
  CHECK(c[0].leader_epoch_checkpoint == "0\n1\n0 0\n");  // Kafka's LeaderEpochCheckpointFile text
  CHECK(c[0].segment_leader_epochs == std::vector<LeaderEpochEntry>{{0, 0}});
  CHECK(c[1].base_offset == 2);
  CHECK(c[1].last_offset == 4);
  REQUIRE(c[1].txn_index_file.has_value());
  CHECK(fs::file_size(*c[1].txn_index_file) == kAbortedTxnSize);
  CHECK(c[1].segment_leader_epochs == std::vector<LeaderEpochEntry>{{0, 2}});
  CHECK(c[1].segment.get() != nullptr);

  CHECK(log->copy_candidates(2).size() == 1);                // from the segment holding 2
  CHECK(log->copy_candidates(3).size() == 1);                // and 3
  CHECK(log->copy_candidates(5).empty());                    // the open transaction holds 5-6 back
  REQUIRE(marker(*log, 8, 0, /*commit=*/true).has_value());  // 9, in the active segment
  auto rest = log->copy_candidates(5);
  REQUIRE(rest.size() == 2);  // 5-6 and 7-8, never the active segment
  CHECK(rest[1].base_offset == 7);
  CHECK(rest[1].next_base_offset == 9);
}

TEST_CASE("copy candidate files stay readable when the segment is deleted during an upload", "[log][tiered]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered());
  three_closed_segments(*log);
  auto c = log->copy_candidates(0);
  REQUIRE(c.size() == 3);
  auto files = c[0].open_files();
  REQUIRE(files);
  CHECK(files->log.valid());
  CHECK(files->producer_snapshot.valid());
  CHECK_FALSE(files->txn_index.valid());
  REQUIRE(log->maybe_increment_log_start_offset(Offset(2)));  // deletes segment 0 mid-upload
  CHECK_FALSE(fs::exists(c[0].log_file));
  std::vector<uint8_t> bytes(c[0].size_bytes);
  size_t got = 0;
  REQUIRE(pread_full(files->log.get(), bytes.data(), bytes.size(), 0, &got) == 0);
  CHECK(got == c[0].size_bytes);
  CHECK(skiff::load_be64(bytes.data()) == 0);  // the first batch's base offset
  auto again = c[0].open_files();
  REQUIRE_FALSE(again);
  CHECK(again.error().sys_errno == ENOENT);
}

TEST_CASE("with remote storage each segment keeps its producer snapshot until it goes", "[log][tiered]") {
  TempDir plain_dir, tiered_dir;
  auto plain = open_log(plain_dir.path(), config_with());
  auto log = open_log(tiered_dir.path(), tiered());
  three_closed_segments(*plain);
  three_closed_segments(*log);
  CHECK(ProducerStateManager::list_snapshots(plain_dir.path()) == std::vector<int64_t>{4, 6});  // two newest
  CHECK(ProducerStateManager::list_snapshots(tiered_dir.path()) == std::vector<int64_t>{2, 4, 6});
  REQUIRE(log->update_highest_offset_in_remote(3));
  REQUIRE(log->delete_old_segments(50000) == 2);  // 0-1, 2-3 and their snapshots (at 0: none, 2)
  CHECK(ProducerStateManager::list_snapshots(tiered_dir.path()) == std::vector<int64_t>{4, 6});
  REQUIRE(log->update_highest_offset_in_remote(5));
  REQUIRE(log->delete_old_segments(50000) == 1);  // 4-5: its snapshot (at 4) is one of the two newest, kept
  CHECK(ProducerStateManager::list_snapshots(tiered_dir.path()) == std::vector<int64_t>{4, 6});
}

TEST_CASE("reads racing local retention see data or the tiered answer, never out of range",
          "[log][tiered][concurrency]") {
  TempDir dir;
  auto log = open_log(dir.path(), tiered(0));
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::thread reader([&] {
    while (!done.load()) {
      const int64_t end = log->log_end_offset().value;
      for (int64_t o = 0; o < end; ++o) {
        const LogErrc e = read_outcome(*log, o);
        if (e != LogErrc::kNone && e != LogErrc::kOffsetMovedToTieredStorage) ++bad;
      }
      (void)log->copy_candidates(log->highest_offset_in_remote() + 1);
    }
  });
  for (int i = 0; i < 200; ++i) {
    REQUIRE(append_tmp(*log, make_test_batch(2, 100, 1000), 0, 2000).has_value());
    REQUIRE(log->roll(2000).has_value());
    REQUIRE(log->flush().has_value());
    for (const auto& c : log->copy_candidates(log->highest_offset_in_remote() + 1))
      REQUIRE(log->update_highest_offset_in_remote(c.last_offset));
    (void)log->delete_old_segments(50000);
  }
  done = true;
  reader.join();
  CHECK(bad.load() == 0);
  CHECK(log->log_start_offset().value == 0);
  CHECK(log->local_log_start_offset().value == 400);
}
