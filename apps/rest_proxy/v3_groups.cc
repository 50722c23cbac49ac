// v3 consumer groups, their consumers and lags (kafka-rest's
// ConsumerGroupsResource, ConsumersResource, ConsumerLagsResource,
// ConsumerGroupLagSummariesResource): ListGroups, DescribeGroups (classic
// groups) or ConsumerGroupDescribe (KIP-848 groups), OffsetFetch and
// ListOffsets through RestKafka. Consumer groups only: share and streams
// groups are not listed.
#include <algorithm>
#include <map>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/rest_kafka_errors.h"
#include "apps/rest_proxy/v3_api.h"
#include "apps/rest_proxy/v3_json.h"
#include "protocol/consumer_protocol.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_describe_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"

namespace skiff::restproxy {
namespace {

using TopicPartition = std::pair<std::string, int32_t>;

struct MemberView {
  std::string member_id, client_id;
  std::optional<std::string> instance_id;
  protocol::NamedPartitions owned;
};

struct GroupView {
  std::string id, state, type, assignor;
  bool simple = false;
  std::vector<MemberView> members;
};

// "PreparingRebalance" -> "PREPARING_REBALANCE" (Kafka's ConsumerGroupState names).
std::string state_name(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(s[i]);
    if (std::isupper(ch) && i > 0) out += '_';
    out += static_cast<char>(std::toupper(ch));
  }
  return out.empty() ? "UNKNOWN" : out;
}

struct Listed {
  std::string id, protocol_type, group_type;
};

std::vector<Listed> consumer_groups(client::InProcessClient& kafka) {
  auto resp = kafka.call<protocol::ListGroupsResponse>(protocol::ListGroupsRequest{}, 5);
  throw_kafka_error(resp.error_code);
  std::vector<Listed> out;
  for (const auto& g : resp.groups)
    if ((g.group_type == "consumer" || g.group_type == "classic" || g.group_type.empty()) &&
        (g.protocol_type == "consumer" || g.protocol_type.empty()))
      out.push_back({g.group_id, g.protocol_type, g.group_type});
  std::sort(out.begin(), out.end(), [](const Listed& a, const Listed& b) { return a.id < b.id; });
  return out;
}

GroupView describe_consumer_group(client::InProcessClient& kafka, const std::string& id) {
  protocol::ConsumerGroupDescribeRequest req;
  req.group_ids.push_back(id);
  GroupView g{id, "", "CONSUMER", "", false, {}};
  for (const auto& d : kafka.call<protocol::ConsumerGroupDescribeResponse>(req, 0).groups) {
    throw_kafka_error(d.error_code, d.error_message);
    g.state = state_name(d.group_state);
    g.assignor = d.assignor_name;
    for (const auto& m : d.members) {
      MemberView v{m.member_id, m.client_id, m.instance_id, {}};
      for (const auto& tp : m.assignment.topic_partitions)
        v.owned[tp.topic_name].insert(tp.partitions.begin(), tp.partitions.end());
      g.members.push_back(std::move(v));
    }
  }
  return g;
}

GroupView describe_classic_group(client::InProcessClient& kafka, const Listed& l) {
  protocol::DescribeGroupsRequest req;
  req.groups.push_back(l.id);
  GroupView g{l.id, "", "CLASSIC", "", l.protocol_type.empty(), {}};
  for (const auto& d : kafka.call<protocol::DescribeGroupsResponse>(req, 5).groups) {
    throw_kafka_error(d.error_code, d.error_message);
    g.state = state_name(d.group_state);
    g.assignor = d.protocol_data;
    g.simple = d.protocol_type.empty();
    for (const auto& m : d.members) {
      auto owned = d.protocol_type == "consumer" ? protocol::decode_assignment(m.member_assignment) : std::nullopt;
      g.members.push_back({m.member_id, m.client_id, m.group_instance_id, owned.value_or(protocol::NamedPartitions{})});
    }
  }
  return g;
}

GroupView find_group(client::InProcessClient& kafka, const std::string& id) {
  for (const auto& l : consumer_groups(kafka))
    if (l.id == id)
      return l.group_type == "consumer" ? describe_consumer_group(kafka, id) : describe_classic_group(kafka, l);
  throw RestError(404, 404, "Consumer Group " + id + " could not be found.");
}

int32_t coordinator_id(client::InProcessClient& kafka) {
  protocol::MetadataRequest req;
  req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{};
  auto resp = kafka.call<protocol::MetadataResponse>(req, 12);
  return resp.brokers.empty() ? -1 : resp.brokers.front().node_id;
}

std::string group_url(const V3Call& c, const std::string& group, std::initializer_list<std::string_view> more = {}) {
  std::string url = v3_url(c.call.base_uri, {"clusters", c.cluster_id, "consumer-groups", group});
  for (auto m : more) url += "/" + v3_url("", {m}).substr(4);  // each part percent-encoded
  return url;
}

void write_group(JsonWriter& w, const V3Call& c, const GroupView& g, int32_t coordinator) {
  begin_resource(w, "KafkaConsumerGroup", group_url(c, g.id),
                 v3_crn({{"kafka", c.cluster_id}, {"consumer-group", g.id}}));
  w.field("cluster_id", c.cluster_id).field("consumer_group_id", g.id).field("is_simple", g.simple);
  w.field("partition_assignor", g.assignor).field("state", g.state).field("type", g.type);
  w.field("is_mixed_consumer_group", false);
  related(w, "coordinator",
          v3_url(c.call.base_uri, {"clusters", c.cluster_id, "brokers", std::to_string(coordinator)}));
  related(w, "consumers", group_url(c, g.id, {"consumers"}));
  related(w, "lag_summary", group_url(c, g.id, {"lag-summary"}));
  w.end_object();
}

std::optional<network::HttpResponse> list_groups(V3Call& c) {
  const int32_t coordinator = coordinator_id(c.kafka);
  JsonWriter w;
  begin_collection(w, "KafkaConsumerGroupList", v3_url(c.call.base_uri, {"clusters", c.cluster_id, "consumer-groups"}));
  for (const auto& l : consumer_groups(c.kafka))
    write_group(
        w, c, l.group_type == "consumer" ? describe_consumer_group(c.kafka, l.id) : describe_classic_group(c.kafka, l),
        coordinator);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_group(V3Call& c) {
  const auto g = find_group(c.kafka, c.params[1]);
  JsonWriter w;
  write_group(w, c, g, coordinator_id(c.kafka));
  return json_response(w.take());
}

void write_consumer(JsonWriter& w, const V3Call& c, const GroupView& g, const MemberView& m) {
  begin_resource(w, "KafkaConsumer", group_url(c, g.id, {"consumers", m.member_id}),
                 v3_crn({{"kafka", c.cluster_id}, {"consumer-group", g.id}, {"consumer", m.member_id}}));
  w.field("cluster_id", c.cluster_id).field("consumer_group_id", g.id).field("consumer_id", m.member_id);
  w.field("instance_id", m.instance_id).field("client_id", m.client_id);
  related(w, "assignments", group_url(c, g.id, {"consumers", m.member_id, "assignments"}));
  w.end_object();
}

std::optional<network::HttpResponse> list_consumers(V3Call& c) {
  const auto g = find_group(c.kafka, c.params[1]);
  JsonWriter w;
  begin_collection(w, "KafkaConsumerList", group_url(c, g.id, {"consumers"}));
  for (const auto& m : g.members) write_consumer(w, c, g, m);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_consumer(V3Call& c) {
  const auto g = find_group(c.kafka, c.params[1]);
  for (const auto& m : g.members)
    if (m.member_id == c.params[2]) {
      JsonWriter w;
      write_consumer(w, c, g, m);
      return json_response(w.take());
    }
  throw RestError(404, 404, "Consumer " + c.params[2] + " could not be found.");
}

struct Lag {
  TopicPartition tp;
  int64_t current = 0, end = 0;
  const MemberView* member = nullptr;
};

std::vector<Lag> group_lags(client::InProcessClient& kafka, const GroupView& g) {
  protocol::OffsetFetchRequest req;
  auto& rg = req.groups.emplace_back();
  rg.group_id = g.id;
  rg.topics = std::nullopt;
  std::map<TopicPartition, int64_t> committed;
  for (const auto& group : kafka.call<protocol::OffsetFetchResponse>(req, 8).groups) {
    throw_kafka_error(group.error_code);
    for (const auto& t : group.topics)
      for (const auto& p : t.partitions)
        if (p.error_code == 0 && p.committed_offset >= 0) committed[{t.name, p.partition_index}] = p.committed_offset;
  }
  std::vector<Lag> out;
  if (committed.empty()) return out;
  protocol::ListOffsetsRequest lo;
  lo.replica_id = -1;
  for (const auto& [tp, offset] : committed) {
    if (lo.topics.empty() || lo.topics.back().name != tp.first) lo.topics.emplace_back().name = tp.first;
    auto& p = lo.topics.back().partitions.emplace_back();
    p.partition_index = tp.second;
    p.timestamp = -1;
  }
  std::map<TopicPartition, int64_t> ends;
  for (const auto& t : kafka.call<protocol::ListOffsetsResponse>(lo, 7).topics)
    for (const auto& p : t.partitions) ends[{t.name, p.partition_index}] = p.error_code == 0 ? p.offset : -1;
  for (const auto& [tp, offset] : committed) {
    Lag l{tp, offset, ends.count(tp) ? ends[tp] : -1, nullptr};
    for (const auto& m : g.members)
      if (auto it = m.owned.find(tp.first); it != m.owned.end() && it->second.count(tp.second)) l.member = &m;
    out.push_back(l);
  }
  return out;
}

void write_lag(JsonWriter& w, const V3Call& c, const GroupView& g, const Lag& l) {
  const auto pid = std::to_string(l.tp.second);
  begin_resource(w, "KafkaConsumerLag", group_url(c, g.id, {"lags", l.tp.first, "partitions", pid}),
                 v3_crn({{"kafka", c.cluster_id}, {"consumer-group", g.id}, {"lag", l.tp.first}, {"partition", pid}}));
  w.field("cluster_id", c.cluster_id).field("consumer_group_id", g.id).field("topic_name", l.tp.first);
  w.field("partition_id", l.tp.second).field("current_offset", l.current).field("log_end_offset", l.end);
  w.field("lag", std::max<int64_t>(l.end - l.current, 0));
  w.field("consumer_id", l.member ? l.member->member_id : std::string());
  w.field("instance_id", l.member ? l.member->instance_id : std::nullopt);
  w.field("client_id", l.member ? l.member->client_id : std::string()).end_object();
}

std::optional<network::HttpResponse> list_lags(V3Call& c) {
  const auto g = find_group(c.kafka, c.params[1]);
  auto lags = group_lags(c.kafka, g);
  std::sort(lags.begin(), lags.end(), [](const Lag& a, const Lag& b) { return a.end - a.current > b.end - b.current; });
  JsonWriter w;
  begin_collection(w, "KafkaConsumerLagList", group_url(c, g.id, {"lags"}));
  for (const auto& l : lags) write_lag(w, c, g, l);
  end_collection(w);
  return json_response(w.take());
}

std::optional<network::HttpResponse> get_lag(V3Call& c) {
  const auto g = find_group(c.kafka, c.params[1]);
  for (const auto& l : group_lags(c.kafka, g))
    if (l.tp.first == c.params[2] && std::to_string(l.tp.second) == c.params[3]) {
      JsonWriter w;
      write_lag(w, c, g, l);
      return json_response(w.take());
    }
  throw RestError(404, 404, "Consumer lag for " + c.params[2] + "-" + c.params[3] + " could not be found.");
}

std::optional<network::HttpResponse> lag_summary(V3Call& c) {
  const auto g = find_group(c.kafka, c.params[1]);
  const auto lags = group_lags(c.kafka, g);
  int64_t total = 0;
  const Lag* max = nullptr;
  for (const auto& l : lags) {
    const int64_t lag = std::max<int64_t>(l.end - l.current, 0);
    total += lag;
    if (!max || lag > max->end - max->current) max = &l;
  }
  JsonWriter w;
  begin_resource(w, "KafkaConsumerGroupLagSummary", group_url(c, g.id, {"lag-summary"}),
                 v3_crn({{"kafka", c.cluster_id}, {"consumer-group", g.id}, {"lag-summary", g.id}}));
  w.field("cluster_id", c.cluster_id).field("consumer_group_id", g.id);
  const MemberView* m = max ? max->member : nullptr;
  w.field("max_lag_consumer_id", m ? m->member_id : std::string());
  w.field("max_lag_instance_id", m ? m->instance_id : std::nullopt);
  w.field("max_lag_client_id", m ? m->client_id : std::string());
  w.field("max_lag_topic_name", max ? max->tp.first : std::string());
  w.field("max_lag_partition_id", max ? max->tp.second : 0);
  w.field("max_lag", max ? std::max<int64_t>(max->end - max->current, 0) : 0).field("total_lag", total);
  if (m) related(w, "max_lag_consumer", group_url(c, g.id, {"consumers", m->member_id}));
  if (max)
    related(w, "max_lag_partition",
            v3_url(c.call.base_uri,
                   {"clusters", c.cluster_id, "topics", max->tp.first, "partitions", std::to_string(max->tp.second)}));
  w.end_object();
  return json_response(w.take());
}

}  // namespace

void add_group_routes(std::vector<V3Api::Route>& r) {
  using P = std::vector<std::string>;
  const P groups{"v3", "clusters", "{}", "consumer-groups"};
  auto under = [&](std::initializer_list<std::string> more) {
    P p = groups;
    p.insert(p.end(), more);
    return p;
  };
  r.push_back({"GET", groups, "v3.consumer-groups.list", list_groups});
  r.push_back({"GET", under({"{}"}), "v3.consumer-groups.get", get_group});
  r.push_back({"GET", under({"{}", "consumers"}), "v3.consumers.list", list_consumers});
  r.push_back({"GET", under({"{}", "consumers", "{}"}), "v3.consumers.get", get_consumer});
  r.push_back({"GET", under({"{}", "lag-summary"}), "v3.consumer-group-lag-summaries.get", lag_summary});
  r.push_back({"GET", under({"{}", "lags"}), "v3.consumer-lags.list", list_lags});
  r.push_back({"GET", under({"{}", "lags", "{}", "partitions", "{}"}), "v3.consumer-lags.get", get_lag});
}

}  // namespace skiff::restproxy
