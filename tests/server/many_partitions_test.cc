// The real broker under a low descriptor limit (RLIMIT_NOFILE 1024, soft and
// hard, inherited by the broker across exec) serves 5,000 partitions: it
// creates them, takes a produce to each, serves a fetch from each, and after
// a kill -9 and after a clean stop reads them all back. Before segment
// descriptors went through the bounded FdCache, each partition held three
// descriptors and creation failed at about a third of the limit.
// Its own test program: lowering the hard limit cannot be undone.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "log/batch_builder.h"
#include "tests/support/broker_process.h"
#include "tests/support/kafka_requests.h"

using namespace skiff;
using namespace skiff::test;

namespace {
constexpr int kTopics = 10;
constexpr int kPartitionsPerTopic = 500;
constexpr rlim_t kNoFile = 1024;

std::string topic_name(int t) { return "many-" + std::to_string(t); }

std::vector<int32_t> all_partitions() {
  std::vector<int32_t> v;
  for (int32_t p = 0; p < kPartitionsPerTopic; ++p) v.push_back(p);
  return v;
}

// Each partition's records: one batch per round, a payload naming it. Recent
// timestamps: an old first timestamp would make segment.ms roll the segment.
const int64_t kBaseTs = static_cast<int64_t>(std::time(nullptr)) * 1000;
std::vector<uint8_t> batch_for(int topic, int round) {
  return storage::make_test_batch(2, 64, kBaseTs + round, static_cast<uint64_t>(topic * 100 + round));
}

void produce_round(KafkaRequests& k, int round) {
  for (int t = 0; t < kTopics; ++t) {
    std::map<int32_t, int64_t> offsets;
    auto errs = k.produce(topic_name(t), all_partitions(), batch_for(t, round), &offsets);
    REQUIRE(errs.size() == kPartitionsPerTopic);
    for (auto& [p, e] : errs) {
      REQUIRE(e == 0);
      REQUIRE(offsets[p] == 2 * round);
    }
  }
}

// Fetches every partition from offset 0 and checks it holds rounds [0, rounds).
void check_all(KafkaRequests& k, int rounds) {
  for (int t = 0; t < kTopics; ++t) {
    std::vector<uint8_t> expected;
    for (int r = 0; r < rounds; ++r) {
      auto b = batch_for(t, r);
      expected.insert(expected.end(), b.begin(), b.end());
    }
    auto got = k.fetch(topic_name(t), all_partitions(), 0);
    REQUIRE(got.size() == kPartitionsPerTopic);
    for (auto& [p, part] : got) {
      INFO("topic " << t << " partition " << p);
      REQUIRE(part.error_code == 0);
      REQUIRE(part.high_watermark == 2 * rounds);
      // Offsets and leader epochs were rewritten by the broker: compare sizes
      // and the record bytes after each batch's 61-byte header.
      REQUIRE(part.records.size() == expected.size());
      size_t pos = 0;
      for (int r = 0; r < rounds; ++r) {
        auto b = batch_for(t, r);
        REQUIRE(std::equal(b.begin() + 61, b.end(), part.records.begin() + static_cast<long>(pos + 61)));
        pos += b.size();
      }
    }
  }
}
}  // namespace

TEST_CASE("5,000 partitions under RLIMIT_NOFILE 1024: produce, fetch, kill -9, restart", "[integration][fds]") {
  struct rlimit rl {
    kNoFile, kNoFile
  };
  struct rlimit cur {};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &cur) == 0);
  if (cur.rlim_max < kNoFile) rl = {cur.rlim_max, cur.rlim_max};
  REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);

  // On tmpfs where there is one: creating 5,000 partitions is fsync-bound
  // on a disk (about a minute here), and this test is about descriptors.
  auto dir = ::access("/dev/shm", W_OK) == 0 ? make_temp_dir("skiff-many-partitions", "/dev/shm")
                                             : make_temp_dir("skiff-many-partitions");
  {
    BrokerProcess broker({}, dir);
    CHECK_THAT(broker.output(), Catch::Contains("descriptor budget: "));
    RawClient c("127.0.0.1", broker.port(), 120000);
    KafkaRequests k(c);
    for (int t = 0; t < kTopics; ++t) {
      auto r = k.create_topics({topic_name(t)}, kPartitionsPerTopic);
      REQUIRE(r[topic_name(t)] == 0);
    }
    produce_round(k, 0);
    check_all(k, 1);
    REQUIRE(broker.stop(SIGKILL) == -1);
  }
  {
    BrokerProcess broker({}, dir);  // unclean: every partition is recovered
    RawClient c("127.0.0.1", broker.port(), 120000);
    KafkaRequests k(c);
    check_all(k, 1);
    produce_round(k, 1);
    check_all(k, 2);
    REQUIRE(broker.stop(SIGTERM, std::chrono::seconds(120)) == 0);
  }
  {
    BrokerProcess broker({}, dir);  // clean
    RawClient c("127.0.0.1", broker.port(), 120000);
    KafkaRequests k(c);
    check_all(k, 2);
    REQUIRE(broker.stop(SIGTERM, std::chrono::seconds(120)) == 0);
  }
  std::filesystem::remove_all(dir);
}
