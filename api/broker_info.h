// What the API handlers need to know about this broker that is fixed once it
// has started: its id, the endpoints it advertises per listener, the cluster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skiff::api {

// Every partition's leader epoch: one broker leads every partition from its
// creation and leadership never moves, so the epoch never advances.
inline constexpr int32_t kLeaderEpoch = 0;

struct AdvertisedEndpoint {
  std::string listener_name;
  std::string host;
  int32_t port = 0;
};

struct BrokerInfo {
  int32_t node_id = 1;
  std::string cluster_id;
  std::vector<AdvertisedEndpoint> endpoints;

  // The endpoint for requests that came in on `listener_name` (the first one
  // when no listener of that name exists).
  const AdvertisedEndpoint& endpoint_for(const std::string& listener_name) const {
    for (const auto& e : endpoints)
      if (e.listener_name == listener_name) return e;
    return endpoints.front();
  }
};

}  // namespace skiff::api
