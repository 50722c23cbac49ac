// CRC-32C (Castagnoli, polynomial 0x1EDC6F41 / reflected 0x82F63B78), as used
// by Kafka's record batch (magic 2). Uses the SSE4.2 crc32 instruction when the
// CPU has it (checked once at runtime), else a slicing-by-8 table.
// Thread-safe, no state beyond constant tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace skiff::storage {

// Continues a CRC: crc32c_extend(crc32c_extend(0, a), b) == crc32c(a + b).
uint32_t crc32c_extend(uint32_t crc, const uint8_t* data, size_t size);

inline uint32_t crc32c(const uint8_t* data, size_t size) { return crc32c_extend(0, data, size); }
inline uint32_t crc32c(std::span<const uint8_t> s) { return crc32c_extend(0, s.data(), s.size()); }

// The portable implementation, exposed so tests can compare both paths.
uint32_t crc32c_extend_portable(uint32_t crc, const uint8_t* data, size_t size);
// Whether the hardware path is in use.
bool crc32c_hardware_available();

}  // namespace skiff::storage
