// What a KRaft controller listener (controller.listener.names) serves a
// client, as Kafka's does: the APIs whose message schema lists the
// "controller" listener (protocol/schemas/*Request.json, Kafka 4.4) and that
// Skiff serves. ApiVersions on such a listener advertises only those
// (api/handlers/api_versions_handler.cc); any other request closes the
// connection, as Kafka's SocketServer does for an API not enabled on the
// listener (api/kafka_apis.cc). Fetch is listed for the controller in Kafka
// for its metadata log, which Skiff does not have: not served there. Pure;
// any thread.
#pragma once

#include <cstdint>

namespace skiff::api {

inline bool served_on_controller_listener(int16_t api_key) {
  switch (api_key) {
    case 17:  // SaslHandshake
    case 18:  // ApiVersions
    case 19:  // CreateTopics
    case 20:  // DeleteTopics
    case 29:  // DescribeAcls
    case 30:  // CreateAcls
    case 31:  // DeleteAcls
    case 32:  // DescribeConfigs
    case 33:  // AlterConfigs
    case 36:  // SaslAuthenticate
    case 37:  // CreatePartitions
    case 43:  // ElectLeaders
    case 44:  // IncrementalAlterConfigs
    case 45:  // AlterPartitionReassignments
    case 46:  // ListPartitionReassignments
    case 49:  // AlterClientQuotas
    case 50:  // DescribeUserScramCredentials
    case 51:  // AlterUserScramCredentials
    case 55:  // DescribeQuorum
    case 57:  // UpdateFeatures
    case 60:  // DescribeCluster
      return true;
    default:
      return false;
  }
}

}  // namespace skiff::api
