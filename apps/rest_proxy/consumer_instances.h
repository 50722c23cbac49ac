// ConsumerInstances: the v2 consumer instances of the proxy, by group and
// name (Confluent's KafkaConsumerManager). Creating one checks the name is
// free in its group (409 / 40902) and the user's count
// (max_consumer_instances_per_user: 429 / 42900); a call finds one (404 /
// 40403 "Consumer instance not found.") and holds it in use until the call
// ends (a Lease); an instance idle for consumer_instance_timeout expires:
// it leaves the table, auto-commits and leaves its group. A timer thread
// (start()) heartbeats the instances' group memberships and expires idle
// ones; tick() is one round of it, for tests with a fake clock.
// Threads: any thread may call any method; the table has its own lock,
// never held across a Kafka call (close() and heartbeats run outside it).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "apps/rest_proxy/consumer_instance.h"
#include "apps/rest_proxy/rest_call.h"

namespace skiff::restproxy {

class ConsumerInstances {
 public:
  using Clock = ConsumerInstance::Clock;
  using Now = std::function<Clock::time_point()>;

  // `kafka` empty: instances that never reach Kafka (tests). `formats` may be null.
  ConsumerInstances(
      std::optional<RestKafka> kafka, std::shared_ptr<EmbeddedFormats> formats, RestLimits limits,
      Now now = [] { return Clock::now(); });
  ~ConsumerInstances();  // stops the timer, closes every instance
  ConsumerInstances(const ConsumerInstances&) = delete;
  ConsumerInstances& operator=(const ConsumerInstances&) = delete;

  // The timer thread: heartbeats and expiry every `period`.
  void start(std::chrono::milliseconds period = std::chrono::milliseconds(500));

  // Holds an instance in use for one call (it does not expire meanwhile).
  class Lease {
   public:
    Lease(std::shared_ptr<ConsumerInstance> instance, Now now);
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ConsumerInstance* operator->() const { return instance_.get(); }
    ConsumerInstance& operator*() const { return *instance_; }

   private:
    std::shared_ptr<ConsumerInstance> instance_;
    Now now_;
  };

  // A new instance (its name given or generated: "rest-consumer-<n>").
  std::shared_ptr<ConsumerInstance> create(ConsumerSettings settings);
  Lease find(const std::string& group, const std::string& name);
  // Removes and closes the instance (404 / 40403 when none).
  void remove(const std::string& group, const std::string& name);

  // One timer round at now(): expire idle instances, then heartbeat the rest.
  void tick();
  size_t size() const;

 private:
  using Key = std::pair<std::string, std::string>;  // group, name
  std::vector<std::shared_ptr<ConsumerInstance>> take_expired(Clock::time_point now);
  void run(std::chrono::milliseconds period);

  const std::optional<RestKafka> kafka_;
  const std::shared_ptr<EmbeddedFormats> formats_;
  const RestLimits limits_;
  const Now now_;
  mutable std::mutex mu_;
  std::map<Key, std::shared_ptr<ConsumerInstance>> instances_;
  uint64_t next_id_ = 0;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread timer_;
};

}  // namespace skiff::restproxy
