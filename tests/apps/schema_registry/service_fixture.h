// A RegistryService on a FakeLog and the fake format, with synchronous
// helpers for the Schema Registry's service tests.
#pragma once

#include <optional>

#include "apps/schema_registry/registry_service.h"
#include "fake_format.h"
#include "fake_log.h"

namespace skiff::schemareg::testing {

template <class T>
struct Got {
  std::optional<Expected<T, RegistryError>> value;
  Reply<T> reply() {
    return [this](Expected<T, RegistryError> r) { value.emplace(std::move(r)); };
  }
};

inline SchemaInput in(std::string text, std::optional<std::string> type = std::nullopt,
                      std::vector<schema::SchemaReference> refs = {}) {
  SchemaInput i;
  i.schema = std::move(text);
  i.schema_type = std::move(type);
  i.references = std::move(refs);
  return i;
}

struct Registry {
  FakeLog log;
  RegistryService svc{log, parse_fake};

  Expected<SubjectSchema, RegistryError> reg(const std::string& subject, SchemaInput input, bool normalize = false) {
    Got<SubjectSchema> got;
    svc.register_schema(subject, std::move(input), normalize, got.reply());
    return std::move(*got.value);
  }
  Expected<SubjectSchema, RegistryError> reg(const std::string& subject, const std::string& text) {
    return reg(subject, in(text));
  }
  Expected<std::vector<int32_t>, RegistryError> del_subject(const std::string& subject, bool permanent) {
    Got<std::vector<int32_t>> got;
    svc.delete_subject(subject, permanent, got.reply());
    return std::move(*got.value);
  }
  Expected<int32_t, RegistryError> del_version(const std::string& subject, const std::string& v, bool permanent) {
    Got<int32_t> got;
    svc.delete_version(subject, v, permanent, got.reply());
    return std::move(*got.value);
  }
  Expected<ConfigRecord, RegistryError> put_level(std::optional<std::string> subject, const std::string& level) {
    ConfigRecord c;
    c.compatibility_level = level;
    Got<ConfigRecord> got;
    svc.put_config(std::move(subject), c, got.reply());
    return std::move(*got.value);
  }
  Expected<ConfigRecord, RegistryError> del_config(std::optional<std::string> subject) {
    Got<ConfigRecord> got;
    svc.delete_config(std::move(subject), got.reply());
    return std::move(*got.value);
  }
  Expected<Mode, RegistryError> put_mode(std::optional<std::string> subject, const std::string& mode,
                                         bool force = false) {
    Got<Mode> got;
    svc.put_mode(std::move(subject), mode, force, got.reply());
    return std::move(*got.value);
  }
  Expected<Mode, RegistryError> del_mode(std::optional<std::string> subject) {
    Got<Mode> got;
    svc.delete_mode(std::move(subject), got.reply());
    return std::move(*got.value);
  }
};

}  // namespace skiff::schemareg::testing
