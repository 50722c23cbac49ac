#include "schema/protobuf/proto_pool.h"

#include <google/protobuf/stubs/logging.h>

#include <vector>

#include "schema/protobuf/proto_text.h"
#include "schema/protobuf/well_known.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;

namespace {

constexpr size_t kMaxReferences = 10'000;

// Collects DescriptorPool's errors as "element: message".
class PoolErrors : public gp::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& /*filename*/, const std::string& element, const gp::Message* /*descriptor*/,
                ErrorLocation /*location*/, const std::string& message) override {
    if (++count_ > 10) return;
    if (!text_.empty()) text_ += "; ";
    text_ += element.empty() ? message : element + ": " + message;
  }
  const std::string& text() const { return text_; }

 private:
  int count_ = 0;
  std::string text_;
};

bool imports_available(const gp::DescriptorPool& pool, const gp::FileDescriptorProto& file) {
  for (const std::string& dependency : file.dependency()) {
    if (pool.FindFileByName(dependency) == nullptr) return false;
  }
  return true;
}

std::string missing_imports(const gp::DescriptorPool& pool, const gp::FileDescriptorProto& file) {
  std::string missing;
  for (const std::string& dependency : file.dependency()) {
    if (pool.FindFileByName(dependency) != nullptr) continue;
    if (!missing.empty()) missing += ", ";
    missing += "\"" + dependency + "\"";
  }
  return missing;
}

Expected<const gp::FileDescriptor*, std::string> build_file(gp::DescriptorPool& pool,
                                                            const gp::FileDescriptorProto& file,
                                                            const std::string& what) {
  if (!imports_available(pool, file)) {
    return unexpected("Invalid Protobuf schema - " + what + " imports " + missing_imports(pool, file) +
                      ", which is neither a reference nor a well-known type");
  }
  PoolErrors errors;
  const gp::FileDescriptor* built = pool.BuildFileCollectingErrors(file, &errors);
  if (built == nullptr) return unexpected("Invalid Protobuf schema - " + what + ": " + errors.text());
  return built;
}

// Builds the referenced files whose imports are available, until all are
// built (references come dependencies first, but any order is accepted).
Expected<void, std::string> build_references(gp::DescriptorPool& pool, std::vector<gp::FileDescriptorProto> pending) {
  while (!pending.empty()) {
    bool progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      if (!imports_available(pool, *it)) {
        ++it;
        continue;
      }
      auto built = build_file(pool, *it, "reference \"" + it->name() + "\"");
      if (!built) return unexpected(built.error());
      it = pending.erase(it);
      progress = true;
    }
    if (!progress) {
      auto failed = build_file(pool, pending.front(), "reference \"" + pending.front().name() + "\"");
      return unexpected(failed.error());
    }
  }
  return {};
}

Expected<std::vector<gp::FileDescriptorProto>, std::string> parse_references(const SchemaSource& source) {
  if (source.resolved.size() > kMaxReferences) return unexpected(std::string("too many references"));
  std::vector<gp::FileDescriptorProto> files;
  std::map<std::string, bool> seen;
  for (const ResolvedReference& ref : source.resolved) {
    if (is_well_known(ref.name) || seen[ref.name]) continue;  // the built-in file wins
    seen[ref.name] = true;
    auto file = parse_proto_text(ref.text, ref.name);
    if (!file) return unexpected("reference \"" + ref.name + "\": " + file.error());
    file->clear_source_code_info();
    files.push_back(std::move(*file));
  }
  return files;
}

std::string main_file_name(const SchemaSource& source) {
  std::string name = "schema.proto";
  for (bool taken = true; taken;) {
    taken = false;
    for (const ResolvedReference& ref : source.resolved) taken = taken || ref.name == name;
    if (taken) name.insert(0, "_");
  }
  return name;
}

}  // namespace

Expected<BuiltSchema, std::string> build_schema(const SchemaSource& source) {
  BuiltSchema schema;
  auto raw = parse_proto_text(source.text, main_file_name(source), &schema.serialized);
  if (!raw) return unexpected(raw.error());
  schema.raw = std::move(*raw);
  schema.spans = SourceSpans(schema.raw.source_code_info());
  schema.raw.clear_source_code_info();  // the pool need not carry it
  auto references = parse_references(source);
  if (!references) return unexpected(references.error());
  gp::LogSilencer silence;
  schema.pool = std::make_unique<gp::DescriptorPool>(&well_known_pool());
  if (auto built = build_references(*schema.pool, std::move(*references)); !built) {
    return unexpected(built.error());
  }
  auto file = build_file(*schema.pool, schema.raw, "the schema");
  if (!file) return unexpected(file.error());
  schema.file = *file;
  for (const SchemaReference& ref : source.references) schema.references[ref.name] = ref;
  return schema;
}

}  // namespace skiff::schema::protobuf
