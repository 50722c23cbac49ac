#include "schema/protobuf/proto_text.h"

#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include <optional>

#include "common/base64.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;

namespace {

constexpr int kMaxReportedErrors = 10;

// Collects libprotoc's errors as "line:column: message", one-based.
class TextErrors : public gp::io::ErrorCollector {
 public:
  void AddError(int line, gp::io::ColumnNumber column, const std::string& message) override {
    ++count_;
    if (count_ > kMaxReportedErrors) return;
    if (!text_.empty()) text_ += "; ";
    text_ += std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  bool empty() const { return count_ == 0; }
  std::string text() const {
    if (count_ <= kMaxReportedErrors) return text_;
    return text_ + "; and " + std::to_string(count_ - kMaxReportedErrors) + " more";
  }

 private:
  int count_ = 0;
  std::string text_;
};

// Skips a quoted string starting at text[i] (the quote); returns the index
// after it (or the end).
size_t skip_string(std::string_view text, size_t i) {
  char quote = text[i++];
  while (i < text.size() && text[i] != quote && text[i] != '\n') {
    if (text[i] == '\\') ++i;
    ++i;
  }
  return i + 1;
}

// Skips a comment starting at text[i] ("//" or "/*"); returns the index after it.
size_t skip_comment(std::string_view text, size_t i) {
  if (text[i + 1] == '/') {
    size_t end = text.find('\n', i);
    return end == std::string_view::npos ? text.size() : end + 1;
  }
  size_t end = text.find("*/", i + 2);
  return end == std::string_view::npos ? text.size() : end + 2;
}

std::optional<gp::FileDescriptorProto> parse_serialized(std::string_view text) {
  std::optional<std::string> bytes = base64_decode(text);
  if (!bytes || bytes->empty()) return std::nullopt;
  gp::FileDescriptorProto file;
  if (!file.ParseFromString(*bytes)) return std::nullopt;
  return file;
}

}  // namespace

int brace_depth(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '"' || c == '\'') {
      i = skip_string(text, i);
      continue;
    }
    if (c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
      i = skip_comment(text, i);
      continue;
    }
    if (c == '{' || c == '<' || c == '[' || c == '(') deepest = std::max(deepest, ++depth);
    if ((c == '}' || c == '>' || c == ']' || c == ')') && depth > 0) --depth;
    ++i;
  }
  return deepest;
}

Expected<gp::FileDescriptorProto, std::string> parse_proto_text(std::string_view text, const std::string& file_name,
                                                                bool* serialized) {
  if (serialized != nullptr) *serialized = false;
  const std::string prefix = "Could not parse Protobuf - ";
  if (text.size() > kMaxSchemaBytes) {
    return unexpected(prefix + "the schema is larger than " + std::to_string(kMaxSchemaBytes) + " bytes");
  }
  if (brace_depth(text) > kMaxNesting) {
    return unexpected(prefix + "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
  }
  gp::LogSilencer silence;
  TextErrors errors;
  gp::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  gp::io::Tokenizer tokenizer(&input, &errors);
  gp::compiler::Parser parser;
  parser.RecordErrorsTo(&errors);
  gp::FileDescriptorProto file;
  bool ok = parser.Parse(&tokenizer, &file);
  if (ok && errors.empty()) {
    file.set_name(file_name);
    return file;
  }
  if (std::optional<gp::FileDescriptorProto> decoded = parse_serialized(text)) {
    decoded->set_name(file_name);
    if (serialized != nullptr) *serialized = true;
    return std::move(*decoded);
  }
  return unexpected(prefix + (errors.empty() ? std::string("invalid schema") : errors.text()));
}

}  // namespace skiff::schema::protobuf
