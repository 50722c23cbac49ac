#include "apps/schema_registry/registry_errors.h"

namespace skiff::schemareg::errors {
namespace {

RegistryError make(int status, int code, std::string message) { return {status, code, std::move(message)}; }

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

RegistryError subject_not_found(std::string_view subject) {
  return make(404, 40401, "Subject " + quoted(subject) + " not found.");
}
RegistryError version_not_found(int32_t version) {
  return make(404, 40402, "Version " + std::to_string(version) + " not found.");
}
RegistryError schema_not_found() { return make(404, 40403, "Schema not found"); }
RegistryError schema_id_not_found(int32_t id) {
  return make(404, 40403, "Schema " + std::to_string(id) + " not found");
}
RegistryError subject_soft_deleted(std::string_view subject) {
  return make(404, 40404, "Subject " + quoted(subject) + " was soft deleted.Set permanent=true to delete permanently");
}
RegistryError subject_not_soft_deleted(std::string_view subject) {
  return make(404, 40405, "Subject " + quoted(subject) + " was not deleted first before being permanently deleted");
}
RegistryError version_soft_deleted(std::string_view subject, int32_t version) {
  return make(404, 40406,
              "Subject " + quoted(subject) + " Version " + std::to_string(version) +
                  " was soft deleted.Set permanent=true to delete permanently");
}
RegistryError version_not_soft_deleted(std::string_view subject, int32_t version) {
  return make(404, 40407,
              "Subject " + quoted(subject) + " Version " + std::to_string(version) +
                  " was not deleted first before being permanently deleted");
}
RegistryError subject_compatibility_not_configured(std::string_view subject) {
  return make(404, 40408, "Subject " + quoted(subject) + " does not have subject-level compatibility configured");
}
RegistryError subject_mode_not_configured(std::string_view subject) {
  return make(404, 40409, "Subject " + quoted(subject) + " does not have subject-level mode configured");
}
RegistryError association_not_found(std::string_view resource) {
  return make(404, 40410, "Association for " + quoted(resource) + " not found.");
}
RegistryError incompatible_schema(std::string_view subject, std::string_view details) {
  return make(409, 409,
              "Schema being registered is incompatible with an earlier schema for subject \"" + std::string(subject) +
                  "\", details: " + std::string(details));
}
RegistryError invalid_schema(std::string message) { return make(422, 42201, std::move(message)); }
RegistryError invalid_version(std::string_view version) {
  return make(422, 42202,
              "The specified version '" + std::string(version) +
                  "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"");
}
RegistryError invalid_compatibility_level() {
  return make(422, 42203,
              "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, "
              "forward_transitive, and full_transitive");
}
RegistryError invalid_mode(std::string message) {
  if (message.empty()) message = "Invalid mode. Valid values are READWRITE, READONLY, IMPORT and FORWARD.";
  return make(422, 42204, std::move(message));
}
RegistryError operation_not_permitted(std::string message) { return make(422, 42205, std::move(message)); }
RegistryError reference_exists(std::string_view subject, int32_t version) {
  return make(422, 42206, "One or more references exist to the schema " + schema_key_text(subject, version) + ".");
}
RegistryError id_does_not_match(std::string message) {
  if (message.empty()) message = "The ID of an imported schema does not match the existing ID";
  return make(422, 42207, std::move(message));
}
RegistryError invalid_subject(std::string_view subject) {
  return make(422, 42208, "The specified subject '" + std::string(subject) + "' is not a valid.");
}
RegistryError schema_too_large(std::string message) { return make(422, 42209, std::move(message)); }
RegistryError invalid_ruleset(std::string message) { return make(422, 42210, std::move(message)); }
RegistryError context_not_empty(std::string_view context) {
  return make(422, 42211, "The specified context '" + std::string(context) + "' is not empty.");
}
RegistryError invalid_association(std::string_view property, std::string_view why) {
  return make(422, 42212,
              "The association specified an invalid value for property: '" + std::string(property) +
                  "', detail: " + std::string(why));
}
RegistryError store_error(std::string message) { return make(500, 50001, std::move(message)); }
RegistryError operation_timeout(std::string message) { return make(500, 50002, std::move(message)); }
RegistryError forwarding_failed(std::string message) { return make(500, 50003, std::move(message)); }
RegistryError unknown_leader(std::string message) { return make(500, 50004, std::move(message)); }

std::string schema_key_text(std::string_view subject, int32_t version) {
  return "{magic=1,keytype=SCHEMA,subject=" + std::string(subject) + ",version=" + std::to_string(version) + "}";
}

}  // namespace skiff::schemareg::errors
