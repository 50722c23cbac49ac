// RemoteLogMetadataManager over a real LogManager: writes are durable and
// replayed after a restart into the same state, a torn last write is cut by
// the log's recovery and the rest replays, refused writes write nothing, a
// record that fails its transition on replay is skipped, concurrent writers.
#include "remote/metadata/metadata_manager.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "log/batch_builder.h"
#include "log/log_manager.h"
#include "tests/remote/metadata_fixture.h"

using namespace skiff;
using namespace skiff::remote;
namespace fs = std::filesystem;
using namespace skiff::remote::rlmm_test;

TEST_CASE("rlmm: writes are replayed after a restart into the same state", "[remote][metadata]") {
  Broker b;
  CHECK(b.rlmm->metadata_partitions() == 3);
  write_states(*b.rlmm);
  CHECK(summary(*b.rlmm, user_tp()) == kStates);
  b.restart();
  CHECK(summary(*b.rlmm, user_tp()) == kStates);
  CHECK(b.rlmm->replay_stats().records == 11);
  CHECK(b.rlmm->replay_stats().skipped == 0);
  CHECK(b.rlmm->segment_for_offset(user_tp(), 150)->start_offset == 100);
  CHECK_FALSE(b.rlmm->segment_for_offset(user_tp(), 50));   // deleted
  CHECK_FALSE(b.rlmm->segment_for_offset(user_tp(), 250));  // being deleted
  CHECK_FALSE(b.rlmm->segment_for_offset(user_tp(), 350));  // still copying
  CHECK(b.rlmm->highest_offset(user_tp()) == 299);
  CHECK(b.rlmm->partition_delete_state(user_tp(2)) == PartitionDeleteState::kMarked);
  CHECK(b.rlmm->partitions().size() == 2);
  // The topic is Kafka's: cleanup.policy=delete, retention.ms=-1; records keyed null.
  auto info = b.logs->topic(kRemoteLogMetadataTopic);
  REQUIRE(info);
  CHECK(info->overrides.at("cleanup.policy") == "delete");
  CHECK(info->overrides.at("retention.ms") == "-1");
  auto log = b.logs->get_log(kRemoteLogMetadataTopic, metadata_partition(user_tp(), 3));
  REQUIRE(log);
  CHECK(log->log_end_offset().value == 10);  // user_tp()'s records, one partition, in order
}

TEST_CASE("rlmm: refused writes say why and write nothing", "[remote][metadata]") {
  Broker b;
  const auto a = user_seg(user_tp(), 1, 0, 99);
  auto r = b.rlmm->update_segment(a.id, SegmentState::kCopyFinished, 1);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == storage::LogErrc::kUnknownTopicOrPartition);
  CHECK_THAT(r.error().message, Catch::Contains("no remote log segment metadata"));
  auto finished = a;
  finished.state = SegmentState::kCopyFinished;
  CHECK(b.rlmm->add_segment(finished).error().code == storage::LogErrc::kInvalidRequest);
  ok(b.rlmm->add_segment(a));
  r = b.rlmm->update_segment(a.id, SegmentState::kDeleteFinished, 1);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == storage::LogErrc::kInvalidRequest);
  CHECK_THAT(r.error().message,
             Catch::Contains("invalid transition from COPY_SEGMENT_STARTED to DELETE_SEGMENT_FINISHED"));
  CHECK_FALSE(b.rlmm->put_partition_delete(user_tp(), PartitionDeleteState::kFinished, 1));
  b.restart();
  CHECK(b.rlmm->replay_stats().records == 1);  // only the add
  CHECK(summary(*b.rlmm, user_tp()) == std::vector<std::string>{"0-99:COPY_SEGMENT_STARTED"});
}

TEST_CASE("rlmm: a torn last write is cut by recovery and the rest replays", "[remote][metadata]") {
  Broker b;
  write_states(*b.rlmm);
  const auto d = user_seg(user_tp(), 4, 300, 399);
  ok(b.rlmm->update_segment(d.id, SegmentState::kCopyFinished, 10));  // the write the crash tears
  b.stop();
  // A crash: no clean-shutdown marker, the last batch cut short.
  fs::remove(b.dir.path() / "logs" / ".kafka_cleanshutdown");
  fs::path last;
  for (const auto& e : fs::directory_iterator(b.partition_dir(metadata_partition(user_tp(), 3))))
    if (e.path().extension() == ".log") last = std::max(last, e.path());
  REQUIRE_FALSE(last.empty());
  fs::resize_file(last, fs::file_size(last) - 10);
  b.restart();
  CHECK(summary(*b.rlmm, user_tp()) == kStates);  // the update is gone, everything before it is there
  CHECK(b.rlmm->replay_stats().skipped == 0);
  // And writes go on after the cut.
  ok(b.rlmm->update_segment(d.id, SegmentState::kCopyFinished, 11));
  b.restart();
  CHECK(b.rlmm->segment_for_offset(user_tp(), 350)->start_offset == 300);
}

TEST_CASE("rlmm: records that fail on replay are logged and skipped", "[remote][metadata]") {
  Broker b;
  const auto a = user_seg(user_tp(), 1, 0, 99);
  ok(b.rlmm->add_segment(a));
  const int32_t p = metadata_partition(user_tp(), 3);
  auto append = [&](std::optional<std::vector<uint8_t>> value) {
    storage::BatchBuilder builder;
    std::optional<std::string_view> v;
    if (value) v = std::string_view(reinterpret_cast<const char*>(value->data()), value->size());
    builder.add(std::nullopt, v, 1);
    auto batch = builder.build();
    REQUIRE(b.logs->get_log(kRemoteLogMetadataTopic, p)->append(std::span<uint8_t>(batch), 0, 1));
  };
  // What another writer could have left: a transition Kafka drops, garbage, a null value.
  append(encode_metadata_record(SegmentUpdate{a.id, 1, std::nullopt, SegmentState::kDeleteFinished, 1}));
  append(std::vector<uint8_t>{1, 0, 0, 0xff});
  append(std::nullopt);
  append(encode_metadata_record(SegmentUpdate{a.id, 1, std::nullopt, SegmentState::kCopyFinished, 1}));
  b.restart();
  CHECK(b.rlmm->replay_stats().skipped == 3);
  CHECK(b.rlmm->replay_stats().records == 2);
  CHECK(summary(*b.rlmm, user_tp()) == std::vector<std::string>{"0-99:COPY_SEGMENT_FINISHED"});
}

TEST_CASE("rlmm: concurrent writers and readers", "[remote][metadata]") {
  Broker b;
  constexpr int kThreads = 4, kEach = 20;
  std::vector<std::thread> threads;
  threads.reserve(kThreads + 1);
  std::atomic<bool> failed{false};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&b, &failed, t] {
      const auto p = user_tp(static_cast<uint8_t>(10 + t));
      for (int64_t i = 0; i < kEach; ++i) {
        auto s = user_seg(p, static_cast<uint8_t>(i + 1), i * 100, i * 100 + 99);
        if (!b.rlmm->add_segment(s) || !b.rlmm->update_segment(s.id, SegmentState::kCopyFinished, i)) failed = true;
      }
    });
  threads.emplace_back([&b] {
    for (int i = 0; i < 200; ++i) (void)b.rlmm->segment_for_offset(user_tp(10), 150);
  });
  for (auto& t : threads) t.join();
  CHECK_FALSE(failed);
  b.restart();
  for (int t = 0; t < kThreads; ++t) {
    const auto p = user_tp(static_cast<uint8_t>(10 + t));
    CHECK(b.rlmm->segments(p).size() == kEach);
    CHECK(b.rlmm->highest_offset(p) == kEach * 100 - 1);
  }
}

TEST_CASE("rlmm: the topic takes the configured retention, and an existing topic keeps its partition count",
          "[remote][metadata]") {
  Broker b;
  ok(b.rlmm->add_segment(user_seg(user_tp(), 1, 0, 99)));
  b.config.partitions = 5;  // as in Kafka, the existing topic's count wins
  b.config.retention_ms = 86400000;
  b.restart();
  CHECK(b.rlmm->metadata_partitions() == 3);
  CHECK(b.rlmm->segments(user_tp()).size() == 1);
  ok(b.rlmm->update_segment(user_seg(user_tp(), 1, 0, 99).id, SegmentState::kCopyFinished, 1));
  CHECK(b.logs->get_log(kRemoteLogMetadataTopic, metadata_partition(user_tp(), 3))->log_end_offset().value == 2);
  // A new topic takes the configuration.
  b.stop();
  std::filesystem::remove_all(b.dir.path() / "logs");
  b.restart();
  CHECK(b.rlmm->metadata_partitions() == 5);
  CHECK(b.logs->topic(kRemoteLogMetadataTopic)->overrides.at("retention.ms") == "86400000");
  CHECK(b.rlmm->partitions().empty());
}

TEST_CASE("rlmm: writes before start() are refused", "[remote][metadata]") {
  skiff::test::TempDir dir{"skiff-rlmm"};
  storage::LogManagerConfig c;
  c.log_dirs = {dir.path() / "logs"};
  storage::LogManager logs(c);
  RemoteLogMetadataManager m(logs, MetadataTopicConfig{});
  auto r = m.add_segment(user_seg(user_tp(), 1, 0, 99));
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("not started"));
  CHECK_THROWS_AS(RemoteLogMetadataManager(logs, MetadataTopicConfig{0, -1, 0, 0}), std::invalid_argument);
  logs.shutdown();
}
