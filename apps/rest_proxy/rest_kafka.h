// RestKafka: how the REST proxy's routes reach Kafka. Each call makes an
// InProcessClient (client/in_process_client.h) that sends ordinary Kafka
// requests to KafkaApis as if they came from a connection on the proxy's
// listener name as `principal`, with client.id "skiff-rest-proxy"; so an
// HTTP call gets the validation, ACLs, quotas and metrics a Kafka client
// gets.
// Threads: any; the handler and sender outlive the app (server/ owns them).
#pragma once

#include <string>

#include "client/in_process_client.h"

namespace skiff::restproxy {

struct RestKafka {
  network::RequestHandler& handler;
  client::InProcessSender& sender;
  std::string listener;  // the listener name the requests are said to arrive on

  // `principal`: "User:<name>" (User:ANONYMOUS when no login is asked).
  client::InProcessClient client(const std::string& principal) const {
    return client::InProcessClient(handler, sender, {listener, principal, "skiff-rest-proxy"});
  }
};

}  // namespace skiff::restproxy
