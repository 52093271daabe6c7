// The bytes of one disk cache entry. A file starts with a 64-byte header, then holds the key
// text and the payload:
//
//   0  magic "LOOMCACH"            16  key size (u64)      32  BLAKE3 of the payload (32 bytes)
//   8  format version (u32)        24  payload size (u64)
//  12  zero (u32, checked)
//
// (integers little-endian). A file is used only if all of it checks out: the magic, this format
// version, sizes that add up to the file's, the whole key, and the payload's hash. Anything
// else (a file cut short by a crash, a flipped bit, an older loom's format) is rejected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loom {

constexpr uint32_t cache_entry_format_version = 1;
constexpr size_t cache_entry_header_size = 64;

std::string encode_cache_entry(std::string_view key_text, std::string_view payload);

// The payload of `file` when it is an intact entry for `key_text`; otherwise nullopt, and *why
// (when given) says what is wrong with it.
std::optional<std::string> decode_cache_entry(std::string_view file, std::string_view key_text,
                                              std::string *why = nullptr);

} // namespace loom
