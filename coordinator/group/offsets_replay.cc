#include "coordinator/group/offsets_replay.h"

namespace skiff::group {

LoadedGroup* OffsetsReplay::existing(const std::string& group) {
  auto it = groups_.find(group);
  return it == groups_.end() ? nullptr : &it->second;
}

void OffsetsReplay::apply(const OffsetsLogRecord& r) {
  using Kind = OffsetsLogRecord::Kind;
  if (r.kind == Kind::kOffset) {
    if (r.offset) {
      auto& g = groups_[r.group];
      g.offsets[r.tp] = *r.offset;
      for (auto& [pid, offsets] : g.pending)
        if (auto it = offsets.find(r.tp); it != offsets.end()) it->second.superseded = true;
    } else if (auto* g = existing(r.group)) {
      g->offsets.erase(r.tp);
      for (auto& [pid, offsets] : g->pending) offsets.erase(r.tp);
      std::erase_if(g->pending, [](const auto& kv) { return kv.second.empty(); });
    }
  } else if (r.kind == Kind::kConsumer) {
    apply_consumer(*r.consumer);
  } else if (r.kind == Kind::kShare) {
    apply_share(*r.share);
  } else if (r.kind == Kind::kStreams) {
    apply_streams(*r.streams);
  } else if (r.kind == Kind::kGroup) {
    if (r.group_value)
      groups_[r.group].group = *r.group_value;
    else
      groups_.erase(r.group);
  }
}

void OffsetsReplay::apply_consumer(const ConsumerGroupRecord& r) {
  if (r.type == kConsumerGroupPartitionMetadataType) return;  // Kafka < 4.1's; the hash replaces it
  if (r.type == kConsumerGroupMetadataType && r.tombstone) {
    if (auto* g = existing(r.group_id)) g->consumer.reset();
    return;
  }
  auto& cg = groups_[r.group_id].consumer;
  if (!cg) cg.emplace();
  switch (r.type) {
    case kConsumerGroupMetadataType:
      cg->epoch = r.epoch;
      cg->metadata_hash = r.metadata_hash;
      break;
    case kConsumerRegexType:
      if (r.tombstone) {
        cg->regexes.erase(r.regex);
      } else {
        cg->regexes[r.regex] = r.resolved;
      }
      break;
    case kConsumerTargetMetadataType:
      if (!r.tombstone) cg->assignment_epoch = r.epoch;
      break;
    case kConsumerTargetMemberType:
      if (r.tombstone) {
        cg->targets.erase(r.member_id);
      } else {
        cg->targets[r.member_id] = r.target;
      }
      break;
    case kConsumerMemberMetadataType:
      if (r.tombstone) {
        cg->members.erase(r.member_id);
      } else {
        auto& m = cg->members[r.member_id];
        auto assignment = m.assignment;  // from its type-8 record, kept
        m = r.member;
        m.member_id = r.member_id;
        m.assignment = assignment;
      }
      break;
    case kConsumerCurrentAssignmentType:
      if (!r.tombstone) cg->members[r.member_id].assignment = r.member.assignment;
      break;
    default:
      break;
  }
}

void OffsetsReplay::apply_share(const ShareGroupRecord& r) {
  if (r.tombstone) {  // of a group not loaded: nothing to remove
    auto* g = existing(r.group_id);
    if (!g || !g->share) return;
    if (r.type == kShareGroupMetadataType) return g->share.reset();
  }
  auto& sg = groups_[r.group_id].share;
  if (!sg) sg.emplace();
  switch (r.type) {
    case kShareGroupMetadataType:
      sg->epoch = r.epoch;
      sg->metadata_hash = r.metadata_hash;
      break;
    case kShareTargetMetadataType:
      if (!r.tombstone) sg->assignment_epoch = r.epoch;
      break;
    case kShareTargetMemberType:
      if (r.tombstone)
        sg->targets.erase(r.member_id);
      else
        sg->targets[r.member_id] = r.target;
      break;
    case kShareMemberMetadataType:
      if (r.tombstone) {
        sg->members.erase(r.member_id);
      } else {
        auto& m = sg->members[r.member_id];
        m.member_id = r.member_id;
        m.rack_id = r.member.rack_id;
        m.client_id = r.member.client_id;
        m.client_host = r.member.client_host;
        m.subscribed_names = r.member.subscribed_names;
      }
      break;
    case kShareCurrentAssignmentType:
      if (r.tombstone) {
        if (auto it = sg->members.find(r.member_id); it != sg->members.end()) {
          it->second.member_epoch = it->second.previous_member_epoch = -1;  // Kafka's replay of the tombstone
          it->second.assigned.clear();
        }
      } else {
        auto& m = sg->members[r.member_id];
        m.member_id = r.member_id;
        m.member_epoch = r.member.member_epoch;
        m.previous_member_epoch = r.member.previous_member_epoch;
        m.state = r.member.state;
        m.assigned = r.member.assigned;
      }
      break;
    case kShareStatePartitionMetadataType:
      if (r.tombstone)
        sg->state_partitions.reset();
      else
        sg->state_partitions = r.state;
      break;
    default:
      break;
  }
}

void OffsetsReplay::apply_pending(int64_t producer_id, int16_t producer_epoch, const OffsetsLogRecord& r) {
  if (r.kind != OffsetsLogRecord::Kind::kOffset || !r.offset) return;  // Skiff writes only offsets there
  groups_[r.group].pending[producer_id][r.tp] = PendingOffset{*r.offset, producer_epoch, ++order_, false};
  open_[producer_id].insert(r.group);
}

void OffsetsReplay::apply_marker(int64_t producer_id, bool commit) {
  auto open = open_.find(producer_id);
  if (open == open_.end()) return;
  for (const auto& id : open->second) {
    auto* g = existing(id);
    if (!g) continue;
    auto mine = g->pending.find(producer_id);
    if (mine == g->pending.end()) continue;
    if (commit) {
      for (const auto& [tp, po] : mine->second) {
        if (po.superseded) continue;
        g->offsets[tp] = po.offset;
        for (auto& [pid, offsets] : g->pending) {
          auto it = offsets.find(tp);
          if (pid != producer_id && it != offsets.end() && it->second.order < po.order) it->second.superseded = true;
        }
      }
    }
    g->pending.erase(mine);
  }
  open_.erase(open);
}

void OffsetsReplay::apply_streams(const StreamsGroupRecord& r) {
  if (r.type == kStreamsGroupMetadataType && r.tombstone) {
    if (auto* g = existing(r.group_id)) g->streams.reset();
    return;
  }
  auto& sg = groups_[r.group_id].streams;
  if (!sg) sg.emplace();
  switch (r.type) {
    case kStreamsGroupMetadataType:
      sg->metadata = r;
      break;
    case kStreamsTopologyType:
      if (r.tombstone)
        sg->topology.reset();
      else
        sg->topology = r.topology;
      break;
    case kStreamsTargetMetadataType:
      if (!r.tombstone) sg->assignment_epoch = r.epoch;
      break;
    case kStreamsTargetMemberType:
      if (r.tombstone)
        sg->targets.erase(r.member_id);
      else
        sg->targets[r.member_id] = r.target;
      break;
    case kStreamsMemberMetadataType:
      if (r.tombstone) {
        sg->members.erase(r.member_id);
      } else {
        auto& m = sg->members[r.member_id];
        auto assignment = m.assignment;  // from its type-22 record, kept
        m = r.member;
        m.member_id = r.member_id;
        m.assignment = assignment;
      }
      break;
    case kStreamsCurrentAssignmentType:
      if (!r.tombstone) sg->members[r.member_id].assignment = r.member.assignment;
      break;
    default:
      break;
  }
}

}  // namespace skiff::group
