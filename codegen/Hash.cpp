#include "codegen/Hash.h"

#include <llvm/Support/BLAKE3.h>

namespace loom {

Digest content_hash(std::string_view data) {
  llvm::BLAKE3 hasher;
  hasher.update(llvm::StringRef(data.data(), data.size()));
  llvm::BLAKE3Result<32> result = hasher.final();
  Digest digest;
  std::copy(result.begin(), result.end(), digest.begin());
  return digest;
}

std::string to_hex(const Digest &digest) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * digest.size());
  for (uint8_t byte : digest) {
    out += digits[byte >> 4];
    out += digits[byte & 15];
  }
  return out;
}

} // namespace loom
