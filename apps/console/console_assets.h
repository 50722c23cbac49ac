// The web console's static files (apps/console/assets/: index.html,
// app.js, app.css), compiled into the binary at build time by
// tools/embed_assets.py (target skiff_console_assets), so the broker
// serves its console with no files on disk. The routes that serve them are
// registered with the rest of the console (server/http_routes.cc).
// Threads: constant data, readable from any thread.
#pragma once

#include <span>
#include <string_view>

namespace skiff::console {

struct ConsoleAsset {
  std::string_view path;          // as served: "/", "/console/app.js", ...
  std::string_view content_type;  // "text/html; charset=utf-8", ...
  std::string_view body;          // the file's bytes
};

// Every asset, "/" (index.html) first; paths as served: "/",
// "/console/app.js", "/console/app.css".
std::span<const ConsoleAsset> console_assets();

}  // namespace skiff::console
