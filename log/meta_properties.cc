#include "log/meta_properties.h"

#include <charconv>
#include <sstream>
#include <stdexcept>

#include "log/file_util.h"

namespace skiff::storage {

std::optional<MetaProperties> read_meta_properties(const std::filesystem::path& log_dir) {
  std::string text;
  auto path = log_dir / "meta.properties";
  if (!read_small_file(path, text)) return std::nullopt;
  MetaProperties m;
  m.version = -1;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.pop_back();
    if (k == "version")
      m.version = std::stoi(v);
    else if (k == "cluster.id")
      m.cluster_id = v;
    else if (k == "node.id" || k == "broker.id")
      m.node_id = std::stoi(v);
    else if (k == "directory.id")
      m.directory_id = v;
  }
  if (m.version < 0) throw std::runtime_error("meta.properties without version in " + log_dir.string());
  return m;
}

Result<void> write_meta_properties(const std::filesystem::path& log_dir, const MetaProperties& m) {
  std::ostringstream out;
  out << "#\n#Written by skiff\n";
  out << "cluster.id=" << m.cluster_id << "\n";
  if (!m.directory_id.empty()) out << "directory.id=" << m.directory_id << "\n";
  out << "node.id=" << m.node_id << "\n";
  out << "version=" << m.version << "\n";
  return io_status(write_file_durably(log_dir / "meta.properties", out.str()));
}

}  // namespace skiff::storage
