// The JSON of Confluent Schema Registry's REST API around RegistryService:
// request bodies decoded into its parameters, its answers encoded as
// Confluent's entities, so the HTTP layer only maps routes and query
// parameters. Shapes (members absent when empty; schemaType absent for AVRO,
// as the REST examples show and clients default it):
//   Schema (GET /subjects/{s}/versions/{v}, POST /subjects/{s}, GET /schemas):
//     {"subject","version","id","schemaType","references","metadata","ruleSet","schema"}
//   SchemaString (GET /schemas/ids/{id}): {"schemaType","schema","references","metadata","ruleSet","maxId"}
//   RegisterSchemaResponse: {"id"}
//   Config (GET, DELETE /config): {"alias",...,"compatibilityLevel",...}
//   ConfigUpdateRequest (PUT /config answer): the same with "compatibility"
//   Mode: {"mode"}   CompatibilityCheckResponse: {"is_compatible","messages"}
//   SubjectVersion list: [{"subject","version"}]   error: {"error_code","message"}
// Request bodies: RegisterSchemaRequest {"schema","schemaType","references",
// "version","id","metadata","ruleSet"} (unknown members ignored, as Jackson's
// ignoreUnknown), ConfigUpdateRequest {"compatibility", ...} ("compatibilityLevel"
// read too), ModeUpdateRequest {"mode"}. A body that is not JSON is 400
// (error_code 400), a member of the wrong type 422 (error_code 422), as
// rest-utils' Jackson exception mappers answer.
// Pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/schema_registry/registry_service.h"

namespace skiff::schemareg {

Expected<SchemaInput, RegistryError> decode_schema_request(std::string_view body);
Expected<ConfigRecord, RegistryError> decode_config_request(std::string_view body);
Expected<std::string, RegistryError> decode_mode_request(std::string_view body);

std::string error_json(const RegistryError& error);
std::string schema_json(const SubjectSchema& schema);
std::string schemas_json(const std::vector<SubjectSchema>& schemas);
std::string schema_string_json(const SubjectSchema& schema, std::optional<int32_t> max_id = std::nullopt);
std::string register_json(const SubjectSchema& registered);
std::string config_json(const ConfigRecord& config);         // Config: "compatibilityLevel"
std::string config_update_json(const ConfigRecord& config);  // ConfigUpdateRequest: "compatibility"
std::string mode_json(Mode mode);
std::string compatibility_json(const CompatibilityResult& result, bool verbose);
std::string subject_versions_json(const std::vector<SubjectVersion>& versions);
std::string strings_json(const std::vector<std::string>& items);
std::string ints_json(const std::vector<int32_t>& items);

}  // namespace skiff::schemareg
