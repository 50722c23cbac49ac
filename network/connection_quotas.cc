#include "network/connection_quotas.h"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "common/ip_address.h"

namespace skiff::network {
namespace {

// Canonical text of an IP so that "::ffff:127.0.0.1" and "127.0.0.1" count
// as one; anything else (a scoped IPv6 address) as it is.
std::string canonical_ip(const std::string& ip) { return skiff::canonical_ip(ip).value_or(ip); }

}  // namespace

ConnectionQuotas::Slot& ConnectionQuotas::Slot::operator=(Slot&& o) noexcept {
  if (this != &o) {
    release();
    quotas_ = std::move(o.quotas_);
    ip_ = std::move(o.ip_);
    listener_ = std::move(o.listener_);
    connection_id_ = std::exchange(o.connection_id_, 0);
  }
  return *this;
}

void ConnectionQuotas::Slot::release() {
  if (quotas_) {
    quotas_->release(ip_, listener_, connection_id_);
    quotas_.reset();
  }
}

namespace {

// Host name or IP -> limit, by textual IP: a host name applies to every
// address it resolves to (Kafka resolves too); one that does not resolve is skipped.
std::map<std::string, int32_t> resolve_overrides(const std::map<std::string, int32_t>& overrides) {
  std::map<std::string, int32_t> out;
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  for (const auto& [host, limit] : overrides) {
    boost::system::error_code ec;
    auto addr = boost::asio::ip::make_address(host, ec);
    if (!ec) {
      out[canonical_ip(addr.to_string())] = limit;
      continue;
    }
    auto results = resolver.resolve(host, "", ec);
    if (ec) continue;
    for (const auto& r : results) out[canonical_ip(r.endpoint().address().to_string())] = limit;
  }
  return out;
}

}  // namespace

std::shared_ptr<ConnectionQuotas> ConnectionQuotas::create(int32_t max_connections, int32_t max_per_ip,
                                                           const std::map<std::string, int32_t>& overrides) {
  std::shared_ptr<ConnectionQuotas> q(new ConnectionQuotas(max_connections, max_per_ip));
  q->overrides_ = resolve_overrides(overrides);
  return q;
}

void ConnectionQuotas::reconfigure(int32_t max_connections, int32_t max_per_ip,
                                   const std::map<std::string, int32_t>& overrides) {
  auto resolved = resolve_overrides(overrides);  // DNS outside the lock
  std::lock_guard lock(mu_);
  max_total_ = max_connections;
  max_per_ip_ = max_per_ip;
  overrides_ = std::move(resolved);
}

int32_t ConnectionQuotas::limit_for(const std::string& ip) const {
  std::lock_guard lock(mu_);
  return limit_for_locked(canonical_ip(ip));
}

int32_t ConnectionQuotas::limit_for_locked(const std::string& ip) const {
  auto it = overrides_.find(ip);
  return it == overrides_.end() ? max_per_ip_ : it->second;
}

void ConnectionQuotas::set_ip_rate_quota(IpRateQuota quota) {
  std::lock_guard lock(mu_);
  ip_rate_quota_ = quota ? std::make_shared<const IpRateQuota>(std::move(quota)) : nullptr;
}

uint64_t ConnectionQuotas::rate_throttled() const {
  std::lock_guard lock(mu_);
  return rate_throttled_;
}

// Kafka's recordIpConnectionMaybeThrottle: the connection counts against the
// IP's rate; over it, it is taken back (it is not accepted) and the throttle
// says how long until the rate is back within the quota. IPs idle for an
// hour are forgotten (checked at most once a minute).
int64_t ConnectionQuotas::rate_throttle_locked(const std::string& ip, double quota) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_sweep_ > std::chrono::minutes(1)) {
    last_sweep_ = now;
    std::erase_if(ip_rates_, [&](const auto& e) { return now - e.second.last_used > std::chrono::hours(1); });
  }
  const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  auto& entry = ip_rates_[ip];
  entry.last_used = now;
  entry.rate.record(1, ms);
  const int64_t throttle = throttle_ms(entry.rate.measure(ms), quota, entry.rate.window_ms(ms));
  if (throttle > 0) {
    entry.rate.record(-1, ms);
    ++rate_throttled_;
  }
  return throttle;
}

std::optional<ConnectionQuotas::Slot> ConnectionQuotas::try_acquire(const std::string& raw_ip, std::string* why,
                                                                    const std::string& listener, int64_t* throttle_ms) {
  std::string ip = canonical_ip(raw_ip);
  std::shared_ptr<const IpRateQuota> rate_quota;
  {
    std::lock_guard lock(mu_);
    rate_quota = ip_rate_quota_;
  }
  const std::optional<double> rate = rate_quota ? (*rate_quota)(ip) : std::nullopt;  // outside the lock
  std::lock_guard lock(mu_);
  if (total_ >= max_total_) {
    if (why) *why = "max.connections (" + std::to_string(max_total_) + ") reached";
    return std::nullopt;
  }
  if (rate) {
    const double quota = *rate;
    if (const int64_t throttle = rate_throttle_locked(ip, quota); throttle > 0) {
      if (why) *why = fmt::format("connection_creation_rate ({}/s) exceeded for {}", quota, ip);
      if (throttle_ms) *throttle_ms = throttle;
      return std::nullopt;
    }
  }
  int32_t limit = limit_for_locked(ip);
  int32_t& n = counts_[ip];
  if (n >= limit) {
    if (n == 0) counts_.erase(ip);
    if (why) *why = "max.connections.per.ip (" + std::to_string(limit) + ") reached for " + ip;
    return std::nullopt;
  }
  ++n;
  ++total_;
  auto& l = listeners_[listener];
  ++l.open;
  ++l.accepted;
  return Slot(shared_from_this(), ip, listener);
}

void ConnectionQuotas::Slot::bind(uint64_t connection_id) {
  if (!quotas_ || connection_id == 0) return;
  connection_id_ = connection_id;
  std::lock_guard lock(quotas_->mu_);
  quotas_->open_ids_.insert(connection_id);
}

bool ConnectionQuotas::is_open(uint64_t connection_id) const {
  std::lock_guard lock(mu_);
  return open_ids_.contains(connection_id);
}

void ConnectionQuotas::release(const std::string& ip, const std::string& listener, uint64_t connection_id) {
  std::lock_guard lock(mu_);
  if (connection_id) open_ids_.erase(connection_id);
  auto it = counts_.find(ip);
  if (it != counts_.end() && --it->second <= 0) counts_.erase(it);
  --total_;
  if (auto l = listeners_.find(listener); l != listeners_.end()) --l->second.open;
}

std::map<std::string, ConnectionQuotas::ListenerCounts> ConnectionQuotas::by_listener() const {
  std::lock_guard lock(mu_);
  return listeners_;
}

int32_t ConnectionQuotas::count(const std::string& ip) const {
  std::lock_guard lock(mu_);
  auto it = counts_.find(canonical_ip(ip));
  return it == counts_.end() ? 0 : it->second;
}

int32_t ConnectionQuotas::total() const {
  std::lock_guard lock(mu_);
  return total_;
}

}  // namespace skiff::network
