// The error codes of the responses sent, for Kafka's errors-per-API metric
// (kafka.network:type=RequestMetrics,name=ErrorsPerSec,request=,error=).
// Responder::send counts every ErrorCode field of the response it encodes
// (the generated for_each_error_code: what Kafka's errorCounts counts, NONE
// included) into an ErrorTally, then hands the tally to the ErrorObserver
// once per distinct code.
//
// Thread rules: an ErrorTally is one response's, on one thread; an
// ErrorObserver is called from any handler thread and must be thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

namespace skiff::api {

class ErrorObserver {
 public:
  virtual ~ErrorObserver() = default;
  virtual void on_errors(int16_t api_key, int16_t error_code, uint64_t count) = 0;
};

// Counts codes locally (a response has few distinct ones: a fetch of 1,000
// partitions is one NONE x 1000), so that the observer is called per code,
// not per partition.
class ErrorTally {
 public:
  ErrorTally(ErrorObserver& observer, int16_t api_key) : observer_(observer), api_key_(api_key) {}
  ErrorTally(const ErrorTally&) = delete;
  ErrorTally& operator=(const ErrorTally&) = delete;
  ~ErrorTally() {
    for (size_t i = 0; i < n_; ++i) observer_.on_errors(api_key_, codes_[i].first, codes_[i].second);
  }
  void operator()(int16_t code) {
    for (size_t i = 0; i < n_; ++i)
      if (codes_[i].first == code) {
        ++codes_[i].second;
        return;
      }
    if (n_ == codes_.size()) {
      observer_.on_errors(api_key_, code, 1);  // rare: more distinct codes than slots
      return;
    }
    codes_[n_++] = {code, 1};
  }

 private:
  ErrorObserver& observer_;
  int16_t api_key_;
  std::array<std::pair<int16_t, uint64_t>, 8> codes_{};
  size_t n_ = 0;
};

}  // namespace skiff::api
