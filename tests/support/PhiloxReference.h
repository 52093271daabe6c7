// A plain C++ Philox4x32-10 (Random123's philox4x32_R(10, ctr, key)) and loom's generator on top
// of it, written from the definitions in docs/semantics.md ("Random numbers") without loom's
// code: the reference the random number tests compare every backend with. Random123's known
// answers (its tests/kat_vectors file) are kKnownAnswers.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <type_traits>

namespace loomtest {

using PhiloxWords = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

// philox4x32_R(10, counter, key).
inline PhiloxWords philox4x32_10(PhiloxWords x, PhiloxKey key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += 0x9E3779B9u;
      key[1] += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t(0xD2511F53u) * x[0];
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * x[2];
    x = {uint32_t(p1 >> 32) ^ x[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ x[3] ^ key[1],
         uint32_t(p0)};
  }
  return x;
}

struct PhiloxKnownAnswer {
  PhiloxWords counter;
  PhiloxKey key;
  PhiloxWords output;
};
// Random123's kat_vectors, the three lines of philox4x32 10.
inline constexpr PhiloxKnownAnswer kKnownAnswers[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

// The (seed, stream, block) whose first four draws are the known answer's block.
inline uint64_t kat_seed(const PhiloxKnownAnswer &k) {
  return uint64_t(k.key[1]) << 32 | k.key[0];
}
inline uint64_t kat_stream(const PhiloxKnownAnswer &k) {
  return uint64_t(k.counter[3]) << 32 | k.counter[2];
}
inline uint64_t kat_block(const PhiloxKnownAnswer &k) {
  return uint64_t(k.counter[1]) << 32 | k.counter[0];
}

// loom's generator (seed, stream, block): draw k is word k % 4 of the block of counter
// (block + k / 4, stream) under key seed, words low first.
class PhiloxStream {
public:
  PhiloxStream(uint64_t seed, uint64_t stream, uint64_t block = 0)
      : key_{uint32_t(seed), uint32_t(seed >> 32)}, stream_(stream), block_(block) {}

  uint32_t next_u32() {
    if (pos_ == 4) {
      words_ = philox4x32_10(
          {uint32_t(block_), uint32_t(block_ >> 32), uint32_t(stream_), uint32_t(stream_ >> 32)},
          key_);
      ++block_;
      pos_ = 0;
    }
    return words_[pos_++];
  }
  uint64_t next_u64() { // the first word high
    const uint64_t a = next_u32();
    return a << 32 | next_u32();
  }
  float uniform_f32() { return float(next_u32() >> 8) * 0x1p-24f; }
  double uniform() { return double(next_u64() >> 11) * 0x1p-53; }
  float normal_f32() {
    const float u1 = float((next_u32() >> 8) + 1) * 0x1p-24f;
    const float u2 = float(next_u32() >> 8) * 0x1p-24f;
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(u2 * float(2 * std::numbers::pi));
  }
  double normal() {
    const double u1 = double((next_u64() >> 11) + 1) * 0x1p-53;
    const double u2 = double(next_u64() >> 11) * 0x1p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(u2 * (2 * std::numbers::pi));
  }
  // [lo, hi) by Lemire's method with rejection, as docs/semantics.md defines it.
  template <class T> T randint(T lo, T hi) {
    static_assert(std::is_integral_v<T> && sizeof(T) >= 4);
    using U = std::make_unsigned_t<T>;
    const U r = hi > lo ? U(U(hi) - U(lo)) : U(0);
    U offset;
    if (sizeof(T) == 4 || r <= 0xFFFFFFFFu)
      offset = U(lemire32(uint32_t(r)));
    else
      offset = U(lemire64(uint64_t(r)));
    return T(U(U(lo) + offset));
  }

private:
  uint32_t lemire32(uint32_t r) {
    uint64_t m = uint64_t(next_u32()) * r;
    if (uint32_t(m) < r) {
      const uint32_t t = uint32_t(-r) % r;
      while (uint32_t(m) < t)
        m = uint64_t(next_u32()) * r;
    }
    return uint32_t(m >> 32);
  }
  uint64_t lemire64(uint64_t r) {
    unsigned __int128 m = (unsigned __int128)next_u64() * r;
    if (uint64_t(m) < r) {
      const uint64_t t = uint64_t(-r) % r;
      while (uint64_t(m) < t)
        m = (unsigned __int128)next_u64() * r;
    }
    return uint64_t(m >> 64);
  }

  PhiloxKey key_;
  uint64_t stream_, block_;
  PhiloxWords words_{};
  int pos_ = 4;
};

} // namespace loomtest
