// HandlerRegistry: the table of API handlers by key. Filled once at startup
// (add() refuses a second handler for a key and a version range outside the
// codec's schema, so nothing is advertised that cannot be decoded),
// read-only afterwards (safe to read from every handler thread).
#pragma once

#include <memory>
#include <vector>

#include "api/api_handler.h"

namespace skiff::api {

class HandlerRegistry {
 public:
  void add(std::unique_ptr<ApiHandler> handler);
  ApiHandler* find(int16_t api_key) const;
  // Sorted by key: what ApiVersions advertises.
  std::vector<ApiVersionRange> advertised() const;

 private:
  std::vector<std::unique_ptr<ApiHandler>> by_key_;
};

}  // namespace skiff::api
