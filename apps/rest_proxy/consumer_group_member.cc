#include "apps/rest_proxy/consumer_group_member.h"

#include "apps/rest_proxy/consumer_assignor.h"
#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/v2_kafka.h"
#include "protocol/consumer_protocol.h"
#include "protocol/error_codes.h"
#include "protocol/generated/heartbeat_request.h"
#include "protocol/generated/heartbeat_response.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"

namespace skiff::restproxy {
namespace {

constexpr int kMaxJoinAttempts = 4;

bool is(int16_t code, ErrorCode e) { return code == skiff::code(e); }

}  // namespace

GroupMember::Joined GroupMember::send_join(client::InProcessClient& kafka, const std::vector<std::string>& topics) {
  protocol::JoinGroupRequest req;
  req.group_id = group_;
  req.session_timeout_ms = kSessionTimeoutMs;
  req.rebalance_timeout_ms = kRebalanceTimeoutMs;
  req.protocol_type = protocol::kConsumerProtocolType;
  auto& p = req.protocols.emplace_back();
  p.name = kRangeAssignor;
  p.metadata = encode_subscription(topics);
  for (int attempt = 0; attempt < kMaxJoinAttempts; ++attempt) {
    {
      std::lock_guard lock(mu_);
      req.member_id = member_id_;
    }
    auto resp = kafka.call<protocol::JoinGroupResponse>(req, 9);
    if (is(resp.error_code, ErrorCode::kMemberIdRequired) || is(resp.error_code, ErrorCode::kUnknownMemberId)) {
      std::lock_guard lock(mu_);
      member_id_ = is(resp.error_code, ErrorCode::kMemberIdRequired) ? resp.member_id : std::string();
      continue;
    }
    throw_v2(resp.error_code);
    Joined j{resp.generation_id, resp.member_id, resp.leader, resp.protocol_name.value_or(""), {}};
    for (auto& m : resp.members) j.members.emplace_back(m.member_id, std::move(m.metadata));
    std::lock_guard lock(mu_);
    member_id_ = j.member_id;
    generation_ = j.generation;
    return j;
  }
  throw RestError(500, 50003, "could not join group " + group_);
}

std::optional<std::set<TopicPartition>> GroupMember::sync(client::InProcessClient& kafka, const Joined& joined) {
  protocol::SyncGroupRequest req;
  req.group_id = group_;
  req.generation_id = joined.generation;
  req.member_id = joined.member_id;
  req.protocol_type = protocol::kConsumerProtocolType;
  req.protocol_name = joined.protocol;
  if (joined.leader == joined.member_id) {
    std::map<std::string, std::vector<std::string>> subscriptions;
    for (const auto& [id, metadata] : joined.members) {
      auto topics = protocol::subscribed_topics(metadata);
      subscriptions[id] =
          topics ? std::vector<std::string>(topics->begin(), topics->end()) : std::vector<std::string>{};
    }
    std::map<std::string, int32_t> counts;
    for (const auto& [name, topic] : metadata(kafka, nullptr).topics)
      counts[name] = static_cast<int32_t>(topic.partitions.size());
    for (const auto& [id, partitions] : range_assign(subscriptions, counts)) {
      auto& a = req.assignments.emplace_back();
      a.member_id = id;
      a.assignment = protocol::encode_assignment(0, partitions);
    }
  }
  auto resp = kafka.call<protocol::SyncGroupResponse>(req, 5);
  if (is(resp.error_code, ErrorCode::kRebalanceInProgress)) return std::nullopt;
  throw_v2(resp.error_code);
  auto named = protocol::decode_assignment(resp.assignment);
  if (!named) throw RestError(500, 50002, "Kafka error: the group's assignment does not parse");
  std::set<TopicPartition> out;
  for (const auto& [topic, partitions] : *named) {
    for (int32_t p : partitions) out.insert({topic, p});
  }
  return out;
}

std::set<TopicPartition> GroupMember::join(client::InProcessClient& kafka, const std::vector<std::string>& topics) {
  {
    std::lock_guard lock(mu_);
    joining_ = true;
    member_ = false;
  }
  struct Done {
    GroupMember& m;
    ~Done() {
      std::lock_guard lock(m.mu_);
      m.joining_ = false;
      m.last_heartbeat_ = Clock::now();
    }
  } done{*this};
  for (int attempt = 0; attempt < kMaxJoinAttempts; ++attempt) {
    auto assigned = sync(kafka, send_join(kafka, topics));
    if (!assigned) continue;
    std::lock_guard lock(mu_);
    member_ = true;
    return std::move(*assigned);
  }
  throw RestError(500, 50003, "the group " + group_ + " kept rebalancing");
}

void GroupMember::heartbeat_if_due(client::InProcessClient& kafka, Clock::time_point now) {
  protocol::HeartbeatRequest req;
  {
    std::lock_guard lock(mu_);
    if (!member_ || joining_ || now - last_heartbeat_ < kHeartbeatInterval) return;
    last_heartbeat_ = now;
    req.group_id = group_;
    req.generation_id = generation_;
    req.member_id = member_id_;
  }
  auto resp = kafka.call<protocol::HeartbeatResponse>(req, 4);
  if (resp.error_code == 0) return;
  std::lock_guard lock(mu_);
  if (req.generation_id != generation_) return;  // a join came in between
  member_ = false;
  if (is(resp.error_code, ErrorCode::kUnknownMemberId)) member_id_.clear();
  if (!is(resp.error_code, ErrorCode::kRebalanceInProgress)) generation_ = -1;
}

void GroupMember::leave(client::InProcessClient& kafka) {
  protocol::LeaveGroupRequest req;
  {
    std::lock_guard lock(mu_);
    if (member_id_.empty()) return;
    req.group_id = group_;
    req.members.emplace_back().member_id = member_id_;
    member_id_.clear();
    generation_ = -1;
    member_ = false;
  }
  try {
    kafka.call<protocol::LeaveGroupResponse>(req, 5);
  } catch (const std::exception&) {
    // the session times out instead
  }
}

bool GroupMember::needs_join() const {
  std::lock_guard lock(mu_);
  return !member_;
}

std::pair<int32_t, std::string> GroupMember::commit_identity() const {
  std::lock_guard lock(mu_);
  return {generation_, member_id_};
}

}  // namespace skiff::restproxy
