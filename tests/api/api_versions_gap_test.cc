// The gap made visible: our ApiVersions answer beside Apache Kafka 4.4's
// (recorded by tools/record_kafka_apiversions.sh). The comparison prints
// every difference (an API Kafka serves and we do not, a range older than
// Kafka's) and passes: it is a report. It fails if we advertise a version
// Kafka 4.4 does not have, or one outside the codec's schema range.
#include <fstream>
#include <iostream>
#include <sstream>

#include "api/api_comparison.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;

namespace {

std::vector<api::ApiVersionRange> advertised_on_the_wire(test::ApiHarness& h) {
  protocol::ApiVersionsRequest req;
  req.client_software_name = "skiff-test";
  req.client_software_version = "1.0";
  auto resp = h.call<protocol::ApiVersionsResponse>(req, 3);
  REQUIRE(resp.error_code == 0);
  std::vector<api::ApiVersionRange> out;
  for (const auto& k : resp.api_keys) out.push_back({k.api_key, k.min_version, k.max_version});
  return out;
}

}  // namespace

TEST_CASE("ApiVersions beside Kafka 4.4's: the gap is reported, nothing is over-advertised",
          "[api][apiversions][gap]") {
  test::ApiHarness h;
  const auto ours = advertised_on_the_wire(h);
  const auto gap = api::gap_report(ours);
  std::cout << "ApiVersions gap to Apache Kafka " << api::kReferenceKafkaVersion << ": " << gap.size()
            << " difference(s)\n";
  for (const auto& line : gap) std::cout << "  " << line << "\n";
  const auto errors = api::advertising_errors(ours);
  for (const auto& e : errors) FAIL_CHECK(e);
  CHECK(errors.empty());
}

TEST_CASE("the recorded Kafka 4.4 ApiVersions is whole and sorted", "[api][apiversions][gap]") {
  const auto kafka = api::kafka_reference_apis();
  CHECK(kafka.size() == 77);
  for (size_t i = 1; i < kafka.size(); ++i) CHECK(kafka[i - 1].api_key < kafka[i].api_key);
  for (const auto& k : kafka) CHECK(k.min_version <= k.max_version);
  CHECK(kafka[0].name == "Produce");
}

TEST_CASE("the comparison sees each kind of difference", "[api][apiversions][gap]") {
  // Exactly Kafka's ranges: no gap.
  std::vector<api::ApiVersionRange> same;
  for (const auto& k : api::kafka_reference_apis()) same.push_back({k.api_key, k.min_version, k.max_version});
  CHECK(api::gap_report(same).empty());

  // Produce only, older: every other API missing, Produce older.
  const std::vector<api::ApiVersionRange> produce_only = {{0, 0, 10}};
  const auto gap = api::gap_report(produce_only);
  CHECK(gap.size() == api::kafka_reference_apis().size());
  CHECK(gap[0] == "Produce (key 0): older, 0–10 (Kafka 4.4.0 serves 0–13)");
  CHECK(gap[1] == "Fetch (key 1): missing (Kafka 4.4.0 serves 4–18)");
  CHECK(api::advertising_errors(produce_only).empty());

  // Over-advertising: below Kafka's minimum, above its maximum, an API Kafka
  // does not serve, a version the codec lacks.
  CHECK(api::advertising_errors(std::vector<api::ApiVersionRange>{{23, 0, 4}}) ==
        std::vector<std::string>{"OffsetForLeaderEpoch (key 23): advertised 0–4, outside Kafka 4.4.0's 2–4"});
  CHECK(api::advertising_errors(std::vector<api::ApiVersionRange>{{0, 0, 14}}).size() == 2);  // Kafka and codec
  // (Every API the codec has now has Kafka 4.4's range, so a version the
  // codec lacks is one below both minimums, or an API without a schema:
  // since the streams groups' 88, 89 and 93, every API Kafka 4.4 serves has
  // one, so only an API Kafka does not serve lacks it.)
  CHECK(api::advertising_errors(std::vector<api::ApiVersionRange>{{1, 0, 18}}) ==
        std::vector<std::string>{"Fetch (key 1): advertised 0–18, outside Kafka 4.4.0's 4–18",
                                 "Fetch (key 1): advertised 0–18, outside the codec's 4–18"});
  CHECK(api::advertising_errors(std::vector<api::ApiVersionRange>{{88, 0, 1}}).empty());
  CHECK(api::advertising_errors(std::vector<api::ApiVersionRange>{{88, 0, 2}}).size() == 2);
  CHECK(api::advertising_errors(std::vector<api::ApiVersionRange>{{1000, 0, 0}}).size() == 2);
}

TEST_CASE("the served-API table has one row per served API with both ranges", "[api][apiversions][gap]") {
  test::ApiHarness h;
  const auto table = api::served_api_table(h.apis().registry().advertised());
  CHECK(table.rfind("| key | API | Skiff | Kafka 4.4.0 |\n|---:|---|---|---|\n", 0) == 0);
  CHECK(table.find("| 55 | DescribeQuorum | 0–2 | 0–2 |\n") != std::string::npos);
  CHECK(table.find("| 46 | ListPartitionReassignments | 0 | 0 |\n") != std::string::npos);
  CHECK(table.find("| 0 | Produce | 0–13 | 0–13 |\n") != std::string::npos);
  const auto rows = std::count(table.begin(), table.end(), '\n') - 2;
  CHECK(rows == static_cast<long>(h.apis().registry().advertised().size()));
}

TEST_CASE("docs/served-apis.md's table of served APIs is what --list-apis prints", "[api][apiversions][gap]") {
  test::ApiHarness h;
  std::ifstream in(SKIFF_SERVED_APIS_DOC);
  REQUIRE(in.good());
  std::stringstream readme;
  readme << in.rdbuf();
  const auto table = api::served_api_table(h.apis().registry().advertised());
  INFO("regenerate the table in docs/served-apis.md with build/skiff --list-apis:\n" << table);
  CHECK(readme.str().find(table) != std::string::npos);
}
