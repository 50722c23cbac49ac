#include "api/client_software.h"

#include <algorithm>

namespace skiff::api {

void ClientSoftware::seen(uint64_t connection_id, Key key) {
  std::lock_guard lock(mu_);
  by_connection_[connection_id] = std::move(key);
  if (by_connection_.size() > 2 * after_cleanup_ + 64) forget_closed();
}

void ClientSoftware::forget_closed() {
  std::erase_if(by_connection_, [this](const auto& entry) { return !is_open_(entry.first); });
  after_cleanup_ = by_connection_.size();
}

std::optional<ClientSoftware::Key> ClientSoftware::find(uint64_t connection_id) {
  std::lock_guard lock(mu_);
  auto it = by_connection_.find(connection_id);
  if (it == by_connection_.end()) return std::nullopt;
  return it->second;
}

std::map<ClientSoftware::Key, int> ClientSoftware::counts() {
  std::lock_guard lock(mu_);
  forget_closed();
  std::map<Key, int> out;
  for (const auto& [id, key] : by_connection_) {
    auto it = out.find(key);
    if (it != out.end())
      ++it->second;
    else if (out.size() < kMaxSeries)
      out.emplace(key, 1);
    else
      ++out[Key{"_other", "_other", "_other"}];
  }
  return out;
}

}  // namespace skiff::api
