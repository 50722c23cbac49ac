// KraftSettings: the KRaft keys a single combined Kafka node is given
// (process.roles, controller.quorum.voters, controller.listener.names,
// inter.broker.listener.name, ...), as the apache/kafka image and the test
// suites that start it set them. Skiff is one node that is its own
// controller: the keys are accepted, checked against that
// (config/kraft_keys.cc), and the controller listeners are bound and answer a
// client as Kafka's controller listener does (api/kafka_apis.cc). Plain
// values, read-only after loading like the rest of BrokerConfig.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skiff::config {

// One entry of controller.quorum.voters: id@host:port (KIP-853 adds an
// optional -directory id, id-dir@host:port, kept as written).
struct QuorumVoter {
  int32_t id = 0;
  std::string host;
  uint16_t port = 0;
};

struct KraftSettings {
  std::vector<std::string> process_roles;              // process.roles: empty or broker and controller
  std::vector<QuorumVoter> quorum_voters;              // controller.quorum.voters
  std::vector<std::string> quorum_bootstrap_servers;   // controller.quorum.bootstrap.servers, host:port
  std::vector<std::string> controller_listener_names;  // controller.listener.names
  std::string inter_broker_listener_name;              // inter.broker.listener.name
  std::string inter_broker_security_protocol;          // security.inter.broker.protocol
  int16_t offsets_topic_replication_factor = 3;        // offsets.topic.replication.factor
  // CLUSTER_ID of the apache/kafka image (what kafka-storage format is
  // given): the cluster id of fresh log dirs; empty: a random one.
  std::string cluster_id;

  bool is_controller_listener(const std::string& listener) const;
};

}  // namespace skiff::config
