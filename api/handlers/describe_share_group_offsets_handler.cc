#include "api/handlers/describe_share_group_offsets_handler.h"

#include <memory>
#include <mutex>
#include <set>

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::DescribeShareGroupOffsetsRequest;
using protocol::DescribeShareGroupOffsetsResponse;
using DescribeShareGroup = DescribeShareGroupOffsetsResponse::DescribeShareGroupOffsetsResponseGroup;
using DescribeShareTopic = DescribeShareGroupOffsetsResponse::DescribeShareGroupOffsetsResponseTopic;

// The groups' answers, gathered from the port's callbacks; the response
// goes when the last one is in.
struct ShareOffsetsGather {
  ShareOffsetsGather(Responder out, size_t n) : out(std::move(out)), left(n) { resp.groups.resize(n); }
  void put(size_t i, DescribeShareGroup g) {
    bool last = false;
    {
      std::lock_guard lock(mu);
      resp.groups[i] = std::move(g);
      last = --left == 0;
    }
    if (last) out.send(resp);
  }
  std::mutex mu;
  Responder out;
  DescribeShareGroupOffsetsResponse resp;
  size_t left;
};

DescribeShareTopic unauthorized_share_topic(const std::string& name, const std::vector<int32_t>& partitions) {
  DescribeShareTopic t;
  t.topic_name = name;
  for (int32_t p : partitions) {
    auto& wp = t.partitions.emplace_back();
    wp.partition_index = p;
    wp.start_offset = -1;
    wp.error_code = code(ErrorCode::kTopicAuthorizationFailed);
    wp.error_message = "Topic authorization failed.";
  }
  return t;
}

DescribeShareGroup share_offsets_to_wire(const std::string& group_id, group::ShareOffsetsDescription d,
                                         const std::set<std::string>& allowed, bool all) {
  DescribeShareGroup g;
  g.group_id = group_id;
  g.error_code = code(d.error);
  g.error_message = std::move(d.message);
  for (auto& t : d.topics) {
    if (all && !allowed.contains(t.topic)) continue;  // listing all: only the topics it may DESCRIBE
    auto& wt = g.topics.emplace_back();
    wt.topic_name = t.topic;
    wt.topic_id = t.topic_id;
    for (const auto& p : t.partitions) {
      auto& wp = wt.partitions.emplace_back();
      wp.partition_index = p.partition;
      wp.start_offset = p.start_offset;
      wp.leader_epoch = p.leader_epoch;
      wp.lag = p.lag;
      wp.error_code = code(p.error);
      wp.error_message = p.message;
    }
  }
  return g;
}

}  // namespace

// DESCRIBE on each group, else GROUP_AUTHORIZATION_FAILED for it; DESCRIBE on
// each named topic, else TOPIC_AUTHORIZATION_FAILED for its partitions.
void DescribeShareGroupOffsetsHandler::handle(ApiRequest& request, DescribeShareGroupOffsetsRequest& body,
                                              Responder& out) {
  if (body.groups.empty()) {
    out.send(DescribeShareGroupOffsetsResponse{});
    return;
  }
  auto gather = std::make_shared<ShareOffsetsGather>(out, body.groups.size());
  for (size_t i = 0; i < body.groups.size(); ++i) {
    auto& rg = body.groups[i];
    if (!authorized_group(services_, request, AclOperation::kDescribe, rg.group_id)) {
      DescribeShareGroup g;
      g.group_id = rg.group_id;
      g.error_code = code(ErrorCode::kGroupAuthorizationFailed);
      g.error_message = "Group authorization failed.";
      gather->put(i, std::move(g));
      continue;
    }
    std::vector<DescribeShareTopic> denied;
    std::set<std::string> allowed;
    std::optional<std::vector<group::ShareOffsetsTopicRequest>> topics;
    const bool all = !rg.topics.has_value();
    if (all) {
      for (const auto& t : services_.logs.list_topics())
        if (authorized_topic(services_, request, AclOperation::kDescribe, t.name)) allowed.insert(t.name);
    } else {
      topics.emplace();
      for (auto& t : *rg.topics) {
        if (authorized_topic(services_, request, AclOperation::kDescribe, t.topic_name))
          topics->push_back({t.topic_name, t.partitions});
        else
          denied.push_back(unauthorized_share_topic(t.topic_name, t.partitions));
      }
    }
    services_.groups->describe_share_offsets(
        rg.group_id, topics,
        [gather, i, id = rg.group_id, denied = std::move(denied), allowed = std::move(allowed),
         all](group::ShareOffsetsDescription d) mutable {
          auto g = share_offsets_to_wire(id, std::move(d), allowed, all);
          for (auto& t : denied) g.topics.push_back(std::move(t));
          gather->put(i, std::move(g));
        });
  }
}

DescribeShareGroupOffsetsResponse DescribeShareGroupOffsetsHandler::error_response(
    const DescribeShareGroupOffsetsRequest& body, ErrorCode error) {
  DescribeShareGroupOffsetsResponse resp;
  for (const auto& rg : body.groups) {
    auto& g = resp.groups.emplace_back();
    g.group_id = rg.group_id;
    g.error_code = code(error);
  }
  return resp;
}

}  // namespace skiff::api
