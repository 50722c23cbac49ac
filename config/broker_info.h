// BrokerInfo: what this broker is once it has started: its id, the cluster,
// and the endpoint it advertises per listener (derived from the
// configuration and meta.properties by server/). Read by the API handlers and
// the HTTP apps. Immutable after startup; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skiff::config {

struct AdvertisedEndpoint {
  std::string listener_name;
  std::string host;
  int32_t port = 0;
};

struct BrokerInfo {
  int32_t node_id = 1;
  std::string cluster_id;
  std::vector<AdvertisedEndpoint> endpoints;
  // controller.listener.names: listeners that answer as Kafka's controller
  // listener (api/controller_listener.h), not as a broker's.
  std::vector<std::string> controller_listeners;
  // meta.properties' directory.id of the first log dir, base64 (empty when
  // none): the directory id of this node as its quorum's one voter.
  std::string metadata_directory_id;

  bool is_controller_listener(const std::string& listener_name) const {
    for (const auto& c : controller_listeners)
      if (c == listener_name) return true;
    return false;
  }

  // The endpoint for requests that came in on `listener_name` (the first one
  // when no listener of that name exists).
  const AdvertisedEndpoint& endpoint_for(const std::string& listener_name) const {
    for (const auto& e : endpoints)
      if (e.listener_name == listener_name) return e;
    return endpoints.front();
  }
};

}  // namespace skiff::config
