// The KRaft quorum admin APIs, answered as a one-node combined Kafka 4.4
// (broker+controller, one voter: this node, formatted --standalone) answers
// them, so `kafka-metadata-quorum add-controller / remove-controller` and
// `kafka-cluster unregister` fail (or succeed) as they do against Kafka:
//   AddRaftVoter (80, v0-1), RemoveRaftVoter (81, v0): Kafka's
//     KafkaRaftClient and Add/RemoveVoterHandler checks, in their order:
//     cluster id, a valid voter key (id >= 0, non-zero directory id), the
//     endpoint on the default controller listener (add), then the voter set
//     {this node, the directory.id of its first log dir}: DUPLICATE_VOTER for
//     this node's id, VOTER_NOT_FOUND for any removal (a different key, or the
//     only voter, which Kafka never removes). A new voter would have to be a
//     Kafka controller replicating a metadata log Skiff does not have: answered
//     as Kafka's leader answers when the new voter's endpoint does not answer
//     its ApiVersions (REQUEST_TIMED_OUT, "... BROKER_NOT_AVAILABLE").
//   UnregisterBroker (64, v0): BROKER_ID_NOT_REGISTERED for any other id; this
//     node's id succeeds, as in Kafka, but Skiff stays registered (one node:
//     nothing to unregister it from).
//   UnregisterController (94, v0): CONTROLLER_ID_NOT_REGISTERED for any other
//     id; INVALID_REQUEST for this node, the active controller.
// All need ALTER on the cluster (Kafka's ControllerApis); refused with
// CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.". Served on
// the broker and the controller listeners alike (their schemas list both).
// Stateless; any request thread.
#pragma once

#include <string>

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/add_raft_voter_request.h"
#include "protocol/generated/add_raft_voter_response.h"
#include "protocol/generated/remove_raft_voter_request.h"
#include "protocol/generated/remove_raft_voter_response.h"
#include "protocol/generated/unregister_broker_request.h"
#include "protocol/generated/unregister_broker_response.h"
#include "protocol/generated/unregister_controller_request.h"
#include "protocol/generated/unregister_controller_response.h"

namespace skiff::api {

// Kafka's ReplicaKey.toString: "ReplicaKey(id=1, directoryId=<base64>)", or
// "<undefined>" for the zero directory id.
std::string replica_key_text(int32_t id, const Uuid& directory_id);

// Kafka's Endpoints.toString of an AddRaftVoter request's listeners, in the
// iteration order of the java.util.HashMap Kafka keeps them in:
// "Endpoints(endpoints={ListenerName(SSL)=h/<unresolved>:1, ...})".
std::string add_voter_endpoints_text(const protocol::AddRaftVoterRequest& body);

class AddRaftVoterHandler : public TypedApiHandler<protocol::AddRaftVoterRequest, protocol::AddRaftVoterResponse> {
 public:
  explicit AddRaftVoterHandler(BrokerServices& services)
      : TypedApiHandler(protocol::AddRaftVoterRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::AddRaftVoterRequest& body, Responder& out) override;
  protocol::AddRaftVoterResponse error_response(const protocol::AddRaftVoterRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

class RemoveRaftVoterHandler
    : public TypedApiHandler<protocol::RemoveRaftVoterRequest, protocol::RemoveRaftVoterResponse> {
 public:
  explicit RemoveRaftVoterHandler(BrokerServices& services)
      : TypedApiHandler(protocol::RemoveRaftVoterRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::RemoveRaftVoterRequest& body, Responder& out) override;
  protocol::RemoveRaftVoterResponse error_response(const protocol::RemoveRaftVoterRequest& body,
                                                   ErrorCode error) override;

 private:
  BrokerServices& services_;
};

class UnregisterBrokerHandler
    : public TypedApiHandler<protocol::UnregisterBrokerRequest, protocol::UnregisterBrokerResponse> {
 public:
  explicit UnregisterBrokerHandler(BrokerServices& services)
      : TypedApiHandler(protocol::UnregisterBrokerRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::UnregisterBrokerRequest& body, Responder& out) override;
  protocol::UnregisterBrokerResponse error_response(const protocol::UnregisterBrokerRequest& body,
                                                    ErrorCode error) override;

 private:
  BrokerServices& services_;
};

class UnregisterControllerHandler
    : public TypedApiHandler<protocol::UnregisterControllerRequest, protocol::UnregisterControllerResponse> {
 public:
  explicit UnregisterControllerHandler(BrokerServices& services)
      : TypedApiHandler(protocol::UnregisterControllerRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::UnregisterControllerRequest& body, Responder& out) override;
  protocol::UnregisterControllerResponse error_response(const protocol::UnregisterControllerRequest& body,
                                                        ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
