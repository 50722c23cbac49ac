// The one way tests make scratch directories: make_temp_dir() for a fresh
// directory the caller removes (or keeps, e.g. a broker's data dir across
// restarts), TempDir for one removed with its contents when it goes out of
// scope. Both create under $TMPDIR (std::filesystem::temp_directory_path) or
// a given parent (e.g. /dev/shm), named <prefix>-XXXXXX by mkdtemp, so
// parallel test processes never collide.
// Header-only; any thread (each call makes its own directory).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace skiff::test {

inline std::filesystem::path make_temp_dir(
    const std::string& prefix, const std::filesystem::path& parent = std::filesystem::temp_directory_path()) {
  std::string tmpl = (parent / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw std::system_error(errno, std::generic_category(), "mkdtemp " + tmpl);
  return tmpl;
}

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "skiff-test") : path_(make_temp_dir(prefix)) {}
  TempDir(const std::string& prefix, const std::filesystem::path& parent) : path_(make_temp_dir(prefix, parent)) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& s) const { return path_ / s; }

 private:
  std::filesystem::path path_;
};

}  // namespace skiff::test
