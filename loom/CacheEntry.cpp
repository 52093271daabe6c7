#include "loom/CacheEntry.h"

#include "codegen/Hash.h"

#include <algorithm>
#include <cstring>

namespace loom {

namespace {

constexpr char magic[8] = {'L', 'O', 'O', 'M', 'C', 'A', 'C', 'H'};

void put_le(std::string &out, uint64_t value, int bytes) {
  for (int b = 0; b < bytes; ++b)
    out += static_cast<char>((value >> (8 * b)) & 0xff);
}

uint64_t get_le(std::string_view in, size_t offset, int bytes) {
  uint64_t value = 0;
  for (int b = 0; b < bytes; ++b)
    value |= uint64_t(static_cast<unsigned char>(in[offset + b])) << (8 * b);
  return value;
}

std::optional<std::string> reject(std::string *why, std::string reason) {
  if (why)
    *why = std::move(reason);
  return std::nullopt;
}

} // namespace

std::string encode_cache_entry(std::string_view key_text, std::string_view payload) {
  std::string out;
  out.reserve(cache_entry_header_size + key_text.size() + payload.size());
  out.append(magic, sizeof magic);
  put_le(out, cache_entry_format_version, 4);
  put_le(out, 0, 4);
  put_le(out, key_text.size(), 8);
  put_le(out, payload.size(), 8);
  Digest hash = content_hash(payload);
  out.append(reinterpret_cast<const char *>(hash.data()), hash.size());
  out.append(key_text);
  out.append(payload);
  return out;
}

std::optional<std::string> decode_cache_entry(std::string_view file, std::string_view key_text,
                                              std::string *why) {
  if (std::memcmp(file.data(), magic, std::min(file.size(), sizeof magic)) != 0)
    return reject(why, "not a loom cache entry (no LOOMCACH magic)");
  if (file.size() < cache_entry_header_size)
    return reject(why, "truncated: " + std::to_string(file.size()) + " bytes, shorter than the " +
                           std::to_string(cache_entry_header_size) + "-byte header");
  uint64_t version = get_le(file, 8, 4);
  if (version != cache_entry_format_version)
    return reject(why, "format version " + std::to_string(version) + ", this loom reads " +
                           std::to_string(cache_entry_format_version));
  if (get_le(file, 12, 4) != 0)
    return reject(why, "corrupted header (reserved field not zero)");
  uint64_t key_size = get_le(file, 16, 8), payload_size = get_le(file, 24, 8);
  uint64_t body = file.size() - cache_entry_header_size;
  // Written so that no sum can overflow, whatever the header says.
  if (key_size > body || payload_size != body - key_size)
    return reject(why, "sizes do not match the file (" + std::to_string(file.size()) +
                           " bytes for a key of " + std::to_string(key_size) +
                           " and a payload of " + std::to_string(payload_size) +
                           "): truncated or corrupted");
  if (file.substr(cache_entry_header_size, key_size) != key_text)
    return reject(why, "its key differs from the one looked up (corrupted, or a hash collision)");
  std::string_view payload = file.substr(cache_entry_header_size + key_size);
  Digest hash = content_hash(payload);
  if (std::memcmp(hash.data(), file.data() + 32, hash.size()) != 0)
    return reject(why, "the payload does not match its hash: corrupted");
  return std::string(payload);
}

} // namespace loom
