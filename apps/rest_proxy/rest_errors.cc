#include "apps/rest_proxy/rest_errors.h"

#include "common/json_writer.h"

namespace skiff::restproxy {

network::HttpResponse error_response(const RestError& e, const std::string& content_type) {
  JsonWriter w;
  w.begin_object();
  w.key("error_code").value(static_cast<int64_t>(e.error_code));
  w.key("message").value(std::string(e.what()));
  w.end_object();
  network::HttpResponse r;
  r.status = e.status;
  r.content_type = content_type;
  r.body = w.take();
  return r;
}

}  // namespace skiff::restproxy
