// The legacy state files of tests/metadata/fixtures (see its README.md):
// their bytes, and copies of them in a data dir. Header-only; any thread.
#pragma once

#include <filesystem>
#include <string>

#include "log/file_util.h"
#include "metadata/namespaces.h"

namespace skiff::test {

inline std::filesystem::path fixture_dir() { return SKIFF_METADATA_FIXTURES; }

inline std::string fixture_bytes(const metadata::NamespaceDef& def) {
  std::string out;
  if (!storage::read_small_file(fixture_dir() / std::string(def.legacy_file), out))
    throw std::runtime_error("no fixture for " + std::string(def.name));
  return out;
}

// Every legacy file into `data_dir`, as the broker before the store left them.
inline void copy_fixtures(const std::filesystem::path& data_dir) {
  for (const auto& def : metadata::kNamespaces)
    if (!def.legacy_file.empty())
      std::filesystem::copy_file(fixture_dir() / std::string(def.legacy_file), data_dir / std::string(def.legacy_file),
                                 std::filesystem::copy_options::overwrite_existing);
}

}  // namespace skiff::test
