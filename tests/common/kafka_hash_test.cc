// Kafka's hashes (common/kafka_hash.h). The expected values were printed by
// kafka-clients 4.4.0's own Utils.murmur2 / toPositive(...) % 3, so the
// console's produce picks the partition a Java producer would.
#include "common/kafka_hash.h"

#include <catch2/catch.hpp>

TEST_CASE("kafka_murmur2 matches kafka-clients' Utils.murmur2", "[hash]") {
  struct Case {
    const char* key;
    int32_t hash;
    int32_t of_three;
  };
  const Case cases[] = {
      {"21", -973932308, 0},
      {"foobar", -790332482, 0},
      {"a-little-bit-long-string", -985981536, 2},
      {"a-little-bit-longer-string", -1486304829, 2},
      {"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971, 2},
      {"abc", 479470107, 0},
      {"k", -1567496736, 2},
  };
  for (const auto& c : cases) {
    INFO(c.key);
    CHECK(skiff::kafka_murmur2(c.key) == c.hash);
    CHECK(skiff::kafka_key_partition(c.key, 3) == c.of_three);
  }
}
