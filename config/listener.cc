#include "config/listener.h"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <stdexcept>

#include "config/string_util.h"

namespace skiff::config {

std::string Listener::to_string() const {
  if (host.find(':') != std::string::npos) return fmt::format("{}://[{}]:{}", name, host, port);
  return fmt::format("{}://{}:{}", name, host, port);
}

Listener parse_listener(std::string_view text) {
  text = trim(text);
  auto sep = text.find("://");
  if (sep == std::string_view::npos || sep == 0)
    throw std::invalid_argument("expected NAME://host:port, e.g. PLAINTEXT://localhost:9092");
  Listener l;
  l.name = std::string(text.substr(0, sep));
  for (char c : l.name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      throw std::invalid_argument(fmt::format("listener name '{}' may only hold letters, digits, '_' and '-'", l.name));
  }
  std::string_view rest = text.substr(sep + 3);
  std::string_view port_text;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
      throw std::invalid_argument("an IPv6 host must be written [addr]:port");
    l.host = std::string(rest.substr(1, close - 1));
    port_text = rest.substr(close + 2);
  } else {
    auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) throw std::invalid_argument("missing ':port'");
    l.host = std::string(rest.substr(0, colon));
    if (l.host.find(':') != std::string::npos) throw std::invalid_argument("an IPv6 host must be written [addr]:port");
    port_text = rest.substr(colon + 1);
  }
  int port = -1;
  auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || ptr != port_text.data() + port_text.size() || port < 0 || port > 65535)
    throw std::invalid_argument(fmt::format("port '{}' is not a number in [0, 65535]", port_text));
  l.port = static_cast<uint16_t>(port);
  return l;
}

std::vector<Listener> parse_listener_list(std::string_view text) {
  std::vector<Listener> out;
  std::set<std::string> names;
  for (auto& item : split_list(text)) {
    Listener l = parse_listener(item);
    if (!names.insert(l.name).second)
      throw std::invalid_argument(fmt::format("listener name '{}' appears twice", l.name));
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<Listener> parse_http_listener_list(std::string_view text) {
  std::vector<Listener> out;
  for (auto& item : split_list(text)) {
    auto sep = item.find("://");
    if (sep == std::string::npos)
      throw std::invalid_argument(fmt::format("'{}' is not http://host:port or https://host:port", item));
    auto scheme = to_lower(item.substr(0, sep));
    if (scheme != "http" && scheme != "https")
      throw std::invalid_argument(
          fmt::format("scheme '{}' is not served: only http:// and https://", item.substr(0, sep)));
    out.push_back(parse_listener(scheme + item.substr(sep)));
  }
  return out;
}

}  // namespace skiff::config
