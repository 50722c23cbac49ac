// ClientSoftware: which client software each open connection runs (KIP-511's
// name and version, sent in ApiVersions v3+), for /metrics as Kafka's
// socket-server-metrics "connections" gauge:
//   kafka_server_socket_server_metrics_connections{client_software_name,
//                                                  client_software_version,listener}
// Connections are forgotten once closed: `is_open` (the network layer's
// ConnectionQuotas) is asked when counting, and when the table has doubled
// since its last clean-up, so it never holds more than about twice the open
// connections. At most kMaxSeries keys are reported; the rest are "_other".
//
// Thread rules: any thread; one mutex. `is_open` is called with it held.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace skiff::api {

class ClientSoftware {
 public:
  using IsOpen = std::function<bool(uint64_t connection_id)>;
  static constexpr size_t kMaxSeries = 1000;

  explicit ClientSoftware(IsOpen is_open) : is_open_(std::move(is_open)) {}

  struct Key {
    std::string name, version, listener;
    auto operator<=>(const Key&) const = default;
  };
  // The connection's ApiVersions named its software (again: the last wins).
  void seen(uint64_t connection_id, Key key);
  // What the connection's ApiVersions named, if it did (KIP-714's matching).
  std::optional<Key> find(uint64_t connection_id);
  // Open connections per software and listener.
  std::map<Key, int> counts();
  // Connections held now, closed ones not yet forgotten included.
  size_t tracked() {
    std::lock_guard lock(mu_);
    return by_connection_.size();
  }

 private:
  void forget_closed();  // mu_ held

  IsOpen is_open_;
  std::mutex mu_;
  std::unordered_map<uint64_t, Key> by_connection_;
  size_t after_cleanup_ = 0;  // entries left by the last forget_closed
};

}  // namespace skiff::api
