// RegistryFormats: the REST proxy's EmbeddedFormats port
// (apps/rest_proxy/embedded_formats.h) bound to the built-in Schema
// Registry's service (apps/schema_registry/registry_service.h): schemas by
// id, by subject and version, and the registration of a schema a v2
// produce names inline (under "<topic>-key" / "<topic>-value", as
// Confluent's REST Proxy registers it with the default subject strategy).
// Lives in server/, the one folder that sees both apps. The app gets it as
// a std::shared_ptr<restproxy::EmbeddedFormats> (V2Services::formats), null
// when no registry runs.
// Errors, as Confluent's REST Proxy answers them: an id or subject that is
// not found 422 / 42207 ("Error serializing message. ..."), a schema that
// does not parse or register 422 / 42205 ("Invalid schema: ...").
// Threads: any (the service guards its state); a registration waits for
// the registry's write to be durable, at most 15 s.
#pragma once

#include "apps/rest_proxy/embedded_formats.h"
#include "apps/schema_registry/registry_service.h"

namespace skiff::server {

class RegistryFormats final : public restproxy::EmbeddedFormats {
 public:
  explicit RegistryFormats(schemareg::RegistryService& service) : service_(service) {}

  restproxy::SchemaHandle by_id(int32_t id) override;
  restproxy::SchemaHandle register_schema(const std::string& subject, schema::SchemaType type,
                                          const std::string& text) override;
  restproxy::SchemaHandle by_subject(const std::string& subject, int version) override;

 private:
  restproxy::SchemaHandle handle_of(const schemareg::SubjectSchema& stored);

  schemareg::RegistryService& service_;
};

}  // namespace skiff::server
