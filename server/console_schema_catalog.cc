#include "server/console_schema_catalog.h"

#include "common/byte_order.h"

namespace skiff::server {
namespace {

constexpr size_t kMaxShownJson = size_t{256} * 1024;

console::SchemaCatalog::Version version_of(const schemareg::SubjectSchema& s) {
  console::SchemaCatalog::Version v{s.version, s.id, std::string(schema::type_name(s.type)), s.schema, {}};
  for (const auto& r : s.references) v.references.push_back({r.name, r.subject, r.version});
  return v;
}

}  // namespace

std::string RegistryCatalog::compatibility(const std::string& subject) const {
  auto config = service_.get_config(subject, true);
  return config && config->compatibility_level ? *config->compatibility_level : std::string();
}

console::SchemaCatalog::SubjectPage RegistryCatalog::subjects(std::string_view prefix, size_t limit) const {
  SubjectPage page;
  const auto names = service_.list_subjects(prefix, false, false);
  page.total = names.size();
  for (const auto& name : names) {
    if (page.subjects.size() >= limit) break;
    const auto latest = service_.get_version(name, "latest", false);
    const auto versions = service_.list_versions(name, false, false);
    if (!latest || !versions) continue;  // deleted since the listing
    page.subjects.push_back({name, std::string(schema::type_name(latest->type)), latest->version, latest->id,
                             static_cast<int32_t>(versions->size()), compatibility(name)});
  }
  return page;
}

std::optional<console::SchemaCatalog::SubjectDetail> RegistryCatalog::subject(const std::string& name) const {
  const auto versions = service_.list_versions(name, false, false);
  if (!versions || versions->empty()) return std::nullopt;
  SubjectDetail detail{name, compatibility(name), service_.get_config(name, false).has_value(), {}};
  for (int32_t v : *versions) {
    if (auto s = service_.get_version(name, std::to_string(v), false)) detail.versions.push_back(version_of(*s));
  }
  return detail;
}

std::optional<console::SchemaCatalog::Decoded> RegistryCatalog::decode(std::string_view bytes) const {
  if (bytes.size() < 5 || bytes[0] != 0) return std::nullopt;
  const auto id = static_cast<int32_t>(load_be32(reinterpret_cast<const uint8_t*>(bytes.data() + 1)));
  const auto stored = service_.schema_by_id(id, std::nullopt);
  if (!stored) return std::nullopt;
  Decoded out{id, std::string(schema::type_name(stored->type)), {}, std::nullopt, {}};
  const auto parsed = service_.parsed(*stored);
  if (!parsed) {
    out.error = "the schema of id " + std::to_string(id) + " does not parse: " + parsed.error().message;
    return out;
  }
  auto value = (*parsed)->decode(bytes.substr(5));
  if (!value) {
    out.error = std::move(value.error());
  } else if (value->json.size() > kMaxShownJson) {
    out.error = "the decoded value is " + std::to_string(value->json.size()) + " bytes of JSON, too large to show";
  } else {
    out.json = std::move(value->json);
    out.type_name = std::move(value->type_name);
  }
  return out;
}

}  // namespace skiff::server
