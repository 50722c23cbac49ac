// KIP-714 client telemetry: subscription validation and matching, the
// subscription file, the GetTelemetrySubscriptions / PushTelemetry state
// machine (api/telemetry/client_metrics_manager.h, on a fake clock), OTLP
// decoding and the /metrics exposition.
#include <catch2/catch.hpp>

#include "api/telemetry/client_metrics_manager.h"
#include "api/telemetry/otlp_metrics.h"
#include "common/metrics.h"
#include "log/compression.h"
#include "metadata/metadata_store.h"
#include "opentelemetry/proto/metrics/v1/metrics.pb.h"
#include "tests/support/metadata_store.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::api::telemetry;
using skiff::ErrorCode;
namespace otlp = opentelemetry::proto;

namespace {

ClientContext java_client() {
  ClientContext c;
  c.client_id = "producer-1";
  c.software_name = "apache-kafka-java";
  c.software_version = "4.4.0";
  c.source_address = "127.0.0.1";
  return c;
}

// A MetricsData with one gauge, one delta monotonic sum and one histogram.
std::vector<uint8_t> metrics_data(double gauge, int64_t sum_delta) {
  otlp::metrics::v1::MetricsData data;
  auto* rm = data.add_resource_metrics();
  auto* attr = rm->mutable_resource()->add_attributes();
  attr->set_key("client_rack");
  attr->mutable_value()->set_string_value("r1");
  auto* sm = rm->add_scope_metrics();
  auto* g = sm->add_metrics();
  g->set_name("org.apache.kafka.producer.record.queue.time.avg");
  auto* gp = g->mutable_gauge()->add_data_points();
  gp->set_as_double(gauge);
  auto* ga = gp->add_attributes();
  ga->set_key("node.id");
  ga->mutable_value()->set_int_value(1);
  auto* s = sm->add_metrics();
  s->set_name("org.apache.kafka.producer.record.send.total");
  s->mutable_sum()->set_is_monotonic(true);
  s->mutable_sum()->set_aggregation_temporality(otlp::metrics::v1::AGGREGATION_TEMPORALITY_DELTA);
  s->mutable_sum()->add_data_points()->set_as_int(sum_delta);
  auto* h = sm->add_metrics();
  h->set_name("librdkafka.rtt");
  auto* hp = h->mutable_histogram()->add_data_points();
  hp->set_count(3);
  hp->set_sum(1.5);
  std::string out;
  REQUIRE(data.SerializeToString(&out));
  return {out.begin(), out.end()};
}

}  // namespace

TEST_CASE("client-metrics configs are validated as Kafka's ClientMetricsConfigs", "[telemetry]") {
  CHECK_FALSE(validate("sub1", {{"metrics", "org.apache.kafka.producer."}, {"interval.ms", "1000"}}));
  CHECK_FALSE(validate("sub1", {}));
  CHECK(validate("", {})->error == ErrorCode::kInvalidRequest);
  CHECK(validate("s", {{"bogus", "1"}})->message == "Unknown client metrics configuration: bogus");
  CHECK(validate("s", {{"interval.ms", "99"}})->error == ErrorCode::kInvalidRequest);
  CHECK_FALSE(validate("s", {{"interval.ms", "100"}}));
  CHECK_FALSE(validate("s", {{"interval.ms", "3600000"}}));
  CHECK(validate("s", {{"interval.ms", "3600001"}})->error == ErrorCode::kInvalidRequest);
  CHECK(validate("s", {{"interval.ms", "soon"}})->error == ErrorCode::kInvalidConfig);
  CHECK_FALSE(validate("s", {{"match", "client_id=prod.*, client_software_name=apache-kafka-java"}}));
  CHECK(validate("s", {{"match", "client_idx=a"}})->message == "Illegal client matching pattern: client_idx=a");
  CHECK(validate("s", {{"match", "client_id"}})->error == ErrorCode::kInvalidConfig);
  CHECK(validate("s", {{"match", "client_id=a=b"}})->error == ErrorCode::kInvalidConfig);
  CHECK(validate("s", {{"match", "client_id=(unclosed"}})->error == ErrorCode::kInvalidConfig);
  CHECK(parse_list(" a , b,") == std::vector<std::string>{"a", "b", ""});
  CHECK(parse_list("  ").empty());
}

TEST_CASE("a subscription matches when every selector matches the whole attribute", "[telemetry]") {
  auto s = parse_subscription("s", {{"match", "client_id=prod.*,client_software_name=apache-kafka-java"}});
  ClientAttributes a{"id", "producer-1", "apache-kafka-java", "4.4.0", "127.0.0.1", std::nullopt};
  CHECK(s.matches(a));
  a.client_id = "xproducer";
  CHECK_FALSE(s.matches(a));
  CHECK(parse_subscription("all", {}).matches(a));                                        // no selector: every client
  CHECK_FALSE(parse_subscription("p", {{"match", "client_source_port=.*"}}).matches(a));  // port unknown
}

TEST_CASE("subscriptions survive a restart through the metadata store", "[telemetry]") {
  test::TempDir dir("telemetry");
  {
    auto meta = test::open_metadata(dir.path());
    SubscriptionStore store(&meta->ns(metadata::kClientMetrics));
    CHECK(store.put("sub1", {{"metrics", "org.apache.kafka.producer."}, {"interval.ms", "1000"}}) == 0);
    CHECK(store.put("sub2", {{"metrics", "*"}}) == 0);
    CHECK(store.put("sub2", {}) == 0);  // empty: deleted
  }
  auto meta = test::open_metadata(dir.path());
  auto& ns = meta->ns(metadata::kClientMetrics);
  SubscriptionStore again(&ns);
  CHECK(again.names() == std::vector<std::string>{"sub1"});
  CHECK(again.configs("sub1")->at("interval.ms") == "1000");
  CHECK(again.snapshot()->at(0).interval_ms == 1000);
  auto records = SubscriptionStore::encode({{"x", {{"metrics", "a"}}}});
  CHECK(SubscriptionStore::decode(records).at("x").at("metrics") == "a");
  records[0] += "!";
  CHECK_THROWS(SubscriptionStore::decode(records));
  REQUIRE(ns.write(SubscriptionStore::encode({{"x", {{"interval.ms", "1"}}}})));  // below the minimum
  CHECK_THROWS_WITH(SubscriptionStore(&ns), Catch::Contains(ns.file().string() + " is corrupt: subscription 'x'"));
}

TEST_CASE("GetTelemetrySubscriptions: ids, subscription ids, throttling", "[telemetry]") {
  int64_t now = 1'000'000;
  ClientMetricsManager m({}, [&] { return now; });
  // No subscription: nothing requested, the default interval.
  auto a = m.get_subscriptions(Uuid{}, java_client());
  REQUIRE(a.error == ErrorCode::kNone);
  CHECK_FALSE(a.client_instance_id.is_zero());
  CHECK(a.requested_metrics.empty());
  CHECK(a.push_interval_ms == kDefaultIntervalMs);
  // Asked again within the interval: throttled.
  CHECK(m.get_subscriptions(a.client_instance_id, java_client()).error == ErrorCode::kThrottlingQuotaExceeded);
  // A subscription appears: re-evaluated at once, a new subscription id.
  REQUIRE(m.subscriptions().put("sub1", {{"metrics", "org.apache.kafka.producer."}, {"interval.ms", "1000"}}) == 0);
  REQUIRE(m.subscriptions().put("sub2", {{"metrics", "*"}, {"match", "client_id=consumer.*"}}) == 0);
  auto b = m.get_subscriptions(a.client_instance_id, java_client());
  REQUIRE(b.error == ErrorCode::kNone);
  CHECK(b.client_instance_id == a.client_instance_id);
  CHECK(b.requested_metrics == std::vector<std::string>{"org.apache.kafka.producer."});
  CHECK(b.push_interval_ms == 1000);
  CHECK(b.subscription_id != a.subscription_id);
  REQUIRE(m.subscriptions().put("sub3", {{"metrics", "*"}, {"interval.ms", "500"}}) == 0);
  auto c = m.get_subscriptions(a.client_instance_id, java_client());
  CHECK(c.requested_metrics == std::vector<std::string>{"*"});
  CHECK(c.push_interval_ms == 500);
  CHECK(m.instance_count() == 1);
}

TEST_CASE("PushTelemetry: Kafka's checks, in Kafka's order", "[telemetry]") {
  int64_t now = 1'000'000;
  ClientMetricsManager m({}, [&] { return now; });
  REQUIRE(m.subscriptions().put("sub1", {{"metrics", "*"}, {"interval.ms", "1000"}}) == 0);
  auto a = m.get_subscriptions(Uuid{}, java_client());
  const auto payload = metrics_data(2.5, 10);
  PushRequest p{a.client_instance_id, a.subscription_id, false, 0, payload};
  CHECK(m.push(PushRequest{Uuid{}, 0, false, 0, {}}, java_client()) == ErrorCode::kInvalidRequest);
  CHECK(m.push(p, java_client()) == ErrorCode::kNone);  // right after the Get: accepted early
  CHECK(m.push(p, java_client()) == ErrorCode::kThrottlingQuotaExceeded);
  now += 1000;
  auto stale = p;
  stale.subscription_id ^= 1;
  CHECK(m.push(stale, java_client()) == ErrorCode::kUnknownSubscriptionId);
  now += 1000;
  auto bad_codec = p;
  bad_codec.compression_type = 9;
  CHECK(m.push(bad_codec, java_client()) == ErrorCode::kUnsupportedCompressionType);
  now += 1000;
  std::vector<uint8_t> big(ClientMetricsManager::kTelemetryMaxBytes + 1);
  auto too_big = p;
  too_big.metrics = big;
  CHECK(m.push(too_big, java_client()) == ErrorCode::kTelemetryTooLarge);
  now += 1000;
  const std::vector<uint8_t> junk{0xff, 0xff, 0xff};
  auto garbage = p;
  garbage.metrics = junk;
  CHECK(m.push(garbage, java_client()) == ErrorCode::kInvalidRecord);
  now += 1000;
  // zstd-compressed, as a client that chose zstd sends it; the delta sum adds up.
  auto zstd = storage::compress(storage::Compression::kZstd, payload);
  REQUIRE(zstd);
  auto compressed = p;
  compressed.compression_type = 4;
  compressed.metrics = *zstd;
  CHECK(m.push(compressed, java_client()) == ErrorCode::kNone);
  // A terminating push is accepted within the interval; nothing after it.
  auto last = p;
  last.terminating = true;
  CHECK(m.push(last, java_client()) == ErrorCode::kNone);
  now += 5000;
  CHECK(m.push(p, java_client()) == ErrorCode::kInvalidRequest);

  metrics::Exposition out;
  m.collect(out);
  const std::string text = out.text();
  const std::string id = a.client_instance_id.to_string();
  const std::string labels = "client_instance_id=\"" + id +
                             "\",client_id=\"producer-1\",client_software_name=\"apache-kafka-java\","
                             "client_software_version=\"4.4.0\"";
  CHECK_THAT(text, Catch::Contains("kafka_client_producer_record_queue_time_avg{" + labels + ",node_id=\"1\"} 2.5"));
  CHECK_THAT(text, Catch::Contains("# TYPE kafka_client_producer_record_send_total counter"));
  CHECK_THAT(text, Catch::Contains("kafka_client_producer_record_send_total{" + labels + "} 30"));
  // Not delta (temporality unspecified): the latest value, not a sum.
  CHECK_THAT(text, Catch::Contains("kafka_client_librdkafka_rtt_count{" + labels + "} 3"));
  CHECK_THAT(text, Catch::Contains("kafka_server_client_metrics_instance_count 1"));
  CHECK_THAT(text, Catch::Contains("skiff_client_telemetry_pushes_total{result=\"accepted\"} 3"));
  CHECK_THAT(text, Catch::Contains("skiff_client_telemetry_pushes_total{result=\"throttled\"} 1"));

  // Expired (max(60 s, 3 x interval) without a request): its series go too.
  now += ClientMetricsManager::kCacheExpiryMs + 1;
  metrics::Exposition later;
  m.collect(later);
  CHECK_THAT(later.text(), Catch::Contains("kafka_server_client_metrics_instance_count 0"));
  CHECK_THAT(later.text(), !Catch::Contains("kafka_client_producer"));
}

TEST_CASE("OTLP MetricsData decodes into data points", "[telemetry]") {
  auto decoded = decode_metrics_data(metrics_data(1, 2));
  REQUIRE(decoded);
  CHECK(decoded->resource == std::vector<std::pair<std::string, std::string>>{{"client_rack", "r1"}});
  REQUIRE(decoded->points.size() == 4);
  CHECK(decoded->points[0].name == "org.apache.kafka.producer.record.queue.time.avg");
  CHECK(decoded->points[0].attributes == std::vector<std::pair<std::string, std::string>>{{"node.id", "1"}});
  CHECK(decoded->points[1].delta);
  CHECK(decoded->points[1].monotonic);
  CHECK(decoded->points[1].value == 2);
  CHECK(decoded->points[2].name == "librdkafka.rtt_count");
  CHECK(decoded->points[3].value == 1.5);
  const std::vector<uint8_t> junk{0x0a, 0xff};
  CHECK_FALSE(decode_metrics_data(junk));
  for (int8_t codec : {1, 2, 3, 4}) {
    auto plain = metrics_data(1, 2);
    auto packed = storage::compress(static_cast<storage::Compression>(codec), plain);
    REQUIRE(packed);
    CHECK(decompress_payload(codec, *packed, 1 << 20) == plain);
  }
  CHECK_FALSE(decompress_payload(5, junk, 1 << 20));
}
