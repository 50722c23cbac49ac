// __transaction_state records: Skiff's encoding against bytes Kafka 4.4's own
// classes produced (transaction_log_vectors.txt, from TxnLogVectors.java),
// and round trips of the coordinator's transits.
#include "coordinator/txn/transaction_log.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "protocol/errors.h"

using namespace skiff::txn;

namespace {

std::vector<uint8_t> unhex(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
  }
  return out;
}

struct Vector {
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;
};

std::map<std::string, Vector> kafka_vectors() {
  std::ifstream in(std::string(SKIFF_SOURCE_DIR) + "/tests/coordinator/txn/transaction_log_vectors.txt");
  REQUIRE(in.good());
  std::map<std::string, Vector> out;
  std::string name, key, value;
  while (in >> name >> key >> value) {
    out[name] = {unhex(key), value == "-" ? std::nullopt : std::optional(unhex(value))};
  }
  REQUIRE(out.size() == 5);
  return out;
}

TxnLogRecord decode(const Vector& v) {
  std::optional<std::span<const uint8_t>> value;
  if (v.value) value = std::span<const uint8_t>(*v.value);
  return decode_txn_log_record(v.key, value);
}

}  // namespace

TEST_CASE("Kafka's __transaction_state records decode and re-encode byte for byte", "[txn][log]") {
  for (const auto& [name, v] : kafka_vectors()) {
    INFO(name);
    const TxnLogRecord rec = decode(v);
    CHECK(encode_txn_log_key(rec.transactional_id) == v.key);
    if (!v.value) {
      CHECK_FALSE(rec.value.has_value());
      continue;
    }
    REQUIRE(rec.value.has_value());
    const auto version = static_cast<int16_t>(((*v.value)[0] << 8) | (*v.value)[1]);
    CHECK(encode_txn_log_value(*rec.value, version) == *v.value);
  }
}

TEST_CASE("Kafka's records carry the fields Kafka set", "[txn][log]") {
  auto vectors = kafka_vectors();
  const TxnLogRecord ongoing = decode(vectors.at("ongoing_v0"));
  CHECK(ongoing.transactional_id == "app-1");
  REQUIRE(ongoing.value);
  CHECK(ongoing.value->state == TxnState::kOngoing);
  CHECK(ongoing.value->producer_id == 1000);
  CHECK(ongoing.value->producer_epoch == 3);
  CHECK(ongoing.value->txn_timeout_ms == 60000);
  CHECK(ongoing.value->txn_start_ms == 1700000000100);
  CHECK(ongoing.value->txn_last_update_ms == 1700000000500);
  CHECK(ongoing.value->partitions ==
        std::set<TopicPartition>{{"orders", 0}, {"orders", 2}, {"__consumer_offsets", 17}});
  CHECK(ongoing.value->client_transaction_version == 0);

  const TxnLogRecord tagged = decode(vectors.at("complete_abort_v1_tags"));
  REQUIRE(tagged.value);
  CHECK(tagged.value->state == TxnState::kCompleteAbort);
  CHECK(tagged.value->previous_producer_id == 3000);
  CHECK(tagged.value->next_producer_id == 3002);
  CHECK(tagged.value->next_producer_epoch == 1);
  CHECK(tagged.value->client_transaction_version == 2);

  const TxnLogRecord utf8 = decode(vectors.at("prepare_commit_v1"));
  CHECK(utf8.transactional_id == "tx\xc3\xa9-2");
  CHECK(decode(vectors.at("tombstone")).transactional_id == "gone");
}

TEST_CASE("transits round-trip through the record format", "[txn][log]") {
  TxnTransit t;
  t.producer_id = 42;
  t.producer_epoch = 7;
  t.txn_timeout_ms = 30000;
  t.state = TxnState::kPrepareAbort;
  t.partitions = {{"a", 0}, {"a", 3}, {"b", 1}};
  t.txn_start_ms = 10;
  t.txn_last_update_ms = 20;
  SECTION("version 0 (transaction version 0/1)") {
    CHECK(txn_log_value_version(0) == 0);
    CHECK(txn_log_value_version(1) == 0);
    const auto v = encode_txn_log_value(t, 0);
    CHECK(v[0] == 0);
    CHECK(v[1] == 0);
    CHECK(decode_txn_log_record(encode_txn_log_key("x"), std::span<const uint8_t>(v)).value == t);
  }
  SECTION("version 1 (transaction version 2) keeps the tagged producer ids") {
    CHECK(txn_log_value_version(2) == 1);
    t.client_transaction_version = 2;
    t.previous_producer_id = 41;
    t.next_producer_id = 43;
    const auto v = encode_txn_log_value(t, 1);
    CHECK(v[1] == 1);
    CHECK(decode_txn_log_record(encode_txn_log_key("x"), std::span<const uint8_t>(v)).value == t);
  }
  SECTION("Empty writes a null partition list, as Kafka does") {
    t.state = TxnState::kEmpty;
    t.partitions.clear();
    const auto v = encode_txn_log_value(t, 0);
    // int16 version, int64 id, int16 epoch, int32 timeout, int8 status, then the int32 array length.
    const size_t at = 2 + 8 + 2 + 4 + 1;
    CHECK(std::vector<uint8_t>(v.begin() + at, v.begin() + at + 4) == std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff});
  }
}

TEST_CASE("corrupt __transaction_state records are rejected, not half-applied", "[txn][log]") {
  using skiff::protocol::DecodeError;
  TxnTransit t;
  t.producer_id = 1;
  t.producer_epoch = 0;
  auto key = encode_txn_log_key("id");
  auto value = encode_txn_log_value(t, 0);
  SECTION("unknown key type (a group coordinator record)") {
    key[1] = 1;
    CHECK_THROWS_AS(decode_txn_log_record(key, std::nullopt), DecodeError);
  }
  SECTION("unknown value version") {
    value[1] = 2;
    CHECK_THROWS_AS(decode_txn_log_record(key, std::span<const uint8_t>(value)), DecodeError);
  }
  SECTION("unknown state byte") {
    value[2 + 8 + 2 + 4] = 9;
    CHECK_THROWS_AS(decode_txn_log_record(key, std::span<const uint8_t>(value)), DecodeError);
  }
  SECTION("truncated value") {
    value.resize(value.size() - 3);
    CHECK_THROWS_AS(decode_txn_log_record(key, std::span<const uint8_t>(value)), DecodeError);
  }
}
