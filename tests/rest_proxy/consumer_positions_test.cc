#include "apps/rest_proxy/consumer_positions.h"

#include <catch2/catch.hpp>

namespace skiff::restproxy {

TEST_CASE("positions: a new partition has none until sought, consumed lists the known ones", "[rest_proxy]") {
  ConsumerPositions p;
  p.assign({{"t", 0}, {"t", 1}});
  CHECK(p.missing() == std::vector<TopicPartition>{{"t", 0}, {"t", 1}});
  CHECK(p.seek({"t", 1}, 42));
  CHECK(p.missing() == std::vector<TopicPartition>{{"t", 0}});
  CHECK(p.consumed() == std::map<TopicPartition, int64_t>{{{"t", 1}, 42}});
  p.advance({"t", 1}, 50);
  CHECK(p.position({"t", 1}) == 50);
}

TEST_CASE("positions: seeking or advancing an unassigned partition changes nothing", "[rest_proxy]") {
  ConsumerPositions p;
  p.assign({{"t", 0}});
  CHECK_FALSE(p.seek({"u", 0}, 5));
  p.advance({"u", 0}, 9);
  CHECK_FALSE(p.position({"u", 0}).has_value());
  CHECK(p.consumed().empty());
}

TEST_CASE("positions: a new assignment keeps the positions of the partitions it keeps", "[rest_proxy]") {
  ConsumerPositions p;
  p.assign({{"t", 0}, {"t", 1}});
  p.seek({"t", 0}, 10);
  p.seek({"t", 1}, 20);
  p.assign({{"t", 1}, {"t", 2}});
  CHECK_FALSE(p.position({"t", 0}).has_value());
  CHECK(p.position({"t", 1}) == 20);
  CHECK(p.missing() == std::vector<TopicPartition>{{"t", 2}});
  p.reset({"t", 1});
  CHECK(p.missing() == std::vector<TopicPartition>{{"t", 1}, {"t", 2}});
}

}  // namespace skiff::restproxy
