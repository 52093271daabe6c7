// Counter-based random numbers as ordinary IR: Random123's Philox4x32-10, written out by the front
// ends (frontend/Philox.h, the text DSL's random.philox) as integer operations on a few locals, so
// that the interpreter, the CPU and the GPU run the same integer code and draw the same bits. No
// IR node and no code generator knows about random numbers.
//
// A generator (seed, stream, block) is a stream of 32-bit words: draw k is word k % 4 of the
// Philox4x32-10 block of counter (b, b >> 32, stream, stream >> 32), b = block + k / 4, under key
// (seed, seed >> 32), words low first (the counter and key layout of cuRAND's curand_init(seed,
// stream, 4 * block)). Four consecutive draws cost one block. docs/semantics.md ("Random
// numbers") defines the conversions below.
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loom::frontend {

// A generator's state: locals of the kernel, declared where the generator is made.
struct PhiloxState {
  std::string name;   // the prefix of the locals' names ("g": g_key0, g_ctr0, ...)
  ir::Var key[2];     // u32: the seed's low and high words
  ir::Var counter[4]; // u32: the next block's number (low, high), the stream (low, high)
  ir::Var out[4];     // u32: the words of the current block
  ir::Var pos;        // i32: the word of `out` the next draw takes; 4: none left
};

// What a draw gives, and the words it takes:
//   U32         u32, one word x
//   UniformF32  f32 in [0, 1): (x >> 8) * 2^-24, one word
//   UniformF64  f64 in [0, 1): (a << 21 | b >> 11) * 2^-53, two words a then b (the top 53 bits
//               of the 64-bit number a:b)
//   NormalF32   f32, Box-Muller: sqrt(-2 log u1) cos(2 pi u2), u1 = ((a >> 8) + 1) * 2^-24 in
//               (0, 1] and u2 = (b >> 8) * 2^-24, two words
//   NormalF64   f64, the same with u1 = (m1 + 1) * 2^-53, u2 = m2 * 2^-53, m1 and m2 the 53-bit
//               numbers of the uniform f64 of two words each: four words
enum class PhiloxDraw : uint8_t { U32, UniformF32, UniformF64, NormalF32, NormalF64 };

// The IR type a draw gives.
ir::ScalarType philox_draw_type(PhiloxDraw what);

// Declares a generator's locals (appended to `out`): seed, stream and block are integers of any
// type, converted to u64 as C++ converts them (a negative i32 is sign-extended).
PhiloxState philox_make(std::vector<ir::Stmt> &out, const std::string &name, ir::Expr seed,
                        ir::Expr stream, ir::Expr block);

// One draw: the statements that take its words are appended to `out` (each word is taken into a
// local, so the value does not change with later draws); returns its value.
ir::Expr philox_draw(std::vector<ir::Stmt> &out, const PhiloxState &g, PhiloxDraw what);

// An integer in [lo, hi) (lo when hi <= lo), of the type of lo and hi, which must be one of i32,
// u32, i64, u64: Lemire's multiply-shift with rejection, unbiased. With r = hi - lo, a word x
// gives (x * r) >> 32 unless the low half of x * r is below 2^32 mod r (then another word is
// drawn). A 64-bit range of 2^32 values or more takes two words a:b per attempt (a the high
// half) and the high 64 bits of the 128-bit product.
ir::Expr philox_randint(std::vector<ir::Stmt> &out, const PhiloxState &g, ir::Expr lo, ir::Expr hi);

} // namespace loom::frontend
