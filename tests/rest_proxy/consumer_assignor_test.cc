#include "apps/rest_proxy/consumer_assignor.h"

#include <catch2/catch.hpp>

namespace skiff::restproxy {

TEST_CASE("range assignment splits each topic into contiguous ranges by member id", "[rest_proxy]") {
  const auto a = range_assign({{"m2", {"t"}}, {"m1", {"t"}}, {"m3", {"t"}}}, {{"t", 7}});
  CHECK(a.at("m1").at("t") == std::set<int32_t>{0, 1, 2});
  CHECK(a.at("m2").at("t") == std::set<int32_t>{3, 4});
  CHECK(a.at("m3").at("t") == std::set<int32_t>{5, 6});
}

TEST_CASE("range assignment per topic, only among the members subscribed to it", "[rest_proxy]") {
  const auto a = range_assign({{"a", {"x", "y"}}, {"b", {"y"}}, {"c", {"nope"}}}, {{"x", 2}, {"y", 3}});
  CHECK(a.at("a").at("x") == std::set<int32_t>{0, 1});
  CHECK(a.at("a").at("y") == std::set<int32_t>{0, 1});
  CHECK(a.at("b").at("y") == std::set<int32_t>{2});
  CHECK(a.at("b").count("x") == 0);
  CHECK(a.at("c").empty());  // a topic that does not exist gives nothing
}

TEST_CASE("range assignment with more members than partitions leaves the last ones empty", "[rest_proxy]") {
  const auto a = range_assign({{"a", {"t"}}, {"b", {"t"}}, {"c", {"t"}}}, {{"t", 2}});
  CHECK(a.at("a").at("t") == std::set<int32_t>{0});
  CHECK(a.at("b").at("t") == std::set<int32_t>{1});
  CHECK(a.at("c").empty());
}

TEST_CASE("the subscription metadata reads back as Kafka's ConsumerProtocolSubscription", "[rest_proxy]") {
  const auto bytes = encode_subscription({"orders", "payments"});
  const auto decoded = protocol::decode_subscription(bytes);
  REQUIRE(decoded);
  CHECK(decoded->version == 1);
  CHECK(decoded->topics == std::vector<std::string>{"orders", "payments"});
  CHECK(decoded->owned.empty());
  CHECK(protocol::subscribed_topics(bytes) == std::set<std::string>{"orders", "payments"});
}

}  // namespace skiff::restproxy
