// QuotaManager: Kafka's throttling of produce and fetch bytes and of request
// time, against the quotas of a real ClientQuotaStore.
#include "api/quota/quota_manager.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "api/quota/client_quota_store.h"
#include "common/metrics.h"

using namespace skiff::api::quota;
using Clock = QuotaManager::Clock;

namespace {

struct Fixture {
  std::filesystem::path dir;
  std::shared_ptr<ClientQuotaStore> store;
  QuotaManager manager;

  Fixture()
      : dir(make_dir()),
        store(std::make_shared<ClientQuotaStore>(nullptr)),
        manager(store, skiff::QuotaWindow{11, 1000}) {}
  ~Fixture() { std::filesystem::remove_all(dir); }

  static std::filesystem::path make_dir() {
    auto d = std::filesystem::temp_directory_path() /
             ("skiff-quota-manager-" + std::to_string(Clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(d);
    return d;
  }
  void set(QuotaEntity entity, std::string_view key, double value) {
    auto results = store->alter({{std::move(entity), {{std::string(key), value, false}}}}, false);
    REQUIRE(results.at(0).error == skiff::ErrorCode::kNone);
  }
};

Clock::time_point at(int64_t ms) { return Clock::time_point(std::chrono::milliseconds(1'000'000 + ms)); }

// The value of the exposition line that starts with `series` (-1: none).
double sample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 2));
}

}  // namespace

TEST_CASE("Without quotas nothing is tracked or throttled", "[quota]") {
  Fixture f;
  CHECK_FALSE(f.manager.enabled(QuotaKind::kProduce));
  CHECK(f.manager.record(QuotaKind::kProduce, "u", "c", 1e12, at(0)) == 0);
  CHECK(f.manager.max_value_in_window(QuotaKind::kFetch, "u", "c") == INT32_MAX);
}

TEST_CASE("A producer over its byte rate is throttled by Kafka's formula", "[quota]") {
  Fixture f;
  f.set({{"client-id", "c1"}}, kProducerByteRate, 1000);
  CHECK(f.manager.enabled(QuotaKind::kProduce));
  CHECK_FALSE(f.manager.enabled(QuotaKind::kFetch));
  // 10 s worth at once is within the quota (measured over 10 s) ...
  CHECK(f.manager.record(QuotaKind::kProduce, "u", "c1", 10000, at(0)) == 0);
  // ... 5 s more is not: (1500 - 1000) / 1000 * 10 s.
  CHECK(f.manager.record(QuotaKind::kProduce, "u", "c1", 5000, at(0)) == 5000);
  // Another client id has no quota; nor does c1's fetch.
  CHECK(f.manager.record(QuotaKind::kProduce, "u", "c2", 1e9, at(0)) == 0);
  CHECK(f.manager.record(QuotaKind::kFetch, "u", "c1", 1e9, at(0)) == 0);
}

TEST_CASE("A client-id quota is shared by its users, a default one is per client", "[quota]") {
  Fixture f;
  f.set({{"client-id", "shared"}}, kProducerByteRate, 1000);
  f.set({{"client-id", std::nullopt}}, kProducerByteRate, 1000);
  CHECK(f.manager.record(QuotaKind::kProduce, "alice", "shared", 8000, at(0)) == 0);
  CHECK(f.manager.record(QuotaKind::kProduce, "bob", "shared", 4000, at(0)) == 2000);  // one rate: 12 s worth
  CHECK(f.manager.record(QuotaKind::kProduce, "alice", "a", 8000, at(0)) == 0);
  CHECK(f.manager.record(QuotaKind::kProduce, "alice", "b", 8000, at(0)) == 0);  // its own rate
}

TEST_CASE("A changed quota applies to the next request", "[quota]") {
  Fixture f;
  f.set({{"user", "u"}}, kProducerByteRate, 1000);
  CHECK(f.manager.record(QuotaKind::kProduce, "u", "c", 10000, at(0)) == 0);
  f.set({{"user", "u"}}, kProducerByteRate, 500);
  CHECK(f.manager.record(QuotaKind::kProduce, "u", "c", 0, at(0)) == 10000);  // 1000/s against 500
}

TEST_CASE("A throttled fetch's bytes are taken back, one fetch is bounded by a window", "[quota]") {
  Fixture f;
  f.set({{"client-id", "c"}}, kConsumerByteRate, 2000);
  CHECK(f.manager.max_value_in_window(QuotaKind::kFetch, "u", "c") == 20000);
  CHECK(f.manager.record(QuotaKind::kFetch, "u", "c", 30000, at(0)) == 5000);
  f.manager.unrecord(QuotaKind::kFetch, "u", "c", 30000, at(0));
  CHECK(f.manager.record(QuotaKind::kFetch, "u", "c", 20000, at(0)) == 0);
}

TEST_CASE("Request-time throttles are capped at one window", "[quota]") {
  Fixture f;
  f.set({{"client-id", "c"}}, kRequestPercentage, 1);  // 1 % of a thread
  CHECK(f.manager.record(QuotaKind::kRequest, "u", "c", 10, at(0)) == 0);
  CHECK(f.manager.record(QuotaKind::kRequest, "u", "c", 1000, at(0)) == 1000);
}

TEST_CASE("Throttling shows in the exposition", "[quota]") {
  Fixture f;
  f.set({{"user", "u"}, {"client-id", "c"}}, kProducerByteRate, 100);
  f.manager.record(QuotaKind::kProduce, "u", "c", 5000, Clock::now());
  skiff::metrics::Exposition out;
  f.manager.collect(out);
  const auto& text = out.text();
  CHECK(sample(text, R"(skiff_quota_throttled_total{type="Produce",user="u",client_id="c"})") == 1);
  CHECK(sample(text, R"(kafka_server_produce_byte_rate{user="u",client_id="c"})") == Approx(500).epsilon(0.01));
  CHECK(sample(text, R"(kafka_server_produce_throttle_time{user="u",client_id="c"})") == Approx(40000).epsilon(0.01));
}
