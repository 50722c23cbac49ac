// The REST proxy's configuration keys (apps/rest_proxy/, issue 53):
// rest.proxy.listeners and the bounds its routes apply, named after
// Confluent REST Proxy's (consumer.instance.timeout.ms, ...) under
// rest.proxy. The TLS of its https:// endpoints is listener.name.rest_proxy.ssl.*
// over ssl.* (config/config_loader.cc).
#include <fmt/format.h>

#include "config/config_def.h"

namespace skiff::config {
namespace {

template <class T>
ConfigKeyDef bound(std::string name, int64_t def, int64_t lo, int64_t hi, std::string doc,
                   T RestProxySettings::*member) {
  return ConfigKeyDef{
      std::move(name),
      sizeof(T) == 8 ? ConfigType::kLong : ConfigType::kInt,
      std::to_string(def),
      std::move(doc),
      [=](BrokerConfig& c, const std::string& v) { c.rest_proxy.*member = static_cast<T>(parse_integer(v, lo, hi)); },
      fmt::format("[{}, {}]", lo, hi)};
}

}  // namespace

void add_rest_proxy_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back({"rest.proxy.listeners", ConfigType::kList, "http://127.0.0.1:8082",
               "The built-in REST proxy's endpoints (Confluent REST Proxy's API v2 and v3), comma-separated "
               "http://host:port or https://host:port; empty: no proxy. An https:// endpoint serves TLS with the ssl.* "
               "keys, overridden key by key by listener.name.rest_proxy.ssl.*. A busy port fails startup when set "
               "explicitly and only warns when it is the default.",
               [](BrokerConfig& c, const std::string& v) { c.rest_proxy_listeners = parse_http_listener_list(v); },
               "http[s]://host:port[,http[s]://host:port...] (port in [0, 65535]), or empty"});
  d.push_back(bound("rest.proxy.consumer.instance.timeout.ms", 300000, 1000, kIntMax,
                    "A v2 consumer instance idle this long is deleted.",
                    &RestProxySettings::consumer_instance_timeout_ms));
  d.push_back(bound("rest.proxy.consumer.request.timeout.ms", 1000, 0, 300000,
                    "How long a v2 GET .../records waits for records at most, when the request asks no shorter.",
                    &RestProxySettings::consumer_request_timeout_ms));
  d.push_back(bound("rest.proxy.consumer.request.max.bytes", 67108864, 1024, kLongMax,
                    "The most record bytes one v2 GET .../records answers.",
                    &RestProxySettings::consumer_request_max_bytes));
  d.push_back(bound("rest.proxy.consumer.max.instances.per.user", 100, 1, 100000,
                    "The most v2 consumer instances one user (the HTTP Basic login, or everyone without it) may "
                    "have at once; one more is refused with 429.",
                    &RestProxySettings::max_instances_per_user));
  d.push_back(bound("rest.proxy.max.records.per.response", 10000, 1, 1000000,
                    "The most records one v2 GET .../records answers, and one v2 produce request may hold.",
                    &RestProxySettings::max_records_per_response));
  d.push_back(bound("rest.proxy.max.request.bytes", 67108864, 1024, kIntMax,
                    "The largest request body (413 beyond); a v3 streamed produce: the largest record in it.",
                    &RestProxySettings::max_request_bytes));
  d.push_back(bound("rest.proxy.worker.threads", 8, 1, 256,
                    "Worker threads of the REST proxy; every request runs on one (a v3 streamed produce for its "
                    "whole stream), at most 16 per thread wait, beyond that 503.",
                    &RestProxySettings::worker_threads));
}

}  // namespace skiff::config
