// LogDeadLetterQueue (server/share_dead_letters.h) over a real LogManager in a
// temp dir: Kafka's DLQ topic checks and messages, auto-creation, the record
// layout (headers, key/value copied from the source log, header-only without
// copy), the destination partition, and enqueue's worker calling `done`.
#include "server/share_dead_letters.h"

#include <catch2/catch.hpp>
#include <future>
#include <map>
#include <memory>

#include "log/batch_builder.h"
#include "log/record_batch.h"
#include "tests/support/temp_dir.h"

namespace skiff::server {
namespace {

struct Record {
  std::optional<std::string> key, value;
  int64_t timestamp = 0;
  std::map<std::string, std::string> headers;
};

struct Env {
  test::TempDir dir{"skiff-dlq"};
  std::unique_ptr<storage::LogManager> logs;
  std::map<std::string, std::string> topics;  // group -> DLQ topic
  bool copy = false;
  DeadLetterSettings settings;
  Uuid source_id;
  Env() {
    storage::LogManagerConfig c;
    c.log_dirs = {dir.path() / "logs"};
    logs = std::make_unique<storage::LogManager>(c);
    settings.share_version_has_dlq = [] { return true; };
    settings.group_topic = [this](const std::string& g) { return topics.count(g) ? topics[g] : std::string(); };
    settings.group_copy_record = [this](const std::string&) { return copy; };
    settings.wall_clock_ms = [] { return int64_t{1234}; };
    source_id = logs->create_topic("src", 4).value().topic_id;
    auto log = logs->get_log("src", 1);
    for (int i = 0; i < 4; ++i) {
      storage::BatchBuilder b;
      b.add("k" + std::to_string(i), "v" + std::to_string(i), 1000);
      auto bytes = b.build();
      REQUIRE(log->append(bytes, 0, 1000));
    }
  }
  share::DeadLetterRecords range(int64_t first, int64_t last, const char* cause = share::kDlqClientReject) {
    return {"g", source_id, 1, first, last, 2, cause};
  }
  std::vector<Record> read(const std::string& topic, int32_t partition) {
    std::vector<Record> out;
    auto log = logs->get_log(topic, partition);
    REQUIRE(log);
    auto bytes = log->read(storage::Offset(0), 1 << 20).value().slice.read_all();
    storage::BatchIterator batches{std::span<uint8_t>(bytes)};
    storage::RecordBatchView b;
    while (batches.next(b)) {
      CHECK(b.producer_id() == -1);
      storage::RecordIterator it(b);
      storage::RecordView r;
      while (it.next(r)) {
        Record rec;
        auto text = [](auto s) { return std::string(reinterpret_cast<const char*>(s.data()), s.size()); };
        if (r.key) rec.key = text(*r.key);
        if (r.value) rec.value = text(*r.value);
        rec.timestamp = r.timestamp(b);
        storage::HeaderIterator h(r);
        storage::RecordHeaderView hv;
        while (h.next(hv)) rec.headers[text(hv.key)] = hv.value ? text(*hv.value) : "<null>";
        out.push_back(std::move(rec));
      }
    }
    return out;
  }
};

TEST_CASE("DLQ records: Kafka's headers, key and value copied, to partition source % partitions") {
  Env env;
  REQUIRE(env.logs->create_topic("dlq.a", 1, {{"errors.deadletterqueue.group.enable", "true"}}));
  env.topics["g"] = "dlq.a";
  env.copy = true;
  LogDeadLetterQueue q(*env.logs, env.settings);
  CHECK(q.enabled("g"));
  CHECK_FALSE(q.enabled("other"));
  REQUIRE(q.write(env.range(1, 2)) == std::nullopt);
  auto got = env.read("dlq.a", 0);
  REQUIRE(got.size() == 2);
  CHECK(got[0].key == "k1");
  CHECK(got[0].value == "v1");
  CHECK(got[0].timestamp == 1234);
  CHECK(got[0].headers == std::map<std::string, std::string>{{"__dlq.errors.topic", "src"},
                                                             {"__dlq.errors.partition", "1"},
                                                             {"__dlq.errors.offset", "1"},
                                                             {"__dlq.errors.group", "g"},
                                                             {"__dlq.errors.delivery.count", "2"},
                                                             {"__dlq.errors.message", "Offset rejected by client."}});
  CHECK(got[1].headers["__dlq.errors.offset"] == "2");
}

TEST_CASE("without copy, and for records gone from the log, DLQ records carry headers only") {
  Env env;
  REQUIRE(env.logs->create_topic("dlq.b", 3, {{"errors.deadletterqueue.group.enable", "true"}}));
  env.topics["g"] = "dlq.b";
  LogDeadLetterQueue q(*env.logs, env.settings);
  REQUIRE(q.write(env.range(0, 0, share::kDlqDeliveryCountExceeded)) == std::nullopt);
  auto got = env.read("dlq.b", 1);
  REQUIRE(got.size() == 1);
  CHECK_FALSE(got[0].key.has_value());
  CHECK_FALSE(got[0].value.has_value());
  CHECK(got[0].headers["__dlq.errors.message"] == "Offset delivery count exceeded the threshold.");
  env.copy = true;
  REQUIRE(q.write(env.range(7, 7)) == std::nullopt);  // past the log end
  got = env.read("dlq.b", 1);
  REQUIRE(got.size() == 2);
  CHECK_FALSE(got[1].value.has_value());
}

TEST_CASE("Kafka's DLQ topic checks: unset, __, not enabled, missing without auto-create, prefix") {
  Env env;
  LogDeadLetterQueue q(*env.logs, env.settings);
  CHECK(q.write(env.range(0, 0)) == "Configured DLQ topic name in share group: g is empty.");
  env.topics["g"] = "__x";
  CHECK(q.write(env.range(0, 0)) == "Configured DLQ topic name in share group: g cannot start with __, topic: __x.");
  REQUIRE(env.logs->create_topic("dlq.plain", 1));
  env.topics["g"] = "dlq.plain";
  CHECK(q.write(env.range(0, 0)) == "DLQ is not enabled on configured DLQ topic for share group: g, topic: dlq.plain.");
  CHECK(env.read("dlq.plain", 0).empty());
  env.topics["g"] = "dlq.missing";
  CHECK(q.write(env.range(0, 0)) ==
        "DLQ topic does not exist and auto create is disabled on cluster for share group: g, topic: dlq.missing.");
  CHECK_FALSE(env.logs->topic("dlq.missing"));
  REQUIRE(env.logs->create_topic("other", 1, {{"errors.deadletterqueue.group.enable", "true"}}));
  env.topics["g"] = "other";
  CHECK(q.write(env.range(0, 0)) ==
        "Configured DLQ topic name does not comply with the DLQ topic prefix in share "
        "group: g, topic: other, prefix: dlq..");
}

TEST_CASE("auto-create makes the DLQ topic with the enable flag and CreateTime") {
  Env env;
  env.settings.auto_create_topics = true;
  env.settings.num_partitions = 2;
  env.topics["g"] = "dlq.auto";
  LogDeadLetterQueue q(*env.logs, env.settings);
  REQUIRE(q.write(env.range(3, 3)) == std::nullopt);
  auto t = env.logs->topic("dlq.auto");
  REQUIRE(t);
  CHECK(t->partitions == 2);
  CHECK(t->overrides["errors.deadletterqueue.group.enable"] == "true");
  CHECK(t->overrides["message.timestamp.type"] == "CreateTime");
  CHECK(env.read("dlq.auto", 1).size() == 1);
}

TEST_CASE("enqueue writes on the worker and calls done, in order, and at share.version 1 the DLQ is off") {
  Env env;
  REQUIRE(env.logs->create_topic("dlq.q", 1, {{"errors.deadletterqueue.group.enable", "true"}}));
  env.topics["g"] = "dlq.q";
  LogDeadLetterQueue q(*env.logs, env.settings);
  q.start();
  std::promise<void> second;
  q.enqueue(env.range(0, 0), [] {});
  q.enqueue(env.range(2, 2), [&second] { second.set_value(); });
  second.get_future().wait();
  q.stop();
  auto got = env.read("dlq.q", 0);
  REQUIRE(got.size() == 2);
  CHECK(got[0].headers["__dlq.errors.offset"] == "0");
  CHECK(got[1].headers["__dlq.errors.offset"] == "2");
  bool done = false;
  q.enqueue(env.range(1, 1), [&done] { done = true; });  // stopped: done at once
  CHECK(done);
  env.settings.share_version_has_dlq = [] { return false; };
  LogDeadLetterQueue off(*env.logs, env.settings);
  CHECK_FALSE(off.enabled("g"));
}

}  // namespace
}  // namespace skiff::server
