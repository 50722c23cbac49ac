#include "schema/protobuf/proto_spans.h"

#include <algorithm>

namespace skiff::schema::protobuf {

SourceSpans::SourceSpans(const google::protobuf::SourceCodeInfo& info) {
  for (const auto& location : info.location()) {
    const auto& s = location.span();
    if (s.size() != 3 && s.size() != 4) continue;
    SourceSpan span{s[0], s[1], s.size() == 4 ? s[2] : s[0], s.size() == 4 ? s[3] : s[2]};
    spans_[ProtoPath(location.path().begin(), location.path().end())].push_back(span);
  }
}

std::optional<SourceSpan> SourceSpans::span(const ProtoPath& path) const {
  auto it = spans_.find(path);
  if (it == spans_.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::vector<SourceSpans::Statement> SourceSpans::statements(const ProtoPath& prefix, int field, int count) const {
  std::vector<Statement> out;
  if (count == 0) return out;
  ProtoPath path = prefix;
  path.push_back(field);
  auto it = spans_.find(path);
  if (it != spans_.end()) {
    for (const SourceSpan& start : it->second) out.push_back(Statement{start, {}});
    std::sort(out.begin(), out.end(), [](const Statement& a, const Statement& b) { return a.start < b.start; });
  }
  if (out.empty()) {  // no source info (a serialized file): a statement each, as Confluent converts it
    for (int i = 0; i < count; ++i) out.push_back(Statement{{}, {i}});
    return out;
  }
  path.push_back(0);
  for (int i = 0; i < count; ++i) {
    path.back() = i;
    std::optional<SourceSpan> element = span(path);
    Statement* owner = &out.front();
    for (Statement& s : out) {
      if (element && !(*element < s.start)) owner = &s;
    }
    owner->elements.push_back(i);
  }
  std::erase_if(out, [](const Statement& s) { return s.elements.empty(); });
  return out;
}

}  // namespace skiff::schema::protobuf
