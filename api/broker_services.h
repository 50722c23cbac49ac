// BrokerServices: what the API handlers share — the configuration, this
// broker's identity, the logs, and the delayed-operation machinery. Owned by
// KafkaApis; every member is itself thread-safe.
#pragma once

#include "api/broker_info.h"
#include "config/broker_config.h"
#include "config/dynamic_broker_config.h"
#include "log/log_manager.h"

namespace skiff::api {

class Purgatory;
namespace group {
class GroupCoordinator;
}
namespace admin {
class ProducerIds;
}

struct BrokerServices {
  const config::BrokerConfig& config;
  const BrokerInfo& broker;
  storage::LogManager& logs;
  Purgatory* fetch_purgatory = nullptr;  // delayed fetches, woken by appends
  group::GroupCoordinator* groups = nullptr;  // consumer groups and committed offsets
  admin::ProducerIds* producer_ids = nullptr;  // InitProducerId's allocator
  // Runtime changes to broker configs (none: broker configs are read-only).
  config::DynamicBrokerConfig* dynamic = nullptr;
};

}  // namespace skiff::api
