// The SCRAM-SHA-256/512 server (RFC 5802, RFC 7677) of one SASL exchange,
// with Kafka's rules (ScramSaslServer):
//   client-first  "n,," or "n,a=<authzid>," then "n=<saslname>,r=<nonce>[,ext...]";
//                 channel binding ("p=", "y") is refused; an authzid must name
//                 the user itself; with the "tokenauth" extension the user
//                 name is a delegation token's id and the credential the
//                 token's (delegation_tokens.h): the session's user is the
//                 token's owner, token-authenticated, until the token's
//                 expiry; an unknown or expired token fails the first
//                 message, as Kafka's; other extensions are ignored;
//   server-first  "r=<client nonce + server nonce>,s=<base64 salt>,i=<iterations>";
//   client-final  "c=biws" (base64 of the gs2 header), the whole nonce, "p=<proof>";
//   server-final  "v=<base64 server signature>".
// An unknown user goes through the same exchange with a made-up credential
// (a salt stable per user name) and fails at the proof, so the replies do not
// tell which users exist. Every failure is Kafka's one message, "Authentication
// failed during authentication due to invalid credentials with SASL mechanism
// SCRAM-SHA-...", except an authzid naming another user, which Kafka reports
// as such. Malformed input fails the exchange; it never throws.
// Thread rules: as SaslServer (one step at a time); reads the store only.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "security/sasl/delegation_tokens.h"
#include "security/sasl/sasl_server.h"
#include "security/sasl/scram.h"
#include "security/sasl/scram_store.h"

namespace skiff::sasl {

// The message a client gets for a failed SCRAM exchange (Kafka's
// SaslServerAuthenticator wording for a first authentication).
std::string scram_failure_message(ScramMechanism m);

// The server for "SCRAM-SHA-256" or "SCRAM-SHA-512" (mechanism_from_name).
// The stores must outlive the server; `tokens` null: token logins fail.
std::unique_ptr<SaslServer> make_scram_server(ScramMechanism m, const ScramCredentialStore& store,
                                              const DelegationTokenStore* tokens = nullptr);
// For tests: the server's part of the nonce, instead of a random one.
std::unique_ptr<SaslServer> make_scram_server(ScramMechanism m, const ScramCredentialStore& store,
                                              const DelegationTokenStore* tokens, std::string server_nonce);

}  // namespace skiff::sasl
