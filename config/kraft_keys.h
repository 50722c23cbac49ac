// The KRaft keys of a single combined node (config/kraft_settings.h): their
// rows of the one key table, and the check that they describe one node that
// is its own controller. Called by the loader only (startup, one thread).
#pragma once

#include <vector>

#include "config/broker_config.h"
#include "config/config_def.h"

namespace skiff::config {

// process.roles, controller.quorum.voters, controller.quorum.bootstrap.servers,
// controller.listener.names, inter.broker.listener.name,
// security.inter.broker.protocol, offsets.topic.replication.factor.
void add_kraft_keys(std::vector<ConfigKeyDef>& defs);

// With process.roles set: broker and controller both, one voter that is this
// node (node.id) on one of its controller listeners, controller and
// inter-broker listeners among `listeners`, and the internal topics'
// replication factors and min ISR, where set, 1. Throws ConfigError naming
// the keys and what one node needs.
void check_single_node_kraft(const BrokerConfig& cfg);

}  // namespace skiff::config
