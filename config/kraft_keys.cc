#include "config/kraft_keys.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "config/config_loader.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

// "1@host:port" or KIP-853's "1-<directory id>@host:port"; IPv6 hosts in brackets.
QuorumVoter parse_voter(const std::string& item) {
  auto at = item.find('@');
  auto colon = item.rfind(':');
  if (at == std::string::npos || colon == std::string::npos || colon < at)
    throw std::invalid_argument(fmt::format("'{}' is not id@host:port", item));
  std::string id_text = item.substr(0, at);
  if (auto dash = id_text.find('-'); dash != std::string::npos) id_text.resize(dash);
  QuorumVoter v;
  v.id = static_cast<int32_t>(parse_integer(id_text, 0, kIntMax));
  v.host = item.substr(at + 1, colon - at - 1);
  if (v.host.size() >= 2 && v.host.front() == '[' && v.host.back() == ']') v.host = v.host.substr(1, v.host.size() - 2);
  v.port = static_cast<uint16_t>(parse_integer(item.substr(colon + 1), 0, 65535));
  return v;
}

ConfigKeyDef list_key(std::string name, std::string doc,
                      const std::function<void(BrokerConfig&, const std::vector<std::string>&)>& store,
                      std::string allowed) {
  return ConfigKeyDef{std::move(name),
                      ConfigType::kList,
                      "",
                      std::move(doc),
                      [store](BrokerConfig& c, const std::string& v) { store(c, split_list(v)); },
                      std::move(allowed)};
}

// A name as Kafka compares listener names: case-insensitively here, as the
// rest of the loader does.
bool has_listener(const BrokerConfig& cfg, const std::string& name) {
  return std::any_of(cfg.listeners.begin(), cfg.listeners.end(),
                     [&](const Listener& l) { return to_lower(l.name) == to_lower(name); });
}

void fail(const std::string& what) { throw ConfigError(what + " (Skiff is one node that is its own controller)"); }

void check_roles_and_voters(const BrokerConfig& cfg) {
  const auto& k = cfg.kraft;
  auto roles = k.process_roles;
  std::sort(roles.begin(), roles.end());
  if (roles != std::vector<std::string>{"broker", "controller"})
    fail(fmt::format("process.roles={}: a single combined node is 'broker,controller'",
                     fmt::join(k.process_roles, ",")));
  if (k.controller_listener_names.empty())
    fail("process.roles is set but controller.listener.names is not: name the CONTROLLER listener");
  if (k.quorum_voters.empty() && k.quorum_bootstrap_servers.empty())
    fail("process.roles is set but neither controller.quorum.voters nor controller.quorum.bootstrap.servers is");
  if (k.quorum_voters.size() > 1)
    fail(fmt::format("controller.quorum.voters names {} voters; a single node is the only voter: {}@host:port",
                     k.quorum_voters.size(), cfg.node_id));
  if (k.quorum_voters.size() == 1 && k.quorum_voters[0].id != cfg.node_id)
    fail(fmt::format("controller.quorum.voters' voter {} is not this node (node.id={})", k.quorum_voters[0].id,
                     cfg.node_id));
  if (k.quorum_bootstrap_servers.size() > 1)
    fail(fmt::format("controller.quorum.bootstrap.servers names {} controllers; a single node is the only one",
                     k.quorum_bootstrap_servers.size()));
}

void check_listeners(const BrokerConfig& cfg) {
  const auto& k = cfg.kraft;
  for (const auto& name : k.controller_listener_names) {
    if (!has_listener(cfg, name))
      fail(fmt::format("controller.listener.names names {}, which is not in 'listeners' (a combined node binds it)",
                       name));
  }
  if (k.quorum_voters.size() == 1) {
    const auto port = k.quorum_voters[0].port;
    bool on_controller = std::any_of(cfg.listeners.begin(), cfg.listeners.end(), [&](const Listener& l) {
      return k.is_controller_listener(l.name) && (l.port == port || l.port == 0);
    });
    if (!on_controller)
      fail(fmt::format("controller.quorum.voters' port {} is not the port of a controller listener ({})", port,
                       fmt::join(k.controller_listener_names, ",")));
  }
  if (!k.inter_broker_listener_name.empty()) {
    if (!has_listener(cfg, k.inter_broker_listener_name))
      fail(fmt::format("inter.broker.listener.name={} is not in 'listeners'", k.inter_broker_listener_name));
    if (k.is_controller_listener(k.inter_broker_listener_name))
      fail(fmt::format("inter.broker.listener.name={} is a controller listener", k.inter_broker_listener_name));
  }
  bool broker_listener = std::any_of(cfg.listeners.begin(), cfg.listeners.end(),
                                     [&](const Listener& l) { return !k.is_controller_listener(l.name); });
  if (!broker_listener) fail("every listener is a controller listener: clients need a broker listener");
}

// Kafka creates an internal topic with its replication factor and refuses
// it on fewer brokers; one node has one replica, so a value set above 1
// would leave groups or transactions without their topic.
void check_internal_topics(const BrokerConfig& cfg) {
  static const char* const kKeys[] = {
      "offsets.topic.replication.factor",      "transaction.state.log.replication.factor",
      "transaction.state.log.min.isr",         "share.coordinator.state.topic.replication.factor",
      "share.coordinator.state.topic.min.isr",
  };
  for (const char* key : kKeys) {
    auto it = cfg.effective.find(key);
    if (it == cfg.effective.end() || it->second.source == ConfigSource::kDefault) continue;
    if (trim(it->second.value) != "1")
      fail(fmt::format("{}={} (from {}): a single node has one replica of each internal topic; set it to 1", key,
                       it->second.value, to_string(it->second.source)));
  }
}

}  // namespace

bool KraftSettings::is_controller_listener(const std::string& listener) const {
  return std::any_of(controller_listener_names.begin(), controller_listener_names.end(),
                     [&](const std::string& n) { return to_lower(n) == to_lower(listener); });
}

void add_kraft_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(list_key(
      "process.roles", "KRaft roles of this node: empty, or broker,controller (Skiff is one combined node).",
      [](BrokerConfig& c, const std::vector<std::string>& roles) {
        for (const auto& r : roles)
          if (r != "broker" && r != "controller") throw std::invalid_argument(fmt::format("unknown role '{}'", r));
        c.kraft.process_roles = roles;
      },
      "broker, controller"));
  d.push_back(list_key(
      "controller.quorum.voters", "The KRaft voters, id@host:port: this node only (node.id on a controller listener).",
      [](BrokerConfig& c, const std::vector<std::string>& items) {
        c.kraft.quorum_voters.clear();
        for (const auto& item : items) c.kraft.quorum_voters.push_back(parse_voter(item));
      },
      "id@host:port"));
  d.push_back(list_key(
      "controller.quorum.bootstrap.servers", "KIP-853's controller addresses, host:port: at most one.",
      [](BrokerConfig& c, const std::vector<std::string>& items) { c.kraft.quorum_bootstrap_servers = items; },
      "host:port"));
  d.push_back(list_key(
      "controller.listener.names",
      "Listeners of the controller: bound, and answering clients as Kafka's controller listener "
      "(ApiVersions with the controller's APIs; other requests close the connection).",
      [](BrokerConfig& c, const std::vector<std::string>& names) { c.kraft.controller_listener_names = names; },
      "listener names"));
  d.push_back({"inter.broker.listener.name", ConfigType::kString, "",
               "Accepted and checked (a listener that is not a controller's); one node makes no inter-broker "
               "connections.",
               [](BrokerConfig& c, const std::string& v) { c.kraft.inter_broker_listener_name = std::string(trim(v)); },
               "a listener name"});
  d.push_back(one_of_key("security.inter.broker.protocol", "PLAINTEXT",
                         {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"},
                         "Accepted; one node makes no inter-broker connections.",
                         [](BrokerConfig& c, const std::string& v) { c.kraft.inter_broker_security_protocol = v; }));
  d.push_back({"offsets.topic.replication.factor", ConfigType::kInt, "3",
               "Accepted; a single node has one replica (with process.roles set, a value other than 1 is refused).",
               [](BrokerConfig& c, const std::string& v) {
                 c.kraft.offsets_topic_replication_factor = static_cast<int16_t>(parse_integer(v, 1, 32767));
               },
               "an integer in [1, 32767]"});
}

void check_single_node_kraft(const BrokerConfig& cfg) {
  if (cfg.kraft.process_roles.empty()) return;
  check_roles_and_voters(cfg);
  check_listeners(cfg);
  check_internal_topics(cfg);
}

}  // namespace skiff::config
