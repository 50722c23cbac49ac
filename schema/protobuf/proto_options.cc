#include "schema/protobuf/proto_options.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "schema/protobuf/proto_numbers.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;
using Kind = OptionValue::Kind;

namespace {

// --- message literals (an uninterpreted option's aggregate value) ----------

class NoErrors : public gp::io::ErrorCollector {
 public:
  void AddError(int, gp::io::ColumnNumber, const std::string&) override {}
};

// Reads a message literal the way Wire's OptionReader reads one.
class LiteralReader {
 public:
  explicit LiteralReader(const std::string& text)
      : input_(text.data(), static_cast<int>(text.size())), tokenizer_(&input_, &errors_) {
    tokenizer_.Next();
  }

  OptionValue read_map(const char* close) {
    OptionValue map{Kind::kMap, {}, {}, {}};
    while (!at_end() && !looking_at(close)) {
      std::string key = read_key();
      if (looking_at(":")) next();
      add_entry(map, std::move(key), read_value());
      if (looking_at(",") || looking_at(";")) next();
    }
    if (looking_at(close)) next();
    return map;
  }

 private:
  bool at_end() { return tokenizer_.current().type == gp::io::Tokenizer::TYPE_END; }
  bool looking_at(const char* text) { return tokenizer_.current().text == text; }
  std::string next() {
    std::string text = tokenizer_.current().text;
    tokenizer_.Next();
    return text;
  }

  std::string read_key() {
    if (!looking_at("[")) return next();
    std::string key = next();
    while (!at_end() && !looking_at("]")) key += next();
    if (!at_end()) key += next();
    return key;
  }

  OptionValue read_value() {
    if (looking_at("{") || looking_at("<") || looking_at("[")) {
      // Deeper than libprotoc lets an option be: not read further.
      if (depth_ >= kMaxLiteralDepth) return OptionValue{Kind::kEnum, next(), {}, {}};
      std::string open = next();
      ++depth_;
      OptionValue value = open == "[" ? read_list() : read_map(open == "{" ? "}" : ">");
      --depth_;
      return value;
    }
    if (tokenizer_.current().type == gp::io::Tokenizer::TYPE_STRING) return read_string();
    if (looking_at("-")) {
      next();
      return OptionValue{Kind::kNumber, "-" + next(), {}, {}};
    }
    auto type = tokenizer_.current().type;
    std::string word = next();
    if (type == gp::io::Tokenizer::TYPE_INTEGER || type == gp::io::Tokenizer::TYPE_FLOAT) {
      return OptionValue{Kind::kNumber, word, {}, {}};
    }
    return OptionValue{word == "true" || word == "false" ? Kind::kBoolean : Kind::kEnum, word, {}, {}};
  }

  OptionValue read_string() {
    std::string text;
    while (tokenizer_.current().type == gp::io::Tokenizer::TYPE_STRING) {
      gp::io::Tokenizer::ParseStringAppend(next(), &text);
    }
    return OptionValue{Kind::kString, text, {}, {}};
  }

  OptionValue read_list() {
    OptionValue list{Kind::kList, {}, {}, {}};
    while (!at_end() && !looking_at("]")) {
      list.list.push_back(read_value());
      if (looking_at(",")) next();
    }
    if (!at_end()) next();
    return list;
  }

  // Wire: a key written again adds its value(s) to a list.
  static void add_entry(OptionValue& map, std::string key, OptionValue value) {
    for (OptionEntry& entry : map.map) {
      if (entry.key != key) continue;
      OptionValue& existing = entry.value;
      if (existing.kind != Kind::kList) existing = OptionValue{Kind::kList, {}, {}, {existing}};
      if (value.kind == Kind::kList) {
        for (auto& item : value.list) existing.list.push_back(std::move(item));
      } else {
        existing.list.push_back(std::move(value));
      }
      return;
    }
    map.map.push_back(OptionEntry{std::move(key), std::move(value)});
  }

  static constexpr int kMaxLiteralDepth = 128;
  int depth_ = 0;
  NoErrors errors_;
  gp::io::ArrayInputStream input_;
  gp::io::Tokenizer tokenizer_;
};

// --- reading options ---------------------------------------------------------

OptionValue value_of(const gp::UninterpretedOption& option) {
  if (option.has_identifier_value()) {
    const std::string& word = option.identifier_value();
    return OptionValue{word == "true" || word == "false" ? Kind::kBoolean : Kind::kEnum, word, {}, {}};
  }
  if (option.has_positive_int_value()) return {Kind::kNumber, std::to_string(option.positive_int_value()), {}, {}};
  if (option.has_negative_int_value()) return {Kind::kNumber, std::to_string(option.negative_int_value()), {}, {}};
  if (option.has_double_value()) return {Kind::kNumber, shortest_double(option.double_value()), {}, {}};
  if (option.has_string_value()) return {Kind::kString, option.string_value(), {}, {}};
  LiteralReader reader(option.aggregate_value());
  return reader.read_map("");
}

OptionItem item_of(const gp::UninterpretedOption& option) {
  OptionItem item;
  for (int i = 0; i < option.name_size(); ++i) {
    const auto& part = option.name(i);
    if (i == 0) {
      item.name = part.name_part();
      item.parenthesized = part.is_extension();
    } else {
      item.path.push_back(part.is_extension() ? "(" + part.name_part() + ")" : part.name_part());
    }
  }
  item.value = value_of(option);
  return item;
}

std::optional<OptionValue> scalar_field(const gp::Message& message, const gp::FieldDescriptor& field) {
  const gp::Reflection& r = *message.GetReflection();
  switch (field.cpp_type()) {
    case gp::FieldDescriptor::CPPTYPE_BOOL:
      return OptionValue{Kind::kBoolean, r.GetBool(message, &field) ? "true" : "false", {}, {}};
    case gp::FieldDescriptor::CPPTYPE_ENUM:
      return OptionValue{Kind::kEnum, r.GetEnum(message, &field)->name(), {}, {}};
    case gp::FieldDescriptor::CPPTYPE_STRING:
      return OptionValue{Kind::kString, r.GetString(message, &field), {}, {}};
    case gp::FieldDescriptor::CPPTYPE_INT32:
      return OptionValue{Kind::kNumber, std::to_string(r.GetInt32(message, &field)), {}, {}};
    case gp::FieldDescriptor::CPPTYPE_INT64:
      return OptionValue{Kind::kNumber, std::to_string(r.GetInt64(message, &field)), {}, {}};
    case gp::FieldDescriptor::CPPTYPE_UINT32:
      return OptionValue{Kind::kNumber, std::to_string(r.GetUInt32(message, &field)), {}, {}};
    case gp::FieldDescriptor::CPPTYPE_UINT64:
      return OptionValue{Kind::kNumber, std::to_string(r.GetUInt64(message, &field)), {}, {}};
    case gp::FieldDescriptor::CPPTYPE_DOUBLE:
      return OptionValue{Kind::kNumber, shortest_double(r.GetDouble(message, &field)), {}, {}};
    case gp::FieldDescriptor::CPPTYPE_FLOAT:
      return OptionValue{Kind::kNumber, shortest_double(r.GetFloat(message, &field)), {}, {}};
    default:
      return std::nullopt;
  }
}

std::vector<std::string_view> confluent_option_order(const std::string& options_type) {
  if (options_type == "google.protobuf.FileOptions") {
    return {"java_package",           "java_outer_classname",   "java_multiple_files", "java_generate_equals_and_hash",
            "java_string_check_utf8", "optimize_for",           "go_package",          "cc_generic_services",
            "java_generic_services",  "py_generic_services",    "deprecated",          "cc_enable_arenas",
            "objc_class_prefix",      "csharp_namespace",       "swift_prefix",        "php_class_prefix",
            "php_namespace",          "php_metadata_namespace", "ruby_package"};
  }
  if (options_type == "google.protobuf.MessageOptions")
    return {"no_standard_descriptor_accessor", "deprecated", "map_entry"};
  if (options_type == "google.protobuf.FieldOptions")
    return {"ctype", "packed", "jstype", "deprecated", "debug_redact", "retention"};
  if (options_type == "google.protobuf.EnumOptions") return {"allow_alias", "deprecated"};
  if (options_type == "google.protobuf.EnumValueOptions") return {"deprecated", "debug_redact"};
  if (options_type == "google.protobuf.ServiceOptions") return {"deprecated"};
  if (options_type == "google.protobuf.MethodOptions") return {"deprecated", "idempotency_level"};
  return {};
}

// --- printing ----------------------------------------------------------------

std::string format_map(const OptionValue& map, bool normalize) {
  std::vector<const OptionEntry*> entries;
  for (const auto& entry : map.map) {
    if (normalize && entry.value.kind == Kind::kList && entry.value.list.empty()) continue;
    if (normalize && std::any_of(entries.begin(), entries.end(), [&](auto* e) { return e->key == entry.key; }))
      continue;
    entries.push_back(&entry);
  }
  if (normalize) std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->key < b->key; });
  std::string out;
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string line = entries[i]->key + ": " + format_value(entries[i]->value, normalize);
    if (i + 1 < entries.size()) line += ",";
    append_indented(out, line);
  }
  return out;
}

std::string format_list(const std::vector<OptionValue>& list, bool normalize, bool brackets_inline) {
  if (brackets_inline && list.size() == 1) return "[" + format_value(list[0], normalize) + "]";
  std::string out = "[\n";
  for (size_t i = 0; i < list.size(); ++i) {
    append_indented(out, format_value(list[i], normalize) + (i + 1 < list.size() ? "," : ""));
  }
  return out + "]";
}

}  // namespace

std::vector<OptionItem> collect_options(const gp::Message& options) {
  std::vector<OptionItem> items;
  const gp::Reflection& r = *options.GetReflection();
  // The standard options a serialized file has set, those Confluent's
  // ProtobufSchema.toProtoFile knows, in its order.
  for (std::string_view name : confluent_option_order(options.GetDescriptor()->full_name())) {
    const gp::FieldDescriptor* field = options.GetDescriptor()->FindFieldByName(std::string(name));
    if (field == nullptr || field->is_repeated() || !r.HasField(options, field)) continue;
    if (auto value = scalar_field(options, *field)) items.push_back(OptionItem{field->name(), false, {}, *value});
  }
  const gp::FieldDescriptor* uninterpreted = options.GetDescriptor()->FindFieldByName("uninterpreted_option");
  if (uninterpreted == nullptr) return items;
  for (int i = 0; i < r.FieldSize(options, uninterpreted); ++i) {
    const auto* option = dynamic_cast<const gp::UninterpretedOption*>(&r.GetRepeatedMessage(options, uninterpreted, i));
    if (option != nullptr) items.push_back(item_of(*option));
  }
  return items;
}

std::string format_value(const OptionValue& value, bool normalize) {
  switch (value.kind) {
    case Kind::kString:
      return "\"" + escape_chars(value.text) + "\"";
    case Kind::kNumber:
      return normalize ? normalize_number(value.text) : value.text;
    case Kind::kMap:
      return "{\n" + format_map(value, normalize) + "}";
    case Kind::kList:
      if (normalize && value.list.size() == 1) return format_value(value.list[0], normalize);
      return format_list(value.list, normalize, false);
    default:
      return value.text;
  }
}

std::string format_option(const OptionItem& option, bool normalize) {
  std::string out = option.parenthesized ? "(" + option.name + ")" : option.name;
  for (const std::string& part : option.path) out += "." + part;
  if (option.value.kind == Kind::kList) return out + " = " + format_list(option.value.list, normalize, true);
  return out + " = " + format_value(option.value, normalize);
}

std::string escape_chars(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void append_indented(std::string& out, std::string_view text) {
  // Java's String.split("\n") drops the trailing empty lines.
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out += "  ";
    out += text.substr(start, end - start);
    out += '\n';
    start = end + 1;
  }
}

}  // namespace skiff::schema::protobuf
