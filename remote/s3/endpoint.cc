#include "remote/s3/endpoint.h"

#include "remote/s3/sigv4.h"

namespace skiff::remote::s3 {

std::string Endpoint::host_header(std::string_view h) const {
  std::string out = h.find(':') != std::string_view::npos ? "[" + std::string(h) + "]" : std::string(h);
  if (port != (tls ? "443" : "80")) out += ":" + port;
  return out;
}

Expected<Endpoint, std::string> parse_endpoint(std::string_view url) {
  Endpoint e;
  std::string_view rest = url;
  if (rest.starts_with("https://")) {
    e.tls = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return unexpected("endpoint URL '" + std::string(url) + "' must start with http:// or https://");
  }
  if (rest.find_first_of("?#@") != std::string_view::npos)
    return unexpected("endpoint URL '" + std::string(url) + "' must not have user info, a query or a fragment");
  const auto slash = rest.find('/');
  auto authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash);
    while (path.ends_with("/")) path.remove_suffix(1);
    e.base_path = std::string(path);
  }
  e.port = e.tls ? "443" : "80";
  if (authority.starts_with("[")) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return unexpected("endpoint URL '" + std::string(url) + "': bad IPv6 host");
    e.host = std::string(authority.substr(1, close - 1));
    auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return unexpected("endpoint URL '" + std::string(url) + "': bad port");
      e.port = std::string(after.substr(1));
    }
  } else {
    const auto colon = authority.find(':');
    e.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) e.port = std::string(authority.substr(colon + 1));
  }
  if (e.host.empty()) return unexpected("endpoint URL '" + std::string(url) + "' has no host");
  if (e.port.empty() || e.port.size() > 5 || e.port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(e.port) == 0 || std::stoi(e.port) > 65535)
    return unexpected("endpoint URL '" + std::string(url) + "' has a bad port");
  return e;
}

Target target_of(const Endpoint& e, bool path_style, std::string_view bucket, std::string_view key) {
  Target t;
  std::string path = e.base_path;
  if (path_style) {
    t.connect_host = e.host;
    path += "/" + uri_encode(bucket, false);
    if (!key.empty()) path += "/" + uri_encode(key, true);
  } else {
    t.connect_host = std::string(bucket) + "." + e.host;
    path += "/" + uri_encode(key, true);
  }
  t.host_header = e.host_header(t.connect_host);
  t.canonical_uri = path;
  return t;
}

}  // namespace skiff::remote::s3
