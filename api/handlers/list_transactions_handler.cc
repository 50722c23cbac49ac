#include "api/handlers/list_transactions_handler.h"

#include "api/api_log.h"
#include "api/authorize.h"
#include "common/log_escape.h"
#include "coordinator/txn/txn_host.h"
#include "protocol/name_pattern.h"

namespace skiff::api {

// Lists only the transactional ids the principal may DESCRIBE (KafkaApis).
void ListTransactionsHandler::handle(ApiRequest& request, protocol::ListTransactionsRequest& body, Responder& out) {
  if (!services_.txn) {
    out.send(error_response(body, ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  std::set<int64_t> pids(body.producer_id_filters.begin(), body.producer_id_filters.end());
  std::set<std::string> states(body.state_filters.begin(), body.state_filters.end());
  // v2: null or empty lists every id (Kafka 4.4's TransactionStateManager).
  std::shared_ptr<protocol::NamePattern> pattern;
  if (body.transactional_id_pattern && !body.transactional_id_pattern->empty()) {
    pattern = std::make_shared<protocol::NamePattern>(*body.transactional_id_pattern);
    if (!pattern->ok()) {
      api_log().info("ListTransactions: transaction ID pattern `{}` is not a valid regular expression: {}",
                     escaped(*body.transactional_id_pattern), escaped(pattern->error()));
      out.send(error_response(body, ErrorCode::kInvalidRegularExpression));
      return;
    }
  }
  auto work = [pids, states, pattern, duration = body.duration_filter, out, who = asker_of(request),
               &services = services_](txn::TxnCoordinator& c) mutable {
    std::function<bool(const std::string&)> filter;
    if (pattern) filter = [&pattern](const std::string& id) { return pattern->matches(id); };
    auto listing = c.list(pids, states, duration, filter);
    protocol::ListTransactionsResponse r;
    r.unknown_state_filters = listing.unknown_state_filters;
    for (const auto& e : listing.states) {
      if (!authorized_as(services, who, AclOperation::kDescribe, ResourceType::kTransactionalId, e.transactional_id))
        continue;
      protocol::ListTransactionsResponse::TransactionState s;
      s.transactional_id = e.transactional_id;
      s.producer_id = e.producer_id;
      s.transaction_state = e.state;
      r.transaction_states.push_back(std::move(s));
    }
    out.send(r);
  };
  auto fail = [out, body, this](ErrorCode e) mutable { out.send(error_response(body, e)); };
  services_.txn->submit(std::move(work), fail);
}

protocol::ListTransactionsResponse ListTransactionsHandler::error_response(const protocol::ListTransactionsRequest&,
                                                                           ErrorCode error) {
  protocol::ListTransactionsResponse r;
  r.error_code = code(error);
  return r;
}

}  // namespace skiff::api
