// The JSON of Confluent Schema Registry's REST bodies (apps/schema_registry/
// registry_http.h): the request bodies it reads (RegisterSchemaRequest,
// ConfigUpdateRequest, ModeUpdateRequest) and the answers it writes (Schema,
// SchemaString, Config, CompatibilityCheckResponse, ErrorMessage), members in
// Confluent's order, null members and empty lists left out as its Jackson
// settings do. Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "apps/schema_registry/registry_service.h"
#include "common/json.h"

namespace skiff::schemareg::json {

// {"schema", "schemaType", "references", "id", "version", "metadata", "ruleSet"};
// 42201-shaped errors for a body that is not such an object (Confluent
// answers 422 for a body Jackson cannot map; 400 for one that is not JSON).
Expected<SchemaInput, RegistryError> schema_input(const JsonValue& body);
// ConfigUpdateRequest: "compatibility" (or "compatibilityLevel") and the rest.
Expected<ConfigRecord, RegistryError> config_update(const JsonValue& body);
// ModeUpdateRequest: "mode".
Expected<std::string, RegistryError> mode_update(const JsonValue& body);

// GET /subjects/{s}/versions/{v}, lookup, /schemas entries.
std::string subject_schema(const SubjectSchema& s);
std::string subject_schemas(const std::vector<SubjectSchema>& list);
// GET /schemas/ids/{id}: no subject or version; maxId when asked.
std::string schema_string(const SubjectSchema& s, std::optional<int32_t> max_id);
// GET /config (compatibilityLevel) or the PUT answer (compatibility).
std::string config(const ConfigRecord& c, bool as_update);
std::string compatibility(const CompatibilityResult& r, bool verbose);
std::string error(const RegistryError& e);
std::string strings(const std::vector<std::string>& list);
std::string ints(const std::vector<int32_t>& list);
std::string subject_versions(const std::vector<SubjectVersion>& list);

}  // namespace skiff::schemareg::json
