#include "api/handlers/quorum_admin_handlers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>
#include <vector>

#include "api/authorize.h"

namespace skiff::api {
namespace {

using protocol::AddRaftVoterRequest;
using protocol::AddRaftVoterResponse;
using protocol::RemoveRaftVoterRequest;
using protocol::RemoveRaftVoterResponse;
using protocol::UnregisterBrokerRequest;
using protocol::UnregisterBrokerResponse;
using protocol::UnregisterControllerRequest;
using protocol::UnregisterControllerResponse;

constexpr std::string_view kQuorumClusterAuthMessage = "Cluster authorization failed.";

// This node's voter key: its id and the directory.id of its first log dir
// (Kafka's metadata.log.dir defaults to it).
Uuid own_directory_id(const BrokerInfo& broker) { return Uuid::parse(broker.metadata_directory_id).value_or(Uuid{}); }

std::string voter_set_text(const BrokerInfo& broker) {
  return "[" + replica_key_text(broker.node_id, own_directory_id(broker)) + "]";
}

// KafkaRaftClient.hasValidClusterId: absent, or this cluster's.
std::optional<std::string> cluster_id_error(const std::optional<std::string>& given, const BrokerInfo& broker) {
  if (!given || *given == broker.cluster_id) return std::nullopt;
  return fmt::format("The given id \"{}\" doesn't match the cluster id \"{}\"", *given, broker.cluster_id);
}

// The listener Kafka's raft client talks on: the first controller listener.
std::string default_controller_listener(const BrokerInfo& broker) {
  return broker.controller_listeners.empty() ? std::string("CONTROLLER") : broker.controller_listeners.front();
}

std::string listener_upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// java.lang.String.hashCode over the (ASCII) name, spread as HashMap does.
uint32_t java_map_hash(const std::string& s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = 31 * h + c;
  return h ^ (h >> 16);
}

// The table size a java.util.HashMap created with capacity n ends with after n puts.
uint32_t java_map_capacity(size_t n) {
  uint32_t cap = 1;
  while (cap < n) cap <<= 1;
  for (size_t size = 1; size <= n; ++size)
    if (size > static_cast<size_t>(cap * 3 / 4)) cap <<= 1;
  return cap;
}

template <typename Body>
void fill_error(Body& resp, ErrorCode error, const std::optional<std::string>& message) {
  resp.error_code = code(error);
  resp.error_message = message;
}

}  // namespace

std::string replica_key_text(int32_t id, const Uuid& directory_id) {
  return fmt::format("ReplicaKey(id={}, directoryId={})", id,
                     directory_id.is_zero() ? std::string("<undefined>") : directory_id.to_string());
}

std::string add_voter_endpoints_text(const AddRaftVoterRequest& body) {
  std::vector<std::pair<std::string, std::string>> entries;  // insertion order, names unique
  for (const auto& l : body.listeners) {
    auto name = listener_upper(l.name);  // ListenerName.normalised
    auto address = fmt::format("{}/<unresolved>:{}", l.host, l.port);
    auto same = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == name; });
    if (same != entries.end())
      same->second = std::move(address);  // HashMap.put keeps the first place
    else
      entries.emplace_back(std::move(name), std::move(address));
  }
  const uint32_t cap = java_map_capacity(body.listeners.size());
  std::string out;
  for (uint32_t bucket = 0; bucket < cap; ++bucket) {
    for (const auto& [name, address] : entries) {
      if ((java_map_hash(name) & (cap - 1)) != bucket) continue;
      out += fmt::format("{}ListenerName({})={}", out.empty() ? "" : ", ", name, address);
    }
  }
  return "Endpoints(endpoints={" + out + "})";
}

// KafkaRaftClient.handleAddVoterRequest, then AddVoterHandler, in order.
void AddRaftVoterHandler::handle(ApiRequest& request, AddRaftVoterRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  const auto& broker = services_.broker;
  AddRaftVoterResponse resp;
  const std::string listener = default_controller_listener(broker);
  bool has_listener = false;
  for (const auto& l : body.listeners)
    has_listener = has_listener || listener_upper(l.name) == listener_upper(listener);
  if (auto why = cluster_id_error(body.cluster_id, broker)) {
    fill_error(resp, ErrorCode::kInconsistentClusterId, *why);
  } else if (body.voter_id < 0 || body.voter_directory_id.is_zero()) {
    fill_error(resp, ErrorCode::kInvalidRequest, "Add voter request didn't include a valid voter");
  } else if (!has_listener) {
    fill_error(
        resp, ErrorCode::kInvalidRequest,
        fmt::format("Add voter request didn't include the endpoint ({}) for the default listener ListenerName({})",
                    add_voter_endpoints_text(body), listener_upper(listener)));
  } else if (body.voter_id == broker.node_id) {
    fill_error(resp, ErrorCode::kDuplicateVoter,
               fmt::format("The voter id for {} is already part of the set of voters {}.",
                           replica_key_text(body.voter_id, body.voter_directory_id), voter_set_text(broker)));
  } else {
    // Kafka's leader asks the new voter's endpoint for ApiVersions first; no
    // Kafka controller can follow Skiff, so it is answered as when none answers.
    fill_error(resp, ErrorCode::kRequestTimedOut,
               "Aborted add voter operation for since API_VERSIONS returned an error BROKER_NOT_AVAILABLE");
  }
  out.send(resp);
}

AddRaftVoterResponse AddRaftVoterHandler::error_response(const AddRaftVoterRequest&, ErrorCode error) {
  AddRaftVoterResponse resp;  // AddRaftVoterRequest.getErrorResponse: the error's own message
  fill_error(resp, error,
             error == ErrorCode::kClusterAuthorizationFailed ? std::optional<std::string>(kQuorumClusterAuthMessage)
                                                             : std::nullopt);
  return resp;
}

// KafkaRaftClient.handleRemoveVoterRequest, then RemoveVoterHandler: the only
// voter is never removed (VoterSet.removeVoter needs another one left).
void RemoveRaftVoterHandler::handle(ApiRequest& request, RemoveRaftVoterRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  const auto& broker = services_.broker;
  RemoveRaftVoterResponse resp;
  if (auto why = cluster_id_error(body.cluster_id, broker)) {
    fill_error(resp, ErrorCode::kInconsistentClusterId, *why);
  } else if (body.voter_id < 0 || body.voter_directory_id.is_zero()) {
    fill_error(resp, ErrorCode::kInvalidRequest, "Remove voter request didn't include a valid voter");
  } else {
    fill_error(resp, ErrorCode::kVoterNotFound,
               fmt::format("Cannot remove voter {} from the set of voters {}",
                           replica_key_text(body.voter_id, body.voter_directory_id), voter_set_text(broker)));
  }
  out.send(resp);
}

RemoveRaftVoterResponse RemoveRaftVoterHandler::error_response(const RemoveRaftVoterRequest&, ErrorCode error) {
  RemoveRaftVoterResponse resp;
  fill_error(resp, error,
             error == ErrorCode::kClusterAuthorizationFailed ? std::optional<std::string>(kQuorumClusterAuthMessage)
                                                             : std::nullopt);
  return resp;
}

// QuorumController.unregisterBroker: this node is registered (and, as in
// Kafka, may be unregistered: success); no other broker ever is.
void UnregisterBrokerHandler::handle(ApiRequest& request, UnregisterBrokerRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  UnregisterBrokerResponse resp;
  if (body.broker_id == services_.broker.node_id)
    fill_error(resp, ErrorCode::kNone, std::nullopt);
  else
    fill_error(resp, ErrorCode::kBrokerIdNotRegistered,
               fmt::format("Broker ID {} is not currently registered", body.broker_id));
  out.send(resp);
}

UnregisterBrokerResponse UnregisterBrokerHandler::error_response(const UnregisterBrokerRequest&, ErrorCode error) {
  UnregisterBrokerResponse resp;
  fill_error(resp, error,
             error == ErrorCode::kClusterAuthorizationFailed ? std::optional<std::string>(kQuorumClusterAuthMessage)
                                                             : std::nullopt);
  return resp;
}

// QuorumController.unregisterController: the active controller refuses to
// unregister itself; no other controller is registered.
void UnregisterControllerHandler::handle(ApiRequest& request, UnregisterControllerRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlter)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  UnregisterControllerResponse resp;
  if (body.controller_id == services_.broker.node_id)
    fill_error(resp, ErrorCode::kInvalidRequest, "Controller cannot unregister itself while it is active.");
  else
    fill_error(resp, ErrorCode::kControllerIdNotRegistered,
               fmt::format("Controller ID {} is not currently registered.", body.controller_id));
  out.send(resp);
}

UnregisterControllerResponse UnregisterControllerHandler::error_response(const UnregisterControllerRequest&,
                                                                         ErrorCode error) {
  UnregisterControllerResponse resp;
  fill_error(resp, error,
             error == ErrorCode::kClusterAuthorizationFailed ? std::optional<std::string>(kQuorumClusterAuthMessage)
                                                             : std::nullopt);
  return resp;
}

}  // namespace skiff::api
