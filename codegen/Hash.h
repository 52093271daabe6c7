// A strong content hash (BLAKE3, 256 bits) for cache keys and cache entry payloads. LLVM-free
// header; the implementation uses LLVM's BLAKE3.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace loom {

using Digest = std::array<uint8_t, 32>;

Digest content_hash(std::string_view data);
// 64 lowercase hex digits.
std::string to_hex(const Digest &digest);

} // namespace loom
