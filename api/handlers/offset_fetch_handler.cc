#include "api/handlers/offset_fetch_handler.h"

#include <functional>
#include <map>
#include <optional>

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::OffsetFetchResponse;

// One group's answer in the v8+ shape (converted for older versions below).
// `member`: v9+'s member id and epoch (checked against a consumer group's member).
struct Member {
  std::optional<std::string> id;
  int32_t epoch = -1;
};

OffsetFetchResponse::OffsetFetchResponseGroup fetch_group(
    group::GroupCoordinator& groups, const std::string& group_id,
    const std::optional<std::vector<group::TopicPartition>>& wanted, bool require_stable, const Member& member = {}) {
  OffsetFetchResponse::OffsetFetchResponseGroup out;
  out.group_id = group_id;
  auto r = groups.fetch_offsets(group_id, wanted, require_stable, member.id, member.epoch);
  out.error_code = code(r.error);
  std::map<std::string, size_t> topic_index;
  for (const auto& f : r.offsets) {
    auto [it, added] = topic_index.try_emplace(f.tp.topic, out.topics.size());
    if (added) out.topics.emplace_back().name = f.tp.topic;
    auto& p = out.topics[it->second].partitions.emplace_back();
    p.partition_index = f.tp.partition;
    p.committed_offset = f.committed ? f.committed->offset : -1;
    p.committed_leader_epoch = f.committed ? f.committed->leader_epoch : -1;
    p.metadata = f.committed ? f.committed->metadata : std::string();
    // UNSTABLE_OFFSET_COMMIT is per partition; the group's error stays NONE (Kafka 4.4).
    p.error_code = code(r.error != ErrorCode::kNone ? r.error : f.error);
  }
  return out;
}

// May the principal see this topic's offsets (DESCRIBE)? Kafka leaves the
// topics it may not out of an all-topics answer, and answers each partition
// asked for with TOPIC_AUTHORIZATION_FAILED.
using MayDescribe = std::function<bool(const std::string&)>;

void refuse_partitions(OffsetFetchResponse::OffsetFetchResponseTopics& t) {
  for (auto& p : t.partitions) {
    p.committed_offset = -1;
    p.committed_leader_epoch = -1;
    p.metadata = "";
    p.error_code = code(ErrorCode::kTopicAuthorizationFailed);
  }
}

void filter_topics(OffsetFetchResponse::OffsetFetchResponseGroup& g, bool all_topics, const MayDescribe& may) {
  if (all_topics) {
    std::erase_if(g.topics, [&](const auto& t) { return !may(t.name); });
    return;
  }
  for (auto& t : g.topics)
    if (!may(t.name)) refuse_partitions(t);
}

template <class Topics>
std::optional<std::vector<group::TopicPartition>> wanted_partitions(const std::optional<Topics>& topics) {
  if (!topics) return std::nullopt;
  std::vector<group::TopicPartition> out;
  for (const auto& t : *topics)
    for (int32_t p : t.partition_indexes) out.push_back({t.name, p});
  return out;
}

// v10 (KIP-848) names topics by id. A known id is fetched by its name; an
// unknown one (the zero id included) answers offset -1 with UNKNOWN_TOPIC_ID
// for each partition asked, as Kafka 4.4. All topics (null) are named by
// their ids; a topic deleted meanwhile took its offsets with it and is left out.
OffsetFetchResponse::OffsetFetchResponseGroup fetch_group_by_ids(
    BrokerServices& services, const protocol::OffsetFetchRequest::OffsetFetchRequestGroup& g, bool stable,
    const MayDescribe& may) {
  auto& groups = *services.groups;
  const Member member{g.member_id, g.member_epoch};
  if (!g.topics) {
    auto out = fetch_group(groups, g.group_id, std::nullopt, stable, member);
    std::erase_if(out.topics, [&](auto& t) {
      auto info = services.logs.topic(t.name);
      if (info) t.topic_id = info->topic_id;
      return !info || !may(t.name);
    });
    return out;
  }
  std::vector<std::optional<storage::TopicInfo>> infos;
  std::vector<group::TopicPartition> wanted;
  for (const auto& t : *g.topics) {
    const auto& info = infos.emplace_back(services.logs.topic_by_id(t.topic_id));
    if (info)
      for (int32_t p : t.partition_indexes) wanted.push_back({info->name, p});
  }
  auto fetched = fetch_group(groups, g.group_id, wanted, stable, member);
  if (fetched.error_code != code(ErrorCode::kNone)) return fetched;  // a member check failed: the group's error
  OffsetFetchResponse::OffsetFetchResponseGroup out;
  out.group_id = g.group_id;
  out.error_code = fetched.error_code;
  for (size_t i = 0; i < g.topics->size(); ++i) {
    const auto& asked = (*g.topics)[i];
    auto& rt = out.topics.emplace_back();
    rt.topic_id = asked.topic_id;
    if (!infos[i]) {
      for (int32_t p : asked.partition_indexes) {
        auto& rp = rt.partitions.emplace_back();
        rp.partition_index = p;
        rp.committed_offset = -1;
        rp.error_code = code(ErrorCode::kUnknownTopicId);
      }
      continue;
    }
    for (const auto& ft : fetched.topics)
      if (ft.name == infos[i]->name) rt.partitions = ft.partitions;
    if (!may(infos[i]->name)) refuse_partitions(rt);
  }
  return out;
}

}  // namespace

// DESCRIBE on each group (else GROUP_AUTHORIZATION_FAILED for it) and on
// each topic (filter_topics), as KafkaApis.handleOffsetFetchRequest.
void OffsetFetchHandler::handle(ApiRequest& request, protocol::OffsetFetchRequest& body, Responder& out) {
  OffsetFetchResponse resp;
  auto& groups = *services_.groups;
  const bool stable = request.api_version() >= 7 && body.require_stable;
  const MayDescribe may = [&](const std::string& topic) {
    return authorized_topic(services_, request, AclOperation::kDescribe, topic);
  };
  auto group_allowed = [&](const std::string& id) {
    return authorized_group(services_, request, AclOperation::kDescribe, id);
  };
  auto refused = [](const std::string& id) {
    OffsetFetchResponse::OffsetFetchResponseGroup g;
    g.group_id = id;
    g.error_code = code(ErrorCode::kGroupAuthorizationFailed);
    return g;
  };
  if (request.api_version() >= 8) {
    for (const auto& g : body.groups) {
      if (!group_allowed(g.group_id)) {
        resp.groups.push_back(refused(g.group_id));
      } else if (request.api_version() >= 10) {
        resp.groups.push_back(fetch_group_by_ids(services_, g, stable, may));
      } else {
        auto rg = fetch_group(groups, g.group_id, wanted_partitions(g.topics), stable, {g.member_id, g.member_epoch});
        filter_topics(rg, !g.topics, may);
        resp.groups.push_back(std::move(rg));
      }
    }
    out.send(resp);
    return;
  }
  if (!group_allowed(body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  auto g = fetch_group(groups, body.group_id, wanted_partitions(body.topics), stable);
  filter_topics(g, !body.topics, may);
  resp.error_code = g.error_code;
  for (auto& t : g.topics) {
    auto& rt = resp.topics.emplace_back();
    rt.name = t.name;
    for (auto& p : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = p.partition_index;
      rp.committed_offset = p.committed_offset;
      rp.committed_leader_epoch = p.committed_leader_epoch;
      rp.metadata = p.metadata;
      rp.error_code = p.error_code;
    }
  }
  out.send(resp);
}

OffsetFetchResponse OffsetFetchHandler::error_response(const protocol::OffsetFetchRequest& body, ErrorCode error) {
  OffsetFetchResponse resp;
  resp.error_code = code(error);
  for (const auto& g : body.groups) {
    auto& rg = resp.groups.emplace_back();
    rg.group_id = g.group_id;
    rg.error_code = code(error);
  }
  if (body.topics) {
    for (const auto& t : *body.topics) {
      auto& rt = resp.topics.emplace_back();
      rt.name = t.name;
      for (int32_t p : t.partition_indexes) {
        auto& rp = rt.partitions.emplace_back();
        rp.partition_index = p;
        rp.committed_offset = -1;
        rp.error_code = code(error);
      }
    }
  }
  return resp;
}

}  // namespace skiff::api
