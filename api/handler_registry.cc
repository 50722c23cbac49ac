#include "api/handler_registry.h"

#include <stdexcept>

namespace skiff::api {

void HandlerRegistry::add(std::unique_ptr<ApiHandler> handler) {
  auto key = handler->range().api_key;
  if (key < 0) throw std::logic_error("negative api key");
  if (static_cast<size_t>(key) >= by_key_.size()) by_key_.resize(key + 1);
  if (by_key_[key]) throw std::logic_error("two handlers for api key " + std::to_string(key));
  by_key_[key] = std::move(handler);
}

ApiHandler* HandlerRegistry::find(int16_t api_key) const {
  if (api_key < 0 || static_cast<size_t>(api_key) >= by_key_.size()) return nullptr;
  return by_key_[api_key].get();
}

std::vector<ApiVersionRange> HandlerRegistry::advertised() const {
  std::vector<ApiVersionRange> out;
  for (const auto& h : by_key_)
    if (h) out.push_back(h->range());
  return out;
}

}  // namespace skiff::api
