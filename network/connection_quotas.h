// ConnectionQuotas: limits connections per client IP (with per-host
// overrides) and broker-wide. The Acceptor takes a Slot before handing a
// connection to a Processor; the Slot is owned by the connection and gives
// its count back when destroyed, whatever path the connection dies by.
//
// It also counts connections per listener (open now, and accepted since
// start) for /metrics, and enforces Kafka's per-IP connection_creation_rate
// quota (an ip client-quota entity): a connection over the rate gets no
// slot, and the Acceptor holds it for the throttle time before closing it,
// as Kafka's Acceptor does (ConnectionThrottledException).
//
// Thread-safe: the Acceptor acquires, Processors release, an admin request
// may reconfigure.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>

#include "common/quota_rate.h"

namespace skiff::network {

class ConnectionQuotas : public std::enable_shared_from_this<ConnectionQuotas> {
 public:
  // A held connection slot. Move-only; releases on destruction.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& o) noexcept
        : quotas_(std::move(o.quotas_)),
          ip_(std::move(o.ip_)),
          listener_(std::move(o.listener_)),
          connection_id_(std::exchange(o.connection_id_, 0)) {}
    Slot& operator=(Slot&& o) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { release(); }
    void release();
    const std::string& ip() const { return ip_; }
    // The connection this slot is for: is_open(connection_id) until released.
    void bind(uint64_t connection_id);

   private:
    friend class ConnectionQuotas;
    Slot(std::shared_ptr<ConnectionQuotas> q, std::string ip, std::string listener)
        : quotas_(std::move(q)), ip_(std::move(ip)), listener_(std::move(listener)) {}
    std::shared_ptr<ConnectionQuotas> quotas_;
    std::string ip_;
    std::string listener_;
    uint64_t connection_id_ = 0;  // 0: not bound
  };

  // overrides: host name or IP -> limit; host names are resolved to their
  // addresses once, here.
  static std::shared_ptr<ConnectionQuotas> create(int32_t max_connections, int32_t max_per_ip,
                                                  const std::map<std::string, int32_t>& overrides);

  // A slot for a new connection from `ip` (textual), or nothing when over a limit;
  // `why` then says which limit.
  // New limits (dynamic broker configs) for connections accepted from now
  // on; connections already open stay, as in Kafka.
  void reconfigure(int32_t max_connections, int32_t max_per_ip, const std::map<std::string, int32_t>& overrides);

  // A refusal by the IP's connection_creation_rate sets *throttle_ms (> 0):
  // hold the socket that long, then close it.
  std::optional<Slot> try_acquire(const std::string& ip, std::string* why = nullptr, const std::string& listener = {},
                                  int64_t* throttle_ms = nullptr);

  // connection_creation_rate for an IP (connections per second), or none.
  // Called on the Acceptor thread for every connection, outside the lock.
  using IpRateQuota = std::function<std::optional<double>(const std::string& ip)>;
  void set_ip_rate_quota(IpRateQuota quota);
  uint64_t rate_throttled() const;  // connections refused by the rate, since start

  int32_t count(const std::string& ip) const;
  int32_t total() const;
  struct ListenerCounts {
    int32_t open = 0;
    uint64_t accepted = 0;
  };
  std::map<std::string, ListenerCounts> by_listener() const;
  // Whether the connection a slot was bound to is still open.
  bool is_open(uint64_t connection_id) const;
  int32_t limit_for(const std::string& ip) const;

 private:
  ConnectionQuotas(int32_t max_connections, int32_t max_per_ip)
      : max_total_(max_connections), max_per_ip_(max_per_ip) {}
  void release(const std::string& ip, const std::string& listener, uint64_t connection_id);
  int32_t limit_for_locked(const std::string& ip) const;
  int64_t rate_throttle_locked(const std::string& ip, double quota);

  mutable std::mutex mu_;  // guards everything below
  int32_t max_total_;
  int32_t max_per_ip_;
  std::map<std::string, int32_t> overrides_;  // by textual IP
  std::map<std::string, int32_t> counts_;
  std::map<std::string, ListenerCounts> listeners_;  // a listener's entry stays once made
  std::unordered_set<uint64_t> open_ids_;            // bound slots
  int32_t total_ = 0;
  std::shared_ptr<const IpRateQuota> ip_rate_quota_;  // null: no rate quotas
  struct IpRate {
    QuotaRate rate;
    std::chrono::steady_clock::time_point last_used{};
  };
  std::map<std::string, IpRate> ip_rates_;  // IPs with a rate quota that connected lately
  std::chrono::steady_clock::time_point last_sweep_{};
  uint64_t rate_throttled_ = 0;
};

}  // namespace skiff::network
