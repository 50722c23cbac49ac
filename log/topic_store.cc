#include "log/topic_store.h"

#include <sstream>
#include <stdexcept>

#include "log/file_util.h"

namespace skiff::storage {
namespace {

std::string encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (c > ' ' && c < 0x7F && c != '%') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out.empty() ? "%" : out;  // a lone '%' stands for the empty string
}

std::string decode(const std::string& s) {
  if (s == "%") return "";
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

bool TopicStore::exists() const { return std::filesystem::exists(file_); }

std::map<std::string, TopicInfo> TopicStore::load() const {
  std::map<std::string, TopicInfo> topics;
  std::string text;
  if (!read_small_file(file_, text)) return topics;
  std::istringstream in(text);
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "skiff-topics") {
      int v = 0;
      ls >> v;
      if (v != 1) throw std::runtime_error("unsupported topic store version in " + file_.string());
      header = true;
    } else if (kind == "topic") {
      TopicInfo t;
      std::string id;
      if (!(ls >> t.name >> id >> t.partitions)) throw std::runtime_error("malformed topic line in " + file_.string());
      auto u = Uuid::parse(id);
      if (!u) throw std::runtime_error("malformed topic id in " + file_.string());
      t.topic_id = *u;
      topics[t.name] = t;
    } else if (kind == "config") {
      std::string name, key, value;
      if (!(ls >> name >> key >> value) || !topics.count(name)) {
        throw std::runtime_error("malformed config line in " + file_.string());
      }
      topics[name].overrides[key] = decode(value);
    } else {
      throw std::runtime_error("malformed line in " + file_.string());
    }
  }
  if (!header) throw std::runtime_error("missing header in " + file_.string());
  return topics;
}

Result<void> TopicStore::save(const std::map<std::string, TopicInfo>& topics) const {
  std::ostringstream out;
  out << "skiff-topics 1\n";
  for (const auto& [name, t] : topics) {
    out << "topic " << name << ' ' << t.topic_id.to_string() << ' ' << t.partitions << '\n';
    for (const auto& [k, v] : t.overrides) out << "config " << name << ' ' << k << ' ' << encode(v) << '\n';
  }
  return io_status(write_file_durably(file_, out.str()));
}

}  // namespace skiff::storage
