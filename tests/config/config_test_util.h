// Helpers of the config tests: a BrokerConfig loaded from --override lines
// (and an environment), or the error loading them gives. Header-only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/config_loader.h"

namespace skiff::config::test {

inline BrokerConfig load_with(std::vector<std::string> overrides, std::map<std::string, std::string> env = {}) {
  return load_config({std::nullopt, std::move(env), std::move(overrides)});
}

// The ConfigError's message, or "" when the overrides load.
inline std::string error_of(std::vector<std::string> overrides, std::map<std::string, std::string> env = {}) {
  try {
    load_with(std::move(overrides), std::move(env));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace skiff::config::test
