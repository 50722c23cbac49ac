// RegistryCatalog: the web console's SchemaCatalog port
// (apps/console/console_schemas.h) bound to the built-in Schema Registry's
// service (apps/schema_registry/registry_service.h): the subjects and
// versions the registry serves, and the decoding of values framed with one
// of its ids through the schema's format (schema/format/schema_format.h's
// decode()). Lives in server/, the one folder that sees both apps.
// Threads: any (the service guards its state).
#pragma once

#include "apps/console/console_schemas.h"
#include "apps/schema_registry/registry_service.h"

namespace skiff::server {

class RegistryCatalog final : public console::SchemaCatalog {
 public:
  explicit RegistryCatalog(const schemareg::RegistryService& service) : service_(service) {}

  SubjectPage subjects(std::string_view prefix, size_t limit) const override;
  std::optional<SubjectDetail> subject(const std::string& name) const override;
  std::optional<Decoded> decode(std::string_view bytes) const override;

 private:
  std::string compatibility(const std::string& subject) const;

  const schemareg::RegistryService& service_;
};

}  // namespace skiff::server
