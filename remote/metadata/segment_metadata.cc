// Names and state transitions of the remote log's vocabulary, as Kafka's
// RemoteLogSegmentState and RemotePartitionDeleteState define them: a
// transition to the same state is valid (retries and replays are idempotent).
#include "remote/metadata/segment_metadata.h"

namespace skiff::remote {

std::string_view state_name(SegmentState s) {
  switch (s) {
    case SegmentState::kCopyStarted:
      return "COPY_SEGMENT_STARTED";
    case SegmentState::kCopyFinished:
      return "COPY_SEGMENT_FINISHED";
    case SegmentState::kDeleteStarted:
      return "DELETE_SEGMENT_STARTED";
    case SegmentState::kDeleteFinished:
      return "DELETE_SEGMENT_FINISHED";
  }
  return "UNKNOWN";
}

std::string_view state_name(PartitionDeleteState s) {
  switch (s) {
    case PartitionDeleteState::kMarked:
      return "DELETE_PARTITION_MARKED";
    case PartitionDeleteState::kStarted:
      return "DELETE_PARTITION_STARTED";
    case PartitionDeleteState::kFinished:
      return "DELETE_PARTITION_FINISHED";
  }
  return "UNKNOWN";
}

bool is_valid_transition(SegmentState from, SegmentState to) {
  if (from == to) return true;
  switch (from) {
    case SegmentState::kCopyStarted:
      return to == SegmentState::kCopyFinished || to == SegmentState::kDeleteStarted;
    case SegmentState::kCopyFinished:
      return to == SegmentState::kDeleteStarted;
    case SegmentState::kDeleteStarted:
      return to == SegmentState::kDeleteFinished;
    case SegmentState::kDeleteFinished:
      return false;
  }
  return false;
}

bool is_valid_transition(std::optional<PartitionDeleteState> from, PartitionDeleteState to) {
  if (!from) return to == PartitionDeleteState::kMarked;
  if (*from == to) return true;
  switch (*from) {
    case PartitionDeleteState::kMarked:
      return to == PartitionDeleteState::kStarted;
    case PartitionDeleteState::kStarted:
      return to == PartitionDeleteState::kFinished;
    case PartitionDeleteState::kFinished:
      return false;
  }
  return false;
}

}  // namespace skiff::remote
