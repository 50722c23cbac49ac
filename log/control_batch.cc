#include "log/control_batch.h"

#include <string>

#include "common/byte_order.h"
#include "log/batch_builder.h"

namespace skiff::storage {

std::vector<uint8_t> build_marker_batch(int64_t producer_id, int16_t producer_epoch, const TxnMarker& marker,
                                        int64_t timestamp_ms) {
  std::string key(4, '\0');
  store_be16(reinterpret_cast<uint8_t*>(key.data()), 0);
  store_be16(reinterpret_cast<uint8_t*>(key.data()) + 2,
             static_cast<uint16_t>(marker.commit ? kControlTypeCommit : kControlTypeAbort));
  std::string value(6, '\0');
  store_be16(reinterpret_cast<uint8_t*>(value.data()), 0);
  store_be32(reinterpret_cast<uint8_t*>(value.data()) + 2, static_cast<uint32_t>(marker.coordinator_epoch));
  BatchBuilder b;
  b.producer(producer_id, producer_epoch, -1).transactional(true).control(true);
  b.add(key, value, timestamp_ms);
  return b.build();
}

std::optional<TxnMarker> parse_marker(const RecordBatchView& batch) {
  if (!batch.is_control() || batch.compression() != Compression::kNone) return std::nullopt;
  RecordIterator it(batch);
  RecordView r;
  if (!it.next(r) || !r.key || r.key->size() < 4 || !r.value || r.value->size() < 6) return std::nullopt;
  RecordView extra;
  if (it.next(extra) || !it.ok()) return std::nullopt;  // a marker holds exactly one record
  const int16_t type = static_cast<int16_t>(load_be16(r.key->data() + 2));
  if (type != kControlTypeAbort && type != kControlTypeCommit) return std::nullopt;
  TxnMarker m;
  m.commit = type == kControlTypeCommit;
  m.coordinator_epoch = static_cast<int32_t>(load_be32(r.value->data() + 2));
  return m;
}

}  // namespace skiff::storage
