// KafkaApis dispatch: ApiVersions (incl. the KIP-511 fallback), unknown keys,
// out-of-range versions, malformed bodies.
#include "api/handler_registry.h"
#include "protocol/api_table.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/fetch_request.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using protocol::ApiVersionsRequest;
using protocol::ApiVersionsResponse;

TEST_CASE("ApiVersions lists exactly the registry, at every version", "[api][apiversions]") {
  test::ApiHarness h;
  for (int16_t v = 0; v <= 4; ++v) {
    ApiVersionsRequest req;
    req.client_software_name = "skiff-test";
    req.client_software_version = "1.0";
    auto resp = h.call<ApiVersionsResponse>(req, v);
    CHECK(resp.error_code == 0);
    auto advertised = h.apis().registry().advertised();
    REQUIRE(resp.api_keys.size() == advertised.size());
    for (size_t i = 0; i < advertised.size(); ++i) {
      CHECK(resp.api_keys[i].api_key == advertised[i].api_key);
      CHECK(resp.api_keys[i].min_version == advertised[i].min_version);
      CHECK(resp.api_keys[i].max_version == advertised[i].max_version);
    }
  }
}

TEST_CASE("old clients' probes find the versions they look for", "[api][apiversions]") {
  test::ApiHarness h;
  auto resp = h.call<ApiVersionsResponse>(ApiVersionsRequest{}, 0);
  auto range = [&](int16_t key) {
    for (auto& k : resp.api_keys)
      if (k.api_key == key) return std::pair<int, int>(k.min_version, k.max_version);
    return std::pair<int, int>(-1, -1);
  };
  CHECK(range(0) == std::pair(0, 13));  // Produce: librdkafka probes v0, v3, v7
  CHECK(range(1).first <= 4);           // Fetch: probes v4 and v10
  CHECK(range(1).second >= 10);
  CHECK(range(2).first <= 1);           // ListOffsets: probe v1
  CHECK(range(3).first == 0);           // Metadata
  CHECK(range(18) == std::pair(0, 5));  // ApiVersions
  CHECK(range(23) == std::pair(2, 4));  // OffsetForLeaderEpoch
}

TEST_CASE("ApiVersions at a version above ours answers v0 with UNSUPPORTED_VERSION", "[api][apiversions]") {
  test::ApiHarness h;
  // A newer client sends a flexible (header v2) request at version 9.
  protocol::RequestHeader header;
  header.request_api_key = 18;
  header.request_api_version = 9;
  header.correlation_id = 42;
  header.client_id = "future-client";
  protocol::ByteWriter w(64);
  header.encode(w, 2);
  w.write_uvarint(1);  // compact string "": client_software_name
  w.write_uvarint(1);  // client_software_version
  w.write_uvarint(0);  // no tagged fields
  auto resp = h.decode<ApiVersionsResponse>(h.raw(w.take_bytes()), 0, 42);
  CHECK(resp.error_code == 35);
  REQUIRE(resp.api_keys.size() == 1);
  CHECK(resp.api_keys[0].api_key == 18);
  CHECK(resp.api_keys[0].max_version == 5);
}

TEST_CASE("invalid client software names get INVALID_REQUEST", "[api][apiversions]") {
  test::ApiHarness h;
  ApiVersionsRequest req;
  req.client_software_name = "bad name!";
  req.client_software_version = "1";
  CHECK(h.call<ApiVersionsResponse>(req, 3).error_code == 42);
}

TEST_CASE("unknown API keys and unadvertised versions close the connection", "[api][dispatch]") {
  test::ApiHarness h;
  SECTION("unknown key") {
    protocol::ByteWriter w(16);
    w.write_int16(999);
    w.write_int16(0);
    w.write_int32(1);
    w.write_int16(-1);  // null client id
    CHECK(h.raw(w.take_bytes()).action == network::Response::Action::kClose);
  }
  SECTION("Fetch v3 is below what we serve") {
    // (Kafka 4 removed v0-3: the codec cannot encode it, so the header by hand.)
    protocol::RequestHeader header;
    header.request_api_key = 1;
    header.request_api_version = 3;
    header.correlation_id = 1;
    header.client_id = "old-client";
    protocol::ByteWriter w(64);
    header.encode(w, 1);
    w.write_int32(-1);  // replica id, then nothing: never decoded
    CHECK(h.raw(w.take_bytes()).action == network::Response::Action::kClose);
  }
  SECTION("a truncated header") { CHECK(h.raw({0x00, 0x12, 0x00}).action == network::Response::Action::kClose); }
  SECTION("a body that does not decode") {
    auto bytes = h.frame(ApiVersionsRequest{}, 3);
    bytes.resize(bytes.size() - 1);
    bytes.push_back(0x7f);  // claims tagged fields that are not there
    bytes.push_back(0x01);
    CHECK(h.raw(bytes).action == network::Response::Action::kClose);
  }
}

namespace {
class NoopHandler : public api::ApiHandler {
 public:
  using api::ApiHandler::ApiHandler;
  void handle(api::ApiRequest&, api::Responder&) override {}
  void send_error(api::ApiRequest&, api::Responder&, ErrorCode) override {}
};
}  // namespace

TEST_CASE("the registry refuses a handler advertising versions its schema lacks", "[api][dispatch]") {
  const auto* produce = protocol::find_api(0);
  REQUIRE(produce);
  api::HandlerRegistry r;
  CHECK_THROWS_WITH(r.add(std::make_unique<NoopHandler>(0, produce->min_version, produce->max_version + 1)),
                    Catch::Contains("outside its schema"));
  CHECK_THROWS_WITH(r.add(std::make_unique<NoopHandler>(0, -1, produce->max_version)),
                    Catch::Contains("outside its schema"));
  CHECK_THROWS_WITH(r.add(std::make_unique<NoopHandler>(9999, 0, 0)), Catch::Contains("no schema"));
  r.add(std::make_unique<NoopHandler>(0, produce->min_version, produce->max_version));
  CHECK_THROWS_WITH(r.add(std::make_unique<NoopHandler>(0, produce->min_version, produce->max_version)),
                    Catch::Contains("two handlers"));
}
