#include "config/kafka_env.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/uuid.h"
#include "config/listener.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

// The variables of the image and the JVM that are not broker keys (Kafka's
// KafkaDockerWrapper.ExcludeServerPropsEnv), and those the TLS files and
// KAFKA_LISTENERS' derivation below take.
const std::set<std::string, std::less<>>& not_keys() {
  static const std::set<std::string, std::less<>> names{
      "KAFKA_VERSION",
      "KAFKA_HEAP_OPTS",
      "KAFKA_LOG4J_OPTS",
      "KAFKA_OPTS",
      "KAFKA_JMX_OPTS",
      "KAFKA_JVM_PERFORMANCE_OPTS",
      "KAFKA_GC_LOG_OPTS",
      "KAFKA_LOG4J_ROOT_LOGLEVEL",
      "KAFKA_LOG4J_LOGGERS",
      "KAFKA_TOOLS_LOG4J_LOGLEVEL",
      "KAFKA_JMX_HOSTNAME",
      "KAFKA_JMX_PORT",
      "KAFKA_SSL_KEYSTORE_FILENAME",
      "KAFKA_SSL_TRUSTSTORE_FILENAME",
      "KAFKA_SSL_KEY_CREDENTIALS",
      "KAFKA_SSL_KEYSTORE_CREDENTIALS",
      "KAFKA_SSL_TRUSTSTORE_CREDENTIALS",
  };
  return names;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

std::string lookup(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

// A credentials file: its first line, as Kafka's configure reads it with
// $(cat FILE) (trailing newlines dropped).
std::string read_credentials(std::string_view secrets_dir, const std::string& var, const std::string& file) {
  auto path = fmt::format("{}/{}", secrets_dir, file);
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("{}={}: cannot read {}", var, file, path));
  std::stringstream text;
  text << in.rdbuf();
  auto s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

void read_tls_files(const std::map<std::string, std::string>& env, std::string_view dir, KafkaEnvironment& out) {
  auto in_dir = [&](const std::string& file) { return fmt::format("{}/{}", dir, file); };
  if (auto f = lookup(env, "KAFKA_SSL_KEYSTORE_FILENAME"); !f.empty()) out.keys["ssl.keystore.location"] = in_dir(f);
  if (auto f = lookup(env, "KAFKA_SSL_TRUSTSTORE_FILENAME"); !f.empty())
    out.keys["ssl.truststore.location"] = in_dir(f);
  if (auto f = lookup(env, "KAFKA_SSL_KEY_CREDENTIALS"); !f.empty()) {
    auto password = read_credentials(dir, "KAFKA_SSL_KEY_CREDENTIALS", f);
    if (!password.empty()) out.keys["ssl.key.password"] = password;
  }
  for (const char* var : {"KAFKA_SSL_KEYSTORE_CREDENTIALS", "KAFKA_SSL_TRUSTSTORE_CREDENTIALS"}) {
    if (lookup(env, var).empty()) continue;
    read_credentials(dir, var, lookup(env, var));  // a missing file is still an error, as in Kafka's image
    out.warnings.push_back(fmt::format(
        "{} ignored: Skiff's key and trust stores are PEM files, which have no store password (a JKS or PKCS12 "
        "store is refused; convert it to PEM with keytool and openssl)",
        var));
  }
}

// Kafka's configure: sed -e 's|://[^:]*:|://0.0.0.0:|g' over the advertised listeners.
std::string listeners_from_advertised(const std::string& advertised) {
  std::vector<std::string> items;
  try {
    for (const auto& l : parse_listener_list(advertised))
      items.push_back(fmt::format("{}://0.0.0.0:{}", l.name, l.port));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("KAFKA_ADVERTISED_LISTENERS='{}' (KAFKA_LISTENERS is derived from it): {}", advertised, e.what()));
  }
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

}  // namespace

std::optional<std::string> kafka_env_key(std::string_view var) {
  constexpr std::string_view kPrefix = "KAFKA_";
  if (!var.starts_with(kPrefix) || var.size() == kPrefix.size() || not_keys().count(var)) return std::nullopt;
  auto key = to_lower(var.substr(kPrefix.size()));
  std::replace(key.begin(), key.end(), '_', '.');
  key = replace_all(std::move(key), "...", "-");
  return replace_all(std::move(key), "..", "_");
}

std::string kafka_env_var_name(std::string_view key) {
  std::string out = "KAFKA_";
  for (char c : key) {
    if (c == '.')
      out += '_';
    else if (c == '_')
      out += "__";
    else if (c == '-')
      out += "___";
    else
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

KafkaEnvironment read_kafka_environment(const std::map<std::string, std::string>& env, std::string_view secrets_dir) {
  KafkaEnvironment out;
  for (const auto& [name, value] : env)
    if (auto key = kafka_env_key(name)) out.keys[*key] = value;
  read_tls_files(env, secrets_dir, out);
  if (!env.count("KAFKA_LISTENERS") && !env.count("SKIFF_LISTENERS") && env.count("KAFKA_ADVERTISED_LISTENERS"))
    out.keys["listeners"] = listeners_from_advertised(env.at("KAFKA_ADVERTISED_LISTENERS"));
  if (auto id = lookup(env, "CLUSTER_ID"); !id.empty()) {
    auto uuid = Uuid::parse(id);
    if (!uuid || uuid->to_string() != id)
      throw std::invalid_argument(
          fmt::format("CLUSTER_ID='{}' is not a cluster id: 22 characters of URL-safe base64 (16 bytes), as "
                      "'kafka-storage.sh random-uuid' prints",
                      id));
    out.cluster_id = id;
  }
  return out;
}

}  // namespace skiff::config
