// A metadata store (metadata/metadata_store.h) in a test's scratch directory:
// opened, or the test case fails. Header-only; the thread rules of the store.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>

#include "metadata/metadata_store.h"

namespace skiff::test {

inline std::unique_ptr<metadata::MetadataStore> open_metadata(const std::filesystem::path& dir) {
  auto store = metadata::MetadataStore::open(dir);
  REQUIRE(store);
  return std::move(*store);
}

}  // namespace skiff::test
