// CRC-32C (Castagnoli), the checksum TFRecord files use, and TFRecord's masking of it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlprof::format {

// CRC-32C of [data, data+size), continuing from `crc` (0 for a fresh checksum).
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0) noexcept;

// TFRecord stores CRCs masked, because a CRC of bytes that embed CRCs is weak.
inline uint32_t mask_crc(uint32_t crc) noexcept {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

}  // namespace mlprof::format
