// GET /api/schemas and GET /api/schema (docs/console-api.md): the Schema
// Registry's subjects and one subject's versions, read through the
// SchemaCatalog port (console_schemas.h).
#include "apps/console/console_schemas.h"

#include "apps/console/console_endpoints.h"

namespace skiff::console {
namespace {

constexpr size_t kMaxSubjects = 1000;

const SchemaCatalog& catalog(const ConsoleCall& call) {
  if (call.broker.schemas == nullptr) not_found("the schema registry is off (schema.registry.listeners is empty)");
  return *call.broker.schemas;
}

void write_version(JsonWriter& w, const SchemaCatalog::Version& v) {
  w.begin_object().field("version", v.version).field("id", v.id).field("type", v.type).field("schema", v.schema);
  w.key("references").begin_array();
  for (const auto& r : v.references)
    w.begin_object().field("name", r.name).field("subject", r.subject).field("version", r.version).end_object();
  w.end_array().end_object();
}

}  // namespace

std::string list_schema_subjects(ConsoleCall& call) {
  const auto page = catalog(call).subjects(call.query("prefix").value_or(""), kMaxSubjects);
  JsonWriter w;
  w.begin_object().key("subjects").begin_array();
  for (const auto& s : page.subjects) {
    w.begin_object().field("subject", s.name).field("type", s.type).field("latest_version", s.latest_version);
    w.field("latest_id", s.latest_id).field("versions", s.versions).field("compatibility", s.compatibility);
    w.end_object();
  }
  w.end_array().field("total", static_cast<int64_t>(page.total));
  return w.end_object().take();
}

std::string describe_schema_subject(ConsoleCall& call) {
  const std::string name = call.required_query("subject");
  const auto detail = catalog(call).subject(name);
  if (!detail) not_found("no subject " + name + " in the schema registry");
  JsonWriter w;
  w.begin_object().field("subject", detail->name).field("compatibility", detail->compatibility);
  w.field("compatibility_own", detail->compatibility_own).key("versions").begin_array();
  for (const auto& v : detail->versions) write_version(w, v);
  w.end_array();
  return w.end_object().take();
}

}  // namespace skiff::console
