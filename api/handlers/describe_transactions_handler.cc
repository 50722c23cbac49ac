#include "api/handlers/describe_transactions_handler.h"

#include "api/authorize.h"
#include "coordinator/txn/txn_host.h"

namespace skiff::api {
namespace {

using protocol::DescribeTransactionsResponse;

DescribeTransactionsResponse::TransactionState to_wire(const txn::TxnDescription& d) {
  DescribeTransactionsResponse::TransactionState s;
  s.error_code = code(d.error);
  s.transactional_id = d.transactional_id;
  s.transaction_state = d.state;
  s.transaction_timeout_ms = d.timeout_ms;
  s.transaction_start_time_ms = d.start_ms;
  s.producer_id = d.producer_id;
  s.producer_epoch = d.epoch;
  for (const auto& tp : d.partitions) {
    if (s.topics.empty() || s.topics.back().topic != tp.topic) {
      s.topics.emplace_back();
      s.topics.back().topic = tp.topic;
    }
    s.topics.back().partitions.push_back(tp.partition);
  }
  return s;
}

}  // namespace

// DESCRIBE on each transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED
// for it); partitions of topics the principal may not DESCRIBE are left out (KafkaApis).
void DescribeTransactionsHandler::handle(ApiRequest& request, protocol::DescribeTransactionsRequest& body,
                                         Responder& out) {
  if (!services_.txn) {
    out.send(error_response(body, ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  auto work = [ids = body.transactional_ids, out, who = asker_of(request),
               &services = services_](txn::TxnCoordinator& c) mutable {
    DescribeTransactionsResponse r;
    for (const auto& id : ids) {
      if (!authorized_as(services, who, AclOperation::kDescribe, ResourceType::kTransactionalId, id)) {
        auto& s = r.transaction_states.emplace_back();
        s.transactional_id = id;
        s.error_code = code(ErrorCode::kTransactionalIdAuthorizationFailed);
        continue;
      }
      auto d = c.describe(id);
      d.transactional_id = id;
      r.transaction_states.push_back(to_wire(d));
      std::erase_if(r.transaction_states.back().topics, [&](const auto& t) {
        return !authorized_as(services, who, AclOperation::kDescribe, ResourceType::kTopic, t.topic);
      });
    }
    out.send(r);
  };
  auto fail = [out, body, this](ErrorCode e) mutable { out.send(error_response(body, e)); };
  services_.txn->submit(std::move(work), fail);
}

DescribeTransactionsResponse DescribeTransactionsHandler::error_response(
    const protocol::DescribeTransactionsRequest& body, ErrorCode error) {
  DescribeTransactionsResponse r;
  for (const auto& id : body.transactional_ids) {
    DescribeTransactionsResponse::TransactionState s;
    s.error_code = code(error);
    s.transactional_id = id;
    s.transaction_start_time_ms = -1;
    s.producer_id = -1;
    s.producer_epoch = -1;
    r.transaction_states.push_back(std::move(s));
  }
  return r;
}

}  // namespace skiff::api
