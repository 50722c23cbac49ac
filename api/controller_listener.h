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

#include <algorithm>
#include <array>
#include <cstdint>

namespace skiff::api {

// SaslHandshake, ApiVersions, CreateTopics, DeleteTopics, DescribeAcls,
// CreateAcls, DeleteAcls, DescribeConfigs, AlterConfigs, SaslAuthenticate,
// CreatePartitions, ElectLeaders, IncrementalAlterConfigs,
// AlterPartitionReassignments, ListPartitionReassignments,
// AlterClientQuotas, DescribeUserScramCredentials, AlterUserScramCredentials,
// DescribeQuorum, UpdateFeatures, DescribeCluster, UnregisterBroker,
// AddRaftVoter, RemoveRaftVoter, UnregisterController.
inline constexpr std::array<int16_t, 25> kControllerListenerApis = {17, 18, 19, 20, 29, 30, 31, 32, 33, 36, 37, 43, 44,
                                                                    45, 46, 49, 50, 51, 55, 57, 60, 64, 80, 81, 94};

inline bool served_on_controller_listener(int16_t api_key) {
  return std::find(kControllerListenerApis.begin(), kControllerListenerApis.end(), api_key) !=
         kControllerListenerApis.end();
}

}  // namespace skiff::api
