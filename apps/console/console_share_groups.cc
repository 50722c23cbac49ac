// Share groups (KIP-932) in the console's group endpoints: members and
// their assignments from ShareGroupDescribe, each partition's start offset
// and lag from DescribeShareGroupOffsets v1 (the lag kafka-share-groups
// --describe shows: end offset - start offset - delivery-complete count),
// and its in-flight records from the broker's view (ConsoleBroker::
// share_in_flight; no Kafka API reports them).
#include <algorithm>
#include <tuple>

#include "apps/console/console_endpoints.h"
#include "protocol/generated/describe_share_group_offsets_request.h"
#include "protocol/generated/describe_share_group_offsets_response.h"
#include "protocol/generated/share_group_describe_request.h"
#include "protocol/generated/share_group_describe_response.h"

namespace skiff::console {
namespace {

protocol::ShareGroupDescribeResponse describe(client::InProcessClient& kafka, std::vector<std::string> ids) {
  protocol::ShareGroupDescribeRequest req;
  req.group_ids = std::move(ids);
  return kafka.call<protocol::ShareGroupDescribeResponse>(req, 1);
}

}  // namespace

std::map<std::string, int64_t> share_member_counts(client::InProcessClient& kafka,
                                                   const std::vector<std::string>& ids) {
  std::map<std::string, int64_t> out;
  if (ids.empty()) return out;
  for (const auto& d : describe(kafka, ids).groups)
    if (d.error_code == 0) out[d.group_id] = static_cast<int64_t>(d.members.size());
  return out;
}

std::vector<ShareOffset> share_offsets(client::InProcessClient& kafka, const std::string& group) {
  protocol::DescribeShareGroupOffsetsRequest req;
  auto& g = req.groups.emplace_back();
  g.group_id = group;
  g.topics = std::nullopt;  // every partition the group has state for
  auto resp = kafka.call<protocol::DescribeShareGroupOffsetsResponse>(req, 1);
  std::vector<ShareOffset> out;
  for (const auto& rg : resp.groups) {
    client::throw_if_kafka_error(rg.error_code, rg.error_message.value_or("group " + group));
    for (const auto& t : rg.topics)
      for (const auto& p : t.partitions)
        if (p.error_code == 0) out.push_back({t.topic_name, p.partition_index, p.start_offset, p.lag});
  }
  std::sort(out.begin(), out.end(), [](const ShareOffset& a, const ShareOffset& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  });
  return out;
}

void write_share_group(JsonWriter& w, ConsoleCall& call, const std::string& group) {
  auto resp = describe(call.kafka, {group});
  w.field("protocol", resp.groups.empty() ? std::string() : resp.groups[0].assignor_name);
  w.key("members").begin_array();
  for (const auto& d : resp.groups) {
    client::throw_if_kafka_error(d.error_code, d.error_message.value_or("group " + group));
    for (const auto& m : d.members) {
      w.begin_object().field("member_id", m.member_id).field("client_id", m.client_id).field("host", m.client_host);
      w.key("assignments").begin_array();
      for (const auto& tp : m.assignment.topic_partitions)
        for (int32_t p : tp.partitions)
          w.begin_object().field("topic", tp.topic_name).field("partition", p).end_object();
      w.end_array().end_object();
    }
  }
  w.end_array();
  const auto in_flight = call.broker.share_in_flight ? call.broker.share_in_flight(group) : ShareInFlight{};
  w.key("offsets").begin_array();
  for (const auto& o : share_offsets(call.kafka, group)) {
    w.begin_object().field("topic", o.topic).field("partition", o.partition);
    if (o.start_offset >= 0)
      w.field("start_offset", o.start_offset);
    else
      w.key("start_offset").null();  // initialized, not yet started (latest: set by the first fetch)
    if (o.lag >= 0)
      w.field("lag", o.lag);
    else
      w.key("lag").null();
    if (auto it = in_flight.find({o.topic, o.partition}); it != in_flight.end())
      w.field("in_flight", it->second);
    else
      w.key("in_flight").null();  // the broker has not loaded it (no member fetched since it started)
    w.end_object();
  }
  w.end_array();
}

}  // namespace skiff::console
