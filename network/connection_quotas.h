// ConnectionQuotas: limits connections per client IP (with per-host
// overrides) and broker-wide. The Acceptor takes a Slot before handing a
// connection to a Processor; the Slot is owned by the connection and gives
// its count back when destroyed, whatever path the connection dies by.
//
// Thread-safe: the Acceptor acquires, Processors release, an admin request
// may reconfigure.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace skiff::network {

class ConnectionQuotas : public std::enable_shared_from_this<ConnectionQuotas> {
 public:
  // A held connection slot. Move-only; releases on destruction.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& o) noexcept : quotas_(std::move(o.quotas_)), ip_(std::move(o.ip_)) {}
    Slot& operator=(Slot&& o) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { release(); }
    void release();
    const std::string& ip() const { return ip_; }

   private:
    friend class ConnectionQuotas;
    Slot(std::shared_ptr<ConnectionQuotas> q, std::string ip) : quotas_(std::move(q)), ip_(std::move(ip)) {}
    std::shared_ptr<ConnectionQuotas> quotas_;
    std::string ip_;
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

  std::optional<Slot> try_acquire(const std::string& ip, std::string* why = nullptr);

  int32_t count(const std::string& ip) const;
  int32_t total() const;
  int32_t limit_for(const std::string& ip) const;

 private:
  ConnectionQuotas(int32_t max_connections, int32_t max_per_ip)
      : max_total_(max_connections), max_per_ip_(max_per_ip) {}
  void release(const std::string& ip);
  int32_t limit_for_locked(const std::string& ip) const;

  mutable std::mutex mu_;  // guards everything below
  int32_t max_total_;
  int32_t max_per_ip_;
  std::map<std::string, int32_t> overrides_;  // by textual IP
  std::map<std::string, int32_t> counts_;
  int32_t total_ = 0;
};

}  // namespace skiff::network
