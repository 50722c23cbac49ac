// Logs a user in with a password through the broker's own SASL exchanges,
// as a Kafka client would: PLAIN sends the password, SCRAM-SHA-256/512 run
// the whole RFC 5802 exchange (this file plays the client side). For the web
// console's HTTP Basic credentials, so that it authenticates exactly as the
// listener it speaks for does.
// Threads: any; the mechanisms are immutable.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/broker_config.h"
#include "security/sasl/sasl_mechanisms.h"

namespace skiff::sasl {

// The mechanisms a password can log in with, in the order tried.
inline constexpr const char* kPasswordMechanisms[] = {"SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN"};

// The user name the first of `listener`'s password mechanisms accepts
// (user, password) with, or nullopt when none does.
std::optional<std::string> password_login(const SaslMechanisms& mechanisms, const std::string& listener,
                                          const std::string& user, const std::string& password);

// The first SASL listener offering a password mechanism, or "": the one an
// HTTP app (the console, the Schema Registry) checks Basic credentials with.
std::string password_listener(const config::BrokerConfig& config, const SaslMechanisms& mechanisms);

struct BasicCredentials {
  std::string user;
  std::string password;
};
// An Authorization header's HTTP Basic credentials (RFC 7617), or nullopt
// when it is not "Basic <base64 of user:password>".
std::optional<BasicCredentials> basic_credentials(std::string_view authorization);

}  // namespace skiff::sasl
