#include "api/handlers/describe_cluster_handler.h"

#include "api/authorize.h"

namespace skiff::api {

void DescribeClusterHandler::handle(ApiRequest& request, protocol::DescribeClusterRequest& body, Responder& out) {
  protocol::DescribeClusterResponse r;
  if (body.endpoint_type != 1) {  // 1 = brokers; 2 = controllers (KIP-919), asked by --bootstrap-controller
    // Kafka's answers and messages (v0 cannot carry another type).
    const bool controllers = body.endpoint_type == 2;
    r.error_code = code(controllers ? ErrorCode::kMismatchedEndpointType : ErrorCode::kUnsupportedEndpointType);
    r.error_message = controllers ? "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of "
                                    "type CONTROLLER"
                                  : "Unsupported endpoint type " + std::to_string(body.endpoint_type);
    out.send(r);
    return;
  }
  r.error_message = std::nullopt;
  r.cluster_id = services_.broker.cluster_id;
  r.controller_id = services_.broker.node_id;
  const auto& ep = services_.broker.endpoint_for(request.context().listener_name);
  protocol::DescribeClusterResponse::DescribeClusterBroker b;
  b.broker_id = services_.broker.node_id;
  b.host = ep.host;
  b.port = ep.port;
  r.brokers.push_back(b);
  // As Kafka's AuthHelper.computeDescribeClusterResponse: 0 without DESCRIBE on the cluster.
  if (body.include_cluster_authorized_operations)
    r.cluster_authorized_operations =
        authorized_cluster(services_, request, AclOperation::kDescribe)
            ? authorized_ops(services_, request, ResourceType::kCluster, kClusterResourceName)
            : 0;
  out.send(r);
}

protocol::DescribeClusterResponse DescribeClusterHandler::error_response(const protocol::DescribeClusterRequest&,
                                                                         ErrorCode error) {
  protocol::DescribeClusterResponse r;
  r.error_code = code(error);
  return r;
}

}  // namespace skiff::api
