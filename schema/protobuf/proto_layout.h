// The printer behind proto_printer.h (internal to schema/protobuf/): one
// Printer per print, walking the unbuilt file; with a built file it
// normalizes. Split over proto_printer.cc (file, messages, enums,
// services) and proto_printer_fields.cc (fields, oneofs, ranges, extends).
//
// Threads: a Printer is used by one thread for one print.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <string>
#include <vector>

#include "schema/protobuf/proto_options.h"
#include "schema/protobuf/proto_spans.h"

namespace skiff::schema::protobuf {

class Printer {
 public:
  using FileProto = google::protobuf::FileDescriptorProto;
  using MessageProto = google::protobuf::DescriptorProto;
  using FieldProto = google::protobuf::FieldDescriptorProto;
  using EnumProto = google::protobuf::EnumDescriptorProto;

  // `pool` holds the built file; `normalize` prints Confluent's normalized form.
  Printer(const FileProto& raw, const SourceSpans& spans, const google::protobuf::DescriptorPool& pool, bool normalize,
          bool serialized)
      : raw_(raw), pool_(pool), normalize_(normalize), serialized_(serialized), spans_(spans) {}

  std::string file();

 private:
  bool normalize() const { return normalize_; }
  std::string scoped(const std::string& scope, const std::string& name) const {
    return scope.empty() ? name : scope + "." + name;
  }

  // proto_printer.cc
  void file_header(std::string& out);
  template <class T>
  using Located = std::vector<std::pair<const T*, ProtoPath>>;
  void types(std::string& out, const Located<MessageProto>& messages, const Located<EnumProto>& enums,
             const std::string& scope, bool nested);
  std::string message(const MessageProto& m, const std::string& full_name, const ProtoPath& path);
  std::string enumeration(const EnumProto& e, const std::string& scope, const ProtoPath& path);
  std::string service(const google::protobuf::ServiceDescriptorProto& s);
  std::string rpc(const google::protobuf::MethodDescriptorProto& m, const std::string& service_name);
  std::vector<OptionItem> options(const google::protobuf::Message& options, const std::string& scope) const;
  // The options as the source has them (a serialized file's custom ones too).
  std::vector<OptionItem> written_options(const google::protobuf::Message& options) const;
  std::vector<OptionItem> finish_options(std::vector<OptionItem> items, const std::string& scope) const;
  std::string option_lines(const google::protobuf::Message& options, const std::string& scope) const;
  std::string resolve_type(const std::string& name, const std::string& scope) const;
  // The map entry a field's type is, when it prints as map<K, V>: a map
  // written so (not in a serialized file); normalized, any map entry.
  const google::protobuf::Descriptor* map_entry_of(const FieldProto& f, const MessageProto* owner,
                                                   const std::string& scope) const;
  // Whether a nested message is left out: a map written as map<K, V>;
  // normalized, any map entry.
  bool hidden_nested(const MessageProto& n, const std::string& full_name) const;

  // proto_printer_fields.cc
  void fields_section(std::string& out, const MessageProto& m, const std::string& full_name);
  void oneofs_section(std::string& out, const MessageProto& m, const std::string& full_name);
  void groups_section(std::string& out, const MessageProto& m, const std::string& full_name);
  std::string field(const FieldProto& f, const MessageProto* owner, const std::string& scope, bool with_label);
  std::string field_type(const FieldProto& f, const MessageProto* owner, const std::string& scope) const;
  std::string field_options(const FieldProto& f, const std::string& scope) const;
  std::string group(const FieldProto& f, const MessageProto& owner, const std::string& full_name, bool in_oneof);
  // Reserved or extension ranges ([start, last]) and names, by statement.
  struct Ranges {
    std::vector<std::pair<int64_t, int64_t>> ranges;
    std::vector<std::string> names;
    int range_field = 0;
    int name_field = 0;
  };
  std::string range_section(const std::string& keyword, const ProtoPath& path, const Ranges& list) const;
  std::string reserved(const MessageProto& m, const ProtoPath& path) const;
  std::string enum_reserved(const EnumProto& e, const ProtoPath& path) const;
  std::string extension_ranges(const MessageProto& m, const ProtoPath& path) const;
  std::string extends(const google::protobuf::RepeatedPtrField<FieldProto>& fields, const std::string& scope);

  const FileProto& raw_;
  const google::protobuf::DescriptorPool& pool_;
  bool normalize_;
  bool serialized_;
  const SourceSpans& spans_;
};

// What the printer asks of a raw message (shared with the tests' helpers).
bool is_map_entry(const google::protobuf::DescriptorProto& m);
const google::protobuf::DescriptorProto* nested_named(const google::protobuf::DescriptorProto& m,
                                                      const std::string& type_name);
bool in_real_oneof(const google::protobuf::FieldDescriptorProto& f);
std::string scalar_type_name(google::protobuf::FieldDescriptorProto::Type type);

}  // namespace skiff::schema::protobuf
