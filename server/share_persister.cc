#include "server/share_persister.h"

#include <utility>

namespace skiff::server {
namespace {

sharecoord::Key key_of(const share::PartitionRef& ref) { return {ref.group_id, ref.topic_id, ref.partition}; }

}  // namespace

void CoordinatorStatePersister::read(const share::PartitionRef& ref, int32_t leader_epoch,
                                     std::function<void(ErrorCode, std::string, share::PersistedState)> done) {
  coordinator_.read(key_of(ref), leader_epoch,
                    [done = std::move(done)](ErrorCode code, std::string message, const sharecoord::ShareState& s) {
                      share::PersistedState out;
                      out.state_epoch = s.state_epoch;
                      out.leader_epoch = s.leader_epoch;
                      out.start_offset = s.start_offset;
                      out.delivery_complete_count = s.delivery_complete_count;
                      out.batches.reserve(s.batches.size());
                      for (const auto& b : s.batches)
                        out.batches.push_back({b.first_offset, b.last_offset, b.delivery_state, b.delivery_count});
                      done(code, std::move(message), std::move(out));
                    });
}

void CoordinatorStatePersister::write(const share::PartitionRef& ref, const share::PersistedState& update,
                                      std::function<void(ErrorCode, std::string)> done) {
  std::vector<sharecoord::StateBatch> batches;
  batches.reserve(update.batches.size());
  for (const auto& b : update.batches)
    batches.push_back({b.first_offset, b.last_offset, b.delivery_state, b.delivery_count});
  coordinator_.write(key_of(ref), update.state_epoch, update.leader_epoch, update.start_offset,
                     update.delivery_complete_count, std::move(batches), std::move(done));
}

}  // namespace skiff::server
