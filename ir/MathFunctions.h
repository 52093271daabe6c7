// loom's math library as data: for each MathFn its name, its arguments and result, how each
// target computes it and how far the targets' results may be apart. The front ends, the
// interpreter, the code generators, the differential tester and docs/semantics.md's accuracy table
// all read this one table.
#pragma once

#include "ir/IR.h"

namespace loom::ir {

enum class MathArgs : uint8_t {
  Float,       // floats; the result has their type
  FloatOrInt,  // floats or integers (abs, sign); the result has their type
  Classify,    // one float; the result is a bool (isfinite, isinf, isnan)
  FloatAndExp, // a float and an i32 exponent (ldexp); the result is the float's type
  Part,        // a complex number or a float (real, imag, conj); real and imag give the parts'
               // type, conj the argument's
  Parts,       // two floats of one type (complex(re, im)); the result is the complex type of them
};

// How the code generators compute a function.
enum class MathImpl : uint8_t {
  Inline,  // an LLVM instruction or intrinsic, the same on every target (floor, copysign, ...)
  Library, // the C library on the CPU (the name, or the name + "f" for f32), libdevice's
           // __nv_ function of the same name on the GPU, the host's C library in the interpreter
};

struct MathFnInfo {
  MathFn fn;
  const char *name;   // as written in both front ends and printed in the IR
  const char *c_name; // the C library's name for f64 (tgamma for gamma); the f32 one adds "f"
  int arity;
  MathArgs args;
  MathImpl impl;
  // Whether every target gives the same bits for the same arguments: correctly rounded or exact
  // functions. The others differ between the C library and libdevice by up to:
  bool exact;
  // ... this many ulps of the result between any two targets, in f32 and f64: glibc's and
  // libdevice's documented maxima added, and rounded up (docs/semantics.md, "Accuracy").
  double ulps_f32, ulps_f64;
  // The documented maxima on each target (ulps; 0 for exact), for the accuracy table and tests.
  double cpu_ulps_f32, cpu_ulps_f64, gpu_ulps_f32, gpu_ulps_f64;
};

const MathFnInfo &math_info(MathFn fn);

// Whether fn takes arguments of type `t` (for ldexp: a first argument of type `t`). Complex
// numbers go to abs, sqrt, exp, log, sin, cos, tanh, pow, isfinite, isinf, isnan, real, imag and
// conj.
bool math_takes(MathFn fn, ScalarType t);
// "floats" or "floats or integers" (with "or complex numbers" where it takes them): what fn takes,
// for error messages.
const char *math_takes_what(MathFn fn);
// The result type of fn computed in `t`.
ScalarType math_result_type(MathFn fn, ScalarType t);

} // namespace loom::ir
