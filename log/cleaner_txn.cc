#include "log/cleaner_txn.h"

#include <algorithm>

#include "log/control_batch.h"

namespace skiff::storage {

CleanedTxnState::CleanedTxnState(std::vector<AbortedTxn> aborted) : aborted_(std::move(aborted)) {
  std::stable_sort(aborted_.begin(), aborted_.end(),
                   [](const AbortedTxn& a, const AbortedTxn& b) { return a.first_offset < b.first_offset; });
}

void CleanedTxnState::consume_up_to(int64_t offset) {
  for (; next_ < aborted_.size() && aborted_[next_].first_offset <= offset; ++next_) {
    const AbortedTxn& t = aborted_[next_];
    if (t.last_offset < offset && !ongoing_aborted_.count(t.producer_id)) {
      // Its marker lies before this batch (a range starting mid-log): over.
      continue;
    }
    ongoing_aborted_.try_emplace(t.producer_id, Ongoing{t, std::nullopt});
  }
}

bool CleanedTxnState::on_data_batch(const RecordBatchView& b) {
  consume_up_to(b.last_offset());
  if (!b.is_transactional()) return false;
  auto it = ongoing_aborted_.find(b.producer_id());
  if (it != ongoing_aborted_.end()) {
    it->second.last_observed_batch = b.last_offset();
    return true;
  }
  ongoing_committed_.insert(b.producer_id());
  return false;
}

bool CleanedTxnState::on_control_batch(const RecordBatchView& b) {
  consume_up_to(b.last_offset());
  discardable_abort_.reset();
  if (b.record_count() == 0) return true;  // cleaned before: nothing of it is left
  auto marker = parse_marker(b);
  if (!marker) return false;
  const int64_t pid = b.producer_id();
  if (!marker->commit) {
    auto it = ongoing_aborted_.find(pid);
    if (it == ongoing_aborted_.end()) return true;
    Ongoing o = it->second;
    ongoing_aborted_.erase(it);
    if (!o.last_observed_batch) {
      discardable_abort_ = o.txn;
      return true;
    }
    retained_.push_back(o.txn);
    return false;
  }
  return ongoing_committed_.erase(pid) == 0;
}

void CleanedTxnState::keep_marker() {
  if (discardable_abort_) retained_.push_back(*discardable_abort_);
  discardable_abort_.reset();
}

std::vector<AbortedTxn> CleanedTxnState::take_retained() {
  std::vector<AbortedTxn> out;
  out.swap(retained_);
  return out;
}

}  // namespace skiff::storage
