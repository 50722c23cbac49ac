// The authorizer's configuration keys, as Kafka 4.4 names and reads them:
// authorizer.class.name (Kafka's StandardAuthorizer enables Skiff's own,
// security/acl/authorizer.h), super.users, allow.everyone.if.no.acl.found.
#include <fmt/format.h>

#include <stdexcept>

#include "config/config_def.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

constexpr std::string_view kStandardAuthorizer = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
// Kafka 3's ZooKeeper-backed authorizer, gone from Kafka 4 (a 4.4 broker
// fails to start with it, unable to load the class).
constexpr std::string_view kZkAuthorizer = "kafka.security.authorizer.AclAuthorizer";

void apply_authorizer_class(BrokerConfig& c, const std::string& v) {
  auto name = std::string(trim(v));
  if (!name.empty() && name != kStandardAuthorizer) {
    if (name == kZkAuthorizer)
      throw std::invalid_argument(
          fmt::format("{} needs ZooKeeper and was removed in Kafka 4.0; use {}, which reads the same ACLs' semantics",
                      kZkAuthorizer, kStandardAuthorizer));
    throw std::invalid_argument(
        fmt::format("unknown authorizer class '{}'; Skiff provides {} only", name, kStandardAuthorizer));
  }
  c.authorizer_class_name = name;
}

// StandardAuthorizer.getConfiguredSuperUsers: ';'-separated principals.
void apply_super_users(BrokerConfig& c, const std::string& v) {
  std::vector<std::string> users;
  std::string_view rest = v;
  while (!rest.empty()) {
    auto end = rest.find(';');
    auto item = trim(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (item.empty()) continue;
    if (item.find(':') == std::string_view::npos)
      throw std::invalid_argument(fmt::format(
          "expected a string in format principalType:principalName but got {} (super.users is ';'-separated)", item));
    users.emplace_back(item);
  }
  c.super_users = std::move(users);
}

}  // namespace

void add_authorizer_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back({"authorizer.class.name", ConfigType::kString, "",
               "Empty: no authorizer (every request allowed; the ACL APIs answer SECURITY_DISABLED). "
               "org.apache.kafka.metadata.authorizer.StandardAuthorizer: ACLs checked on every request, managed "
               "with CreateAcls/DescribeAcls/DeleteAcls (kafka-acls) and kept in <first log dir>/skiff-metadata/acls.",
               apply_authorizer_class, fmt::format("empty or {}", kStandardAuthorizer)});
  d.push_back({"super.users", ConfigType::kString, "",
               "Principals allowed everything whatever the ACLs say, ';'-separated (User:admin;User:ops).",
               apply_super_users, "principalType:name[;principalType:name...]"});
  d.push_back({"allow.everyone.if.no.acl.found", ConfigType::kBool, "false",
               "With an authorizer: allow a request on a resource no ACL names at all.",
               [](BrokerConfig& c, const std::string& v) {
                 auto s = to_lower(trim(v));
                 if (s != "true" && s != "false") throw std::invalid_argument("expected true or false");
                 c.allow_everyone_if_no_acl_found = s == "true";
               },
               "true or false"});
}

}  // namespace skiff::config
