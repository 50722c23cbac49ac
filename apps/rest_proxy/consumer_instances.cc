#include "apps/rest_proxy/consumer_instances.h"

#include <spdlog/spdlog.h>

#include "apps/rest_proxy/rest_errors.h"
#include "common/log_escape.h"

namespace skiff::restproxy {
namespace {

void close_quietly(ConsumerInstance& instance) {
  try {
    instance.close();
  } catch (const std::exception& e) {
    spdlog::warn("rest proxy: closing consumer instance {}: {}", escape_for_log(instance.settings().name), e.what());
  }
}

}  // namespace

ConsumerInstances::ConsumerInstances(std::optional<RestKafka> kafka, std::shared_ptr<EmbeddedFormats> formats,
                                     RestLimits limits, Now now)
    : kafka_(std::move(kafka)), formats_(std::move(formats)), limits_(limits), now_(std::move(now)) {}

ConsumerInstances::~ConsumerInstances() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (timer_.joinable()) timer_.join();
  std::map<Key, std::shared_ptr<ConsumerInstance>> all;
  {
    std::lock_guard lock(mu_);
    all.swap(instances_);
  }
  for (auto& [key, instance] : all) close_quietly(*instance);
}

void ConsumerInstances::start(std::chrono::milliseconds period) {
  timer_ = std::thread([this, period] { run(period); });
}

void ConsumerInstances::run(std::chrono::milliseconds period) {
  std::unique_lock lock(mu_);
  while (!stop_cv_.wait_for(lock, period, [this] { return stopping_; })) {
    lock.unlock();
    try {
      tick();
    } catch (const std::exception& e) {
      spdlog::warn("rest proxy: consumer instances' timer: {}", e.what());
    }
    lock.lock();
  }
}

ConsumerInstances::Lease::Lease(std::shared_ptr<ConsumerInstance> instance, Now now)
    : instance_(std::move(instance)), now_(std::move(now)) {
  instance_->begin_use(now_());
}

ConsumerInstances::Lease::~Lease() { instance_->end_use(now_()); }

std::shared_ptr<ConsumerInstance> ConsumerInstances::create(ConsumerSettings settings) {
  std::lock_guard lock(mu_);
  if (settings.name.empty()) settings.name = "rest-consumer-" + std::to_string(++next_id_);
  const Key key{settings.group, settings.name};
  if (instances_.count(key) != 0)
    throw RestError(409, 40902, "Consumer with specified consumer ID already exists in the specified consumer group.");
  int of_user = 0;
  for (const auto& [k, instance] : instances_) of_user += instance->settings().user == settings.user ? 1 : 0;
  if (of_user >= limits_.max_consumer_instances_per_user)
    throw RestError(429, 42900,
                    "Too many consumer instances: at most " + std::to_string(limits_.max_consumer_instances_per_user) +
                        " per user");
  auto instance = std::make_shared<ConsumerInstance>(std::move(settings), kafka_, formats_);
  instance->touch(now_());  // idle from now
  instances_[key] = instance;
  return instance;
}

ConsumerInstances::Lease ConsumerInstances::find(const std::string& group, const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = instances_.find({group, name});
  if (it == instances_.end()) throw RestError(404, 40403, "Consumer instance not found.");
  return Lease(it->second, now_);
}

void ConsumerInstances::remove(const std::string& group, const std::string& name) {
  std::shared_ptr<ConsumerInstance> instance;
  {
    std::lock_guard lock(mu_);
    auto it = instances_.find({group, name});
    if (it == instances_.end()) throw RestError(404, 40403, "Consumer instance not found.");
    instance = std::move(it->second);
    instances_.erase(it);
  }
  close_quietly(*instance);
}

std::vector<std::shared_ptr<ConsumerInstance>> ConsumerInstances::take_expired(Clock::time_point now) {
  std::vector<std::shared_ptr<ConsumerInstance>> out;
  std::lock_guard lock(mu_);
  for (auto it = instances_.begin(); it != instances_.end();) {
    if (it->second->idle_since(now - limits_.consumer_instance_timeout)) {
      out.push_back(std::move(it->second));
      it = instances_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

void ConsumerInstances::tick() {
  const auto now = now_();
  for (auto& instance : take_expired(now)) {
    spdlog::info("rest proxy: consumer instance {} of group {} expired", escape_for_log(instance->settings().name),
                 escape_for_log(instance->settings().group));
    close_quietly(*instance);
  }
  std::vector<std::shared_ptr<ConsumerInstance>> live;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, instance] : instances_) live.push_back(instance);
  }
  for (auto& instance : live) {
    try {
      instance->heartbeat(now);
    } catch (const std::exception& e) {
      spdlog::debug("rest proxy: heartbeat of {}: {}", escape_for_log(instance->settings().name), e.what());
    }
  }
}

size_t ConsumerInstances::size() const {
  std::lock_guard lock(mu_);
  return instances_.size();
}

}  // namespace skiff::restproxy
