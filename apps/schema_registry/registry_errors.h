// RegistryError: the one error shape of the Schema Registry
// (apps/schema_registry/), as Confluent's REST layer answers it: an HTTP
// status, Confluent's error_code and message, written by the HTTP layer as
// {"error_code": ..., "message": ...}. The constructors below carry
// Confluent's codes and wording (core/.../rest/exceptions/Errors.java and
// the Rest*Exception classes). Plain data; pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace skiff::schemareg {

struct RegistryError {
  int http_status = 500;
  int error_code = 50001;
  std::string message;
};

inline bool operator==(const RegistryError& a, const RegistryError& b) {
  return a.http_status == b.http_status && a.error_code == b.error_code && a.message == b.message;
}

namespace errors {

// 404
RegistryError subject_not_found(std::string_view subject);                          // 40401
RegistryError version_not_found(int32_t version);                                   // 40402
RegistryError schema_not_found();                                                   // 40403 "Schema not found"
RegistryError schema_id_not_found(int32_t id);                                      // 40403 "Schema <id> not found"
RegistryError subject_soft_deleted(std::string_view subject);                       // 40404
RegistryError subject_not_soft_deleted(std::string_view subject);                   // 40405
RegistryError version_soft_deleted(std::string_view subject, int32_t version);      // 40406
RegistryError version_not_soft_deleted(std::string_view subject, int32_t version);  // 40407
RegistryError subject_compatibility_not_configured(std::string_view subject);       // 40408
RegistryError subject_mode_not_configured(std::string_view subject);                // 40409
RegistryError association_not_found(std::string_view resource);                     // 40410
// 409: Confluent's error_code is the HTTP status (40901 only since its associations work).
RegistryError incompatible_schema(std::string_view subject, std::string_view details);
// 422
RegistryError invalid_schema(std::string message);                                   // 42201
RegistryError invalid_version(std::string_view version);                             // 42202
RegistryError invalid_compatibility_level();                                         // 42203
RegistryError invalid_mode(std::string message = "");                                // 42204
RegistryError operation_not_permitted(std::string message);                          // 42205
RegistryError reference_exists(std::string_view subject, int32_t version);           // 42206
RegistryError id_does_not_match(std::string message = "");                           // 42207
RegistryError invalid_subject(std::string_view subject);                             // 42208
RegistryError schema_too_large(std::string message);                                 // 42209
RegistryError invalid_ruleset(std::string message);                                  // 42210
RegistryError context_not_empty(std::string_view context);                           // 42211
RegistryError invalid_association(std::string_view property, std::string_view why);  // 42212
// 500
RegistryError store_error(std::string message);        // 50001
RegistryError operation_timeout(std::string message);  // 50002
RegistryError forwarding_failed(std::string message);  // 50003
RegistryError unknown_leader(std::string message);     // 50004

// Confluent's SchemaKey.toString(), as 42206's message names the schema:
// "{magic=1,keytype=SCHEMA,subject=s,version=1}".
std::string schema_key_text(std::string_view subject, int32_t version);

}  // namespace errors
}  // namespace skiff::schemareg
