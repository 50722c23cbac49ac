// PLAIN (RFC 4616) on the server side: one client message,
// "[authzid] NUL authcid NUL passwd", checked against the listener's users
// (the user_<name>="<password>" options of its plain.sasl.jaas.config, as
// Kafka's PlainServerCallbackHandler reads them). Answers and messages as
// Kafka's PlainSaslServer. Thread rules: see sasl_server.h; the users are
// immutable and shared.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "security/sasl/sasl_server.h"

namespace skiff::sasl {

using PlainUsers = std::map<std::string, std::string>;  // user name -> password

std::unique_ptr<SaslServer> make_plain_server(std::shared_ptr<const PlainUsers> users);

// The users of a PLAIN JAAS entry (throws std::invalid_argument if it does
// not parse; config/jaas.h).
PlainUsers plain_users_from_jaas(const std::string& jaas_config);

}  // namespace skiff::sasl
