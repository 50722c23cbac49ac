#include "api/handler_registry.h"

#include <stdexcept>
#include <string>

#include "protocol/api_table.h"

namespace skiff::api {

namespace {

// A handler may only advertise versions the generated codec can decode and
// encode: the schema in protocol/schemas bounds what a handler can claim.
void check_codec_range(const ApiVersionRange& r) {
  const auto* api = protocol::find_api(r.api_key);
  if (!api) throw std::logic_error("no schema for api key " + std::to_string(r.api_key));
  if (r.min_version > r.max_version || r.min_version < api->min_version || r.max_version > api->max_version)
    throw std::logic_error(std::string(api->name) + " handler advertises versions " + std::to_string(r.min_version) +
                           "-" + std::to_string(r.max_version) + " outside its schema's " +
                           std::to_string(api->min_version) + "-" + std::to_string(api->max_version));
}

}  // namespace

void HandlerRegistry::add(std::unique_ptr<ApiHandler> handler) {
  auto key = handler->range().api_key;
  if (key < 0) throw std::logic_error("negative api key");
  if (static_cast<size_t>(key) >= by_key_.size()) by_key_.resize(key + 1);
  if (by_key_[key]) throw std::logic_error("two handlers for api key " + std::to_string(key));
  check_codec_range(handler->range());
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
