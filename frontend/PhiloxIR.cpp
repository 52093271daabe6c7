#include "frontend/PhiloxIR.h"

#include "support/Error.h"

#include <numbers>
#include <utility>

namespace loom::frontend {

namespace {

using ir::BinaryOp;
using ir::Expr;
using ir::ScalarType;
using ir::Stmt;
using ir::Var;

// Random123's constants of Philox4x32: the round multipliers and the key's Weyl increments.
constexpr uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
constexpr int kRounds = 10;

Expr u32(uint64_t v) {
  return ir::IntConst::make(ScalarType::U32, static_cast<int64_t>(v));
}
Expr u64(uint64_t v) {
  return ir::IntConst::make(ScalarType::U64, static_cast<int64_t>(v));
}
Expr i32(int64_t v) {
  return ir::IntConst::make(ScalarType::I32, v);
}
Expr read(const Var &v) {
  return ir::VarRef::make(v);
}
Expr op(BinaryOp o, Expr a, Expr b) {
  return ir::Binary::make(o, std::move(a), std::move(b));
}
Expr to(ScalarType t, Expr e) {
  return ir::Cast::make(t, std::move(e));
}
Expr call(ir::MathFn fn, Expr a) {
  return ir::Call::make(fn, {std::move(a)});
}

Var local(std::vector<Stmt> &out, const std::string &name, Expr init) {
  Var v = ir::make_var(name, init.type());
  out.push_back(ir::Declare::make(v, std::move(init)));
  return v;
}
void assign(std::vector<Stmt> &out, const Var &v, Expr value) {
  out.push_back(ir::Assign::make(v, std::move(value)));
}

// The next block into `out`, from the counter, which then steps by one (its low 64 bits); the
// next draw takes word 0. Random123's philox4x32_R(10, ctr, key): each round multiplies words 0
// and 2 into 64-bit products and mixes their halves with words 1 and 3 and the key, which gains
// its Weyl increments from one round to the next.
std::vector<Stmt> refill(const PhiloxState &g) {
  std::vector<Stmt> s;
  const Var *x = g.out;
  for (int k = 0; k < 4; ++k)
    assign(s, x[k], read(g.counter[k]));
  Var p0 = local(s, g.name + "_p0", u64(0)), p1 = local(s, g.name + "_p1", u64(0));
  for (int r = 0; r < kRounds; ++r) {
    Expr k0 = read(g.key[0]), k1 = read(g.key[1]);
    if (r > 0) {
      k0 = op(BinaryOp::Add, k0, u32(uint64_t(kWeyl0) * r));
      k1 = op(BinaryOp::Add, k1, u32(uint64_t(kWeyl1) * r));
    }
    assign(s, p0, op(BinaryOp::Mul, to(ScalarType::U64, read(x[0])), u64(kMultiplier0)));
    assign(s, p1, op(BinaryOp::Mul, to(ScalarType::U64, read(x[2])), u64(kMultiplier1)));
    auto high = [](const Var &p) {
      return to(ScalarType::U32, op(BinaryOp::Shr, read(p), u64(32)));
    };
    // Word 0 reads the old word 1 and word 2 the old word 3, so they are assigned first.
    assign(s, x[0], op(BinaryOp::BitXor, op(BinaryOp::BitXor, high(p1), read(x[1])), k0));
    assign(s, x[1], to(ScalarType::U32, read(p1)));
    assign(s, x[2], op(BinaryOp::BitXor, op(BinaryOp::BitXor, high(p0), read(x[3])), k1));
    assign(s, x[3], to(ScalarType::U32, read(p0)));
  }
  assign(s, g.counter[0], op(BinaryOp::Add, read(g.counter[0]), u32(1)));
  Expr carry = ir::Select::make(op(BinaryOp::Eq, read(g.counter[0]), u32(0)), u32(1), u32(0));
  assign(s, g.counter[1], op(BinaryOp::Add, read(g.counter[1]), carry));
  assign(s, g.pos, i32(0));
  return s;
}

// The next word, in a local of its own: a new block first when the current one is used up.
Expr next_word(std::vector<Stmt> &out, const PhiloxState &g) {
  out.push_back(
      ir::IfThenElse::make(op(BinaryOp::Ge, read(g.pos), i32(4)), ir::Block::make(refill(g))));
  Expr word = read(g.out[3]);
  for (int k = 2; k >= 0; --k)
    word = ir::Select::make(op(BinaryOp::Eq, read(g.pos), i32(k)), read(g.out[k]), word);
  Var v = local(out, g.name + "_word", word);
  assign(out, g.pos, op(BinaryOp::Add, read(g.pos), i32(1)));
  return read(v);
}

// Two words a, b as the 64-bit number a:b (a the high half).
Expr next_u64(std::vector<Stmt> &out, const PhiloxState &g) {
  Expr a = next_word(out, g);
  Expr b = next_word(out, g);
  return op(BinaryOp::BitOr, op(BinaryOp::Shl, to(ScalarType::U64, a), u64(32)),
            to(ScalarType::U64, b));
}

// The top 53 bits of two words a:b, a u64 below 2^53.
Expr bits53(std::vector<Stmt> &out, const PhiloxState &g) {
  Expr a = next_word(out, g);
  Expr b = next_word(out, g);
  return op(BinaryOp::BitOr, op(BinaryOp::Shl, to(ScalarType::U64, a), u64(21)),
            to(ScalarType::U64, op(BinaryOp::Shr, b, u32(11))));
}

// The top 24 bits of a word, a u32 below 2^24.
Expr bits24(std::vector<Stmt> &out, const PhiloxState &g) {
  return op(BinaryOp::Shr, next_word(out, g), u32(8));
}

Expr scaled(ScalarType t, Expr integer, double unit) {
  return op(BinaryOp::Mul, to(t, std::move(integer)), ir::FloatConst::make(t, unit));
}

// sqrt(-2 log u1) cos(2 pi u2) in type t, into a local.
Expr box_muller(std::vector<Stmt> &out, const PhiloxState &g, ScalarType t, Expr u1, Expr u2) {
  Expr radius = call(ir::MathFn::Sqrt,
                     op(BinaryOp::Mul, ir::FloatConst::make(t, -2.0), call(ir::MathFn::Log, u1)));
  Expr angle = op(BinaryOp::Mul, u2, ir::FloatConst::make(t, 2 * std::numbers::pi));
  Var v = local(out, g.name + "_normal",
                op(BinaryOp::Mul, radius, call(ir::MathFn::Cos, std::move(angle))));
  return read(v);
}

// Lemire's nearly divisionless method on a 32-bit range r (a u32 local; 0 gives 0): the high
// half of x * r for a word x, another word while the low half is below 2^32 mod r. A u32.
Expr lemire32(std::vector<Stmt> &out, const PhiloxState &g, const Var &r) {
  auto product = [&](std::vector<Stmt> &s) {
    return op(BinaryOp::Mul, to(ScalarType::U64, next_word(s, g)), to(ScalarType::U64, read(r)));
  };
  Var m = local(out, g.name + "_m", product(out));
  Expr low = to(ScalarType::U32, read(m));
  std::vector<Stmt> retry;
  // 2^32 mod r, computed as (2^32 - r) mod r in u32.
  Var t =
      local(retry, g.name + "_t", op(BinaryOp::Mod, op(BinaryOp::Sub, u32(0), read(r)), read(r)));
  std::vector<Stmt> again;
  assign(again, m, product(again));
  retry.push_back(ir::While::make(op(BinaryOp::Lt, low, read(t)), ir::Block::make(again)));
  out.push_back(
      ir::IfThenElse::make(op(BinaryOp::Lt, low, read(r)), ir::Block::make(std::move(retry))));
  return to(ScalarType::U32, op(BinaryOp::Shr, read(m), u64(32)));
}

// hi:lo = x * r, the 128-bit product of two u64 locals, from 32-bit halves.
void multiply_128(std::vector<Stmt> &out, const PhiloxState &g, const Var &x, const Var &r,
                  const Var &hi, const Var &lo) {
  const Expr mask = u64(0xFFFFFFFFu);
  auto low_half = [&](Expr e) { return op(BinaryOp::BitAnd, std::move(e), mask); };
  auto high_half = [&](Expr e) { return op(BinaryOp::Shr, std::move(e), u64(32)); };
  Expr xl = low_half(read(x)), xh = high_half(read(x)), rl = low_half(read(r)),
       rh = high_half(read(r));
  Var p0 = local(out, g.name + "_p0", op(BinaryOp::Mul, xl, rl));
  Var p1 = local(out, g.name + "_p1", op(BinaryOp::Mul, xl, rh));
  Var p2 = local(out, g.name + "_p2", op(BinaryOp::Mul, xh, rl));
  Var p3 = local(out, g.name + "_p3", op(BinaryOp::Mul, xh, rh));
  Var mid = local(out, g.name + "_mid",
                  op(BinaryOp::Add, op(BinaryOp::Add, high_half(read(p0)), low_half(read(p1))),
                     low_half(read(p2))));
  assign(out, lo, op(BinaryOp::BitOr, low_half(read(p0)), op(BinaryOp::Shl, read(mid), u64(32))));
  assign(
      out, hi,
      op(BinaryOp::Add,
         op(BinaryOp::Add, op(BinaryOp::Add, read(p3), high_half(read(p1))), high_half(read(p2))),
         high_half(read(mid))));
}

// Lemire's method on a 64-bit range r (a u64 local, above 2^32 - 1): the high 64 bits of x * r
// for a 64-bit draw x, another draw while the low 64 bits are below 2^64 mod r. A u64.
Expr lemire64(std::vector<Stmt> &out, const PhiloxState &g, const Var &r) {
  Var hi = local(out, g.name + "_hi", u64(0)), lo = local(out, g.name + "_lo", u64(0));
  auto attempt = [&](std::vector<Stmt> &s) {
    Var x = local(s, g.name + "_x", next_u64(s, g));
    multiply_128(s, g, x, r, hi, lo);
  };
  attempt(out);
  std::vector<Stmt> retry;
  Var t =
      local(retry, g.name + "_t", op(BinaryOp::Mod, op(BinaryOp::Sub, u64(0), read(r)), read(r)));
  std::vector<Stmt> again;
  attempt(again);
  retry.push_back(ir::While::make(op(BinaryOp::Lt, read(lo), read(t)), ir::Block::make(again)));
  out.push_back(
      ir::IfThenElse::make(op(BinaryOp::Lt, read(lo), read(r)), ir::Block::make(std::move(retry))));
  return read(hi);
}

} // namespace

ir::ScalarType philox_draw_type(PhiloxDraw what) {
  switch (what) {
  case PhiloxDraw::U32:
    return ScalarType::U32;
  case PhiloxDraw::UniformF32:
  case PhiloxDraw::NormalF32:
    return ScalarType::F32;
  case PhiloxDraw::UniformF64:
  case PhiloxDraw::NormalF64:
    return ScalarType::F64;
  }
  return ScalarType::U32;
}

PhiloxState philox_make(std::vector<Stmt> &out, const std::string &name, Expr seed, Expr stream,
                        Expr block) {
  for (const Expr *e : {&seed, &stream, &block})
    if (!ir::is_int(e->type()) || e->type() == ScalarType::Bool)
      throw DslError(std::string("the seed, stream and block of a Philox generator are integers, "
                                 "got ") +
                     ir::type_name(e->type()));
  PhiloxState g;
  g.name = name;
  auto words = [&](Expr e, Var *into, const char *what, int first) {
    Expr wide = to(ScalarType::U64, std::move(e));
    into[0] = local(out, name + "_" + what + std::to_string(first), to(ScalarType::U32, wide));
    into[1] = local(out, name + "_" + what + std::to_string(first + 1),
                    to(ScalarType::U32, op(BinaryOp::Shr, wide, u64(32))));
  };
  words(std::move(seed), g.key, "key", 0);
  words(std::move(block), g.counter, "ctr", 0);
  words(std::move(stream), g.counter + 2, "ctr", 2);
  for (int k = 0; k < 4; ++k)
    g.out[k] = local(out, name + "_out" + std::to_string(k), u32(0));
  g.pos = local(out, name + "_pos", i32(4));
  return g;
}

Expr philox_draw(std::vector<Stmt> &out, const PhiloxState &g, PhiloxDraw what) {
  switch (what) {
  case PhiloxDraw::U32:
    return next_word(out, g);
  case PhiloxDraw::UniformF32:
    return scaled(ScalarType::F32, bits24(out, g), 0x1p-24);
  case PhiloxDraw::UniformF64:
    return scaled(ScalarType::F64, bits53(out, g), 0x1p-53);
  case PhiloxDraw::NormalF32: {
    Expr u1 = scaled(ScalarType::F32, op(BinaryOp::Add, bits24(out, g), u32(1)), 0x1p-24);
    Expr u2 = scaled(ScalarType::F32, bits24(out, g), 0x1p-24);
    return box_muller(out, g, ScalarType::F32, std::move(u1), std::move(u2));
  }
  case PhiloxDraw::NormalF64: {
    Expr u1 = scaled(ScalarType::F64, op(BinaryOp::Add, bits53(out, g), u64(1)), 0x1p-53);
    Expr u2 = scaled(ScalarType::F64, bits53(out, g), 0x1p-53);
    return box_muller(out, g, ScalarType::F64, std::move(u1), std::move(u2));
  }
  }
  throw DslError("internal error: unknown Philox draw");
}

Expr philox_randint(std::vector<Stmt> &out, const PhiloxState &g, Expr lo, Expr hi) {
  const ScalarType t = lo.type();
  if (hi.type() != t || (t != ScalarType::I32 && t != ScalarType::U32 && t != ScalarType::I64 &&
                         t != ScalarType::U64))
    throw DslError(std::string("internal error: randint of ") + ir::type_name(lo.type()) + " and " +
                   ir::type_name(hi.type()));
  const bool wide = ir::bit_width(t) == 64;
  const ScalarType u = wide ? ScalarType::U64 : ScalarType::U32;
  Var low = local(out, g.name + "_lo", to(u, lo));
  // The number of values, hi - lo (wrapping, as unsigned), or 0 for an empty range.
  Var range =
      local(out, g.name + "_range",
            ir::Select::make(op(BinaryOp::Gt, hi, lo), op(BinaryOp::Sub, to(u, hi), read(low)),
                             ir::IntConst::make(u, 0)));
  Expr offset;
  if (!wide) {
    offset = lemire32(out, g, range);
  } else {
    // One word per attempt when the range fits in 32 bits, two otherwise.
    Var off = local(out, g.name + "_offset", u64(0));
    std::vector<Stmt> narrow, broad;
    Var r32 = local(narrow, g.name + "_range32", to(ScalarType::U32, read(range)));
    assign(narrow, off, to(ScalarType::U64, lemire32(narrow, g, r32)));
    assign(broad, off, lemire64(broad, g, range));
    out.push_back(ir::IfThenElse::make(op(BinaryOp::Le, read(range), u64(0xFFFFFFFFu)),
                                       ir::Block::make(std::move(narrow)),
                                       ir::Block::make(std::move(broad))));
    offset = read(off);
  }
  Var v = local(out, g.name + "_randint", to(t, op(BinaryOp::Add, read(low), offset)));
  return read(v);
}

} // namespace loom::frontend
