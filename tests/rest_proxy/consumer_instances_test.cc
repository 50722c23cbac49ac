#include "apps/rest_proxy/consumer_instances.h"

#include <catch2/catch.hpp>

#include "apps/rest_proxy/rest_errors.h"

namespace skiff::restproxy {
namespace {

struct FakeClockForInstances {
  ConsumerInstances::Clock::time_point now{std::chrono::hours(1)};
  ConsumerInstances::Now fn() {
    return [this] { return now; };
  }
};

RestLimits short_limits() {
  RestLimits l;
  l.consumer_instance_timeout = std::chrono::milliseconds(1000);
  l.max_consumer_instances_per_user = 2;
  return l;
}

ConsumerSettings settings_for(const std::string& group, const std::string& name, const std::string& user = "") {
  ConsumerSettings s;
  s.group = group;
  s.name = name;
  s.user = user;
  return s;
}

int error_code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const RestError& e) {
    return e.error_code;
  }
  return 0;
}

}  // namespace

TEST_CASE("consumer instances: a name is unique in its group, 40902 otherwise", "[rest_proxy]") {
  FakeClockForInstances clock;
  ConsumerInstances m(std::nullopt, nullptr, short_limits(), clock.fn());
  m.create(settings_for("g", "a"));
  m.create(settings_for("h", "a"));  // another group: fine
  CHECK(error_code_of([&] { m.create(settings_for("g", "a", "other")); }) == 40902);
  CHECK(m.size() == 2);
}

TEST_CASE("consumer instances: at most max_consumer_instances_per_user per user, 42900", "[rest_proxy]") {
  FakeClockForInstances clock;
  ConsumerInstances m(std::nullopt, nullptr, short_limits(), clock.fn());
  m.create(settings_for("g", "a", "alice"));
  m.create(settings_for("g", "b", "alice"));
  CHECK(error_code_of([&] { m.create(settings_for("g", "c", "alice")); }) == 42900);
  m.create(settings_for("g", "c", "bob"));
  m.remove("g", "a");
  m.create(settings_for("g", "d", "alice"));
  CHECK(m.size() == 3);
}

TEST_CASE("consumer instances: unnamed ones get distinct generated names", "[rest_proxy]") {
  FakeClockForInstances clock;
  ConsumerInstances m(std::nullopt, nullptr, short_limits(), clock.fn());
  auto a = m.create(settings_for("g", ""));
  auto b = m.create(settings_for("g", ""));
  CHECK(a->settings().name != b->settings().name);
  CHECK(a->settings().name.rfind("rest-consumer-", 0) == 0);
}

TEST_CASE("consumer instances: an idle instance expires after the timeout, a used one later", "[rest_proxy]") {
  FakeClockForInstances clock;
  ConsumerInstances m(std::nullopt, nullptr, short_limits(), clock.fn());
  m.create(settings_for("g", "idle"));
  m.create(settings_for("g", "used"));
  clock.now += std::chrono::milliseconds(800);
  { auto lease = m.find("g", "used"); }
  clock.now += std::chrono::milliseconds(400);  // idle: 1200 ms, used: 400 ms
  m.tick();
  CHECK(m.size() == 1);
  CHECK(error_code_of([&] { m.find("g", "idle"); }) == 40403);
  CHECK(error_code_of([&] { m.find("g", "used"); }) == 0);
  clock.now += std::chrono::milliseconds(1001);
  m.tick();
  CHECK(m.size() == 0);
}

TEST_CASE("consumer instances: an instance in use does not expire during its call", "[rest_proxy]") {
  FakeClockForInstances clock;
  ConsumerInstances m(std::nullopt, nullptr, short_limits(), clock.fn());
  auto busy = m.create(settings_for("g", "busy"));
  busy->begin_use(clock.now);             // what a Lease does for a call
  clock.now += std::chrono::seconds(10);  // a long poll
  m.tick();
  CHECK(m.size() == 1);
  busy->end_use(clock.now);
  clock.now += std::chrono::milliseconds(999);
  m.tick();
  CHECK(m.size() == 1);
  clock.now += std::chrono::milliseconds(2);
  m.tick();
  CHECK(m.size() == 0);
}

TEST_CASE("consumer instances: removing an unknown instance is 40403", "[rest_proxy]") {
  FakeClockForInstances clock;
  ConsumerInstances m(std::nullopt, nullptr, short_limits(), clock.fn());
  CHECK(error_code_of([&] { m.remove("g", "none"); }) == 40403);
}

TEST_CASE("consumer instance: subscribe and assign exclude each other, 40903", "[rest_proxy]") {
  ConsumerInstance c(settings_for("g", "x"), std::nullopt, nullptr);
  c.subscribe({"b", "a", "a"}, std::nullopt);
  CHECK(c.subscription() == std::vector<std::string>{"a", "b"});
  CHECK(error_code_of([&] { c.assign({{"a", 0}}); }) == 40903);
  c.unsubscribe();
  c.assign({{"a", 0}, {"a", 1}});
  CHECK(c.assignment() == std::set<TopicPartition>{{"a", 0}, {"a", 1}});
  CHECK(error_code_of([&] { c.subscribe({"a"}, std::nullopt); }) == 40903);
  CHECK(error_code_of([&] { c.seek({{{"b", 0}, 5}}); }) == 40903);  // not assigned
  c.seek({{{"a", 1}, 5}});
}

TEST_CASE("consumer instance: a pattern that is not a regular expression is 42204", "[rest_proxy]") {
  ConsumerInstance c(settings_for("g", "x"), std::nullopt, nullptr);
  CHECK(error_code_of([&] { c.subscribe({}, std::string("orders-(")); }) == 42204);
  c.subscribe({}, std::string("orders-.*"));
}

}  // namespace skiff::restproxy
