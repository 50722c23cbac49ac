// What the API handlers need to know about this broker that is fixed once it
// has started: its id, the endpoints it advertises per listener, the cluster.
#pragma once

#include <cstdint>

#include "config/broker_info.h"

namespace skiff::api {

// Every partition's leader epoch: one broker leads every partition from its
// creation and leadership never moves, so the epoch never advances.
inline constexpr int32_t kLeaderEpoch = 0;

// The broker's identity, as the handlers name it.
using config::AdvertisedEndpoint;
using config::BrokerInfo;

}  // namespace skiff::api
