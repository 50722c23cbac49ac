// Kafka's sasl.jaas.config value: one JAAS login-module entry,
//   <LoginModuleClass> <flag> key="value" key=value ... ;
// with the flag one of required, requisite, sufficient, optional, values
// bare words or double-quoted strings (\" and \\ escaped), comments neither
// (as Kafka's JaasConfig accepts). Pure parsing; no thread rules.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace skiff::config {

struct JaasEntry {
  std::string login_module;
  std::string flag;
  std::map<std::string, std::string> options;
};

// Throws std::invalid_argument with what is wrong (never quoting a value,
// which may be a password).
JaasEntry parse_jaas_config(std::string_view text);

}  // namespace skiff::config
