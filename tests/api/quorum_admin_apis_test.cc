// The quorum admin APIs (api/handlers/quorum_admin_handlers.h): each error
// and message pinned to what a one-node combined Kafka 4.4 answered
// (scripts/kafka-broker.sh, asked with kafka-metadata-quorum, kafka-cluster
// and the Admin API; directory ids and the cluster id are this node's).
#include "api/handlers/quorum_admin_handlers.h"
#include "protocol/generated/add_raft_voter_request.h"
#include "protocol/generated/add_raft_voter_response.h"
#include "protocol/generated/remove_raft_voter_request.h"
#include "protocol/generated/remove_raft_voter_response.h"
#include "protocol/generated/unregister_broker_request.h"
#include "protocol/generated/unregister_broker_response.h"
#include "protocol/generated/unregister_controller_request.h"
#include "protocol/generated/unregister_controller_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

constexpr int16_t kInvalidRequest = 42, kClusterAuthorizationFailed = 31, kRequestTimedOut = 7,
                  kBrokerIdNotRegistered = 102, kInconsistentClusterId = 104, kDuplicateVoter = 126,
                  kVoterNotFound = 127, kControllerIdNotRegistered = 136;

const Uuid kOtherDir = *Uuid::parse("Ca7nk3kzQ9WGxCDvNDIJ5g");

AddRaftVoterRequest add_voter_request(int32_t id, Uuid dir,
                                      std::vector<std::tuple<std::string, std::string, uint16_t>> ls) {
  AddRaftVoterRequest req;
  req.cluster_id = std::nullopt;
  req.timeout_ms = 30000;
  req.voter_id = id;
  req.voter_directory_id = dir;
  for (auto& [name, host, port] : ls) {
    AddRaftVoterRequest::Listener l;
    l.name = name;
    l.host = host;
    l.port = port;
    req.listeners.push_back(l);
  }
  return req;
}

RemoveRaftVoterRequest remove_voter_request(int32_t id, Uuid dir) {
  RemoveRaftVoterRequest req;
  req.cluster_id = std::nullopt;
  req.voter_id = id;
  req.voter_directory_id = dir;
  return req;
}

std::string own_voter_set(test::ApiHarness& h) {
  return "[ReplicaKey(id=1, directoryId=" + h.broker().metadata_directory_id + ")]";
}

}  // namespace

TEST_CASE("AddRaftVoter: Kafka 4.4's one-voter answers, in its order", "[api][quorum]") {
  test::ApiHarness h;
  REQUIRE(h.broker().metadata_directory_id.size() == 22);
  const std::vector<std::tuple<std::string, std::string, uint16_t>> controller = {{"CONTROLLER", "localhost", 9999}};
  for (int16_t v = 0; v <= 1; ++v) {
    INFO("version " << v);
    auto dup = h.call<AddRaftVoterResponse>(add_voter_request(1, kOtherDir, controller), v);
    CHECK(dup.error_code == kDuplicateVoter);
    CHECK(dup.error_message ==
          "The voter id for ReplicaKey(id=1, directoryId=Ca7nk3kzQ9WGxCDvNDIJ5g) is already part "
          "of the set of voters " +
              own_voter_set(h) + ".");
    auto fresh = h.call<AddRaftVoterResponse>(add_voter_request(2, kOtherDir, controller), v);
    CHECK(fresh.error_code == kRequestTimedOut);
    CHECK(fresh.error_message ==
          "Aborted add voter operation for since API_VERSIONS returned an error BROKER_NOT_AVAILABLE");
  }
  auto zero = h.call<AddRaftVoterResponse>(add_voter_request(2, Uuid{}, controller), 1);
  CHECK(zero.error_code == kInvalidRequest);
  CHECK(zero.error_message == "Add voter request didn't include a valid voter");
  auto no_listener =
      h.call<AddRaftVoterResponse>(add_voter_request(2, kOtherDir, {{"PLAINTEXT", "localhost", 9999}}), 1);
  CHECK(no_listener.error_code == kInvalidRequest);
  CHECK(no_listener.error_message ==
        "Add voter request didn't include the endpoint (Endpoints(endpoints={ListenerName(PLAINTEXT)=localhost/"
        "<unresolved>:9999})) for the default listener ListenerName(CONTROLLER)");
  auto req = add_voter_request(2, kOtherDir, controller);
  req.cluster_id = "abc";
  auto other_cluster = h.call<AddRaftVoterResponse>(req, 1);
  CHECK(other_cluster.error_code == kInconsistentClusterId);
  CHECK(other_cluster.error_message ==
        "The given id \"abc\" doesn't match the cluster id \"" + h.broker().cluster_id + "\"");
}

TEST_CASE("AddRaftVoter: the endpoints in the order of Kafka's HashMap", "[api][quorum]") {
  // Kafka 4.4: {ListenerName(SSL)=h/<unresolved>:1, ListenerName(PLAINTEXT)=localhost/<unresolved>:9999}
  auto req = add_voter_request(2, kOtherDir, {{"PLAINTEXT", "localhost", 9999}, {"SSL", "h", 1}});
  CHECK(
      api::add_voter_endpoints_text(req) ==
      "Endpoints(endpoints={ListenerName(SSL)=h/<unresolved>:1, ListenerName(PLAINTEXT)=localhost/<unresolved>:9999})");
  CHECK(api::replica_key_text(3, Uuid{}) == "ReplicaKey(id=3, directoryId=<undefined>)");
}

TEST_CASE("RemoveRaftVoter: the only voter is never removed", "[api][quorum]") {
  test::ApiHarness h;
  const auto own = *Uuid::parse(h.broker().metadata_directory_id);
  for (auto [id, dir] : {std::pair<int32_t, Uuid>{1, own}, {1, kOtherDir}, {2, kOtherDir}}) {
    auto r = h.call<RemoveRaftVoterResponse>(remove_voter_request(id, dir), 0);
    CHECK(r.error_code == kVoterNotFound);
    CHECK(r.error_message == "Cannot remove voter ReplicaKey(id=" + std::to_string(id) +
                                 ", directoryId=" + dir.to_string() + ") from the set of voters " + own_voter_set(h));
  }
  auto zero = h.call<RemoveRaftVoterResponse>(remove_voter_request(1, Uuid{}), 0);
  CHECK(zero.error_code == kInvalidRequest);
  CHECK(zero.error_message == "Remove voter request didn't include a valid voter");
  auto req = remove_voter_request(1, own);
  req.cluster_id = "abc";
  CHECK(h.call<RemoveRaftVoterResponse>(req, 0).error_code == kInconsistentClusterId);
}

TEST_CASE("UnregisterBroker and UnregisterController: Kafka 4.4's answers", "[api][quorum]") {
  test::ApiHarness h;
  UnregisterBrokerRequest ub;
  ub.broker_id = 5;
  auto unknown = h.call<UnregisterBrokerResponse>(ub, 0);
  CHECK(unknown.error_code == kBrokerIdNotRegistered);
  CHECK(unknown.error_message == "Broker ID 5 is not currently registered");
  ub.broker_id = 1;  // Kafka unregisters its own broker: "Broker 1 is no longer registered."
  auto self = h.call<UnregisterBrokerResponse>(ub, 0);
  CHECK(self.error_code == 0);
  CHECK(!self.error_message);

  UnregisterControllerRequest uc;
  uc.controller_id = 5;
  auto other = h.call<UnregisterControllerResponse>(uc, 0);
  CHECK(other.error_code == kControllerIdNotRegistered);
  CHECK(other.error_message == "Controller ID 5 is not currently registered.");
  uc.controller_id = 1;
  auto active = h.call<UnregisterControllerResponse>(uc, 0);
  CHECK(active.error_code == kInvalidRequest);
  CHECK(active.error_message == "Controller cannot unregister itself while it is active.");
}

TEST_CASE("the quorum admin APIs need ALTER on the cluster", "[api][quorum][acl]") {
  test::ApiHarness h(
      {"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer", "super.users=User:admin"});
  h.set_principal("User:a");
  auto add = h.call<AddRaftVoterResponse>(add_voter_request(1, kOtherDir, {{"CONTROLLER", "h", 1}}), 1);
  CHECK(add.error_code == kClusterAuthorizationFailed);
  CHECK(add.error_message == "Cluster authorization failed.");
  CHECK(h.call<RemoveRaftVoterResponse>(remove_voter_request(1, kOtherDir), 0).error_code ==
        kClusterAuthorizationFailed);
  UnregisterBrokerRequest ub;
  ub.broker_id = 1;
  CHECK(h.call<UnregisterBrokerResponse>(ub, 0).error_code == kClusterAuthorizationFailed);
  UnregisterControllerRequest uc;
  uc.controller_id = 1;
  CHECK(h.call<UnregisterControllerResponse>(uc, 0).error_code == kClusterAuthorizationFailed);
  h.set_principal("User:admin");
  CHECK(h.call<UnregisterBrokerResponse>(ub, 0).error_code == 0);
}
