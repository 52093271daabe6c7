// Bad programs of the text DSL: each must fail with one exact diagnostic (line, column, text),
// and a program with several errors must report all of them in one run.
#include "frontend/text/Compile.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace loom;

namespace {

struct BadProgram {
  const char *name;
  const char *source;
  const char *diagnostic; // "line:col: error: message"
};

// A kernel header for the cases that need one.
#define HEAD "@kernel\ndef k(x: f32[n], A: f32[N, M], m: i32):\n"
#define LOOP HEAD "    for i in parallel(n):\n"
#define SIMT "@kernel(simt=True)\ndef k(x: f32[n], A: f32[N, M], c: i32[n], m: i32):\n"
// A kernel body with a parallel loop over i and a sequential loop over k, for the schedules.
#define NESTED                                                                                     \
  "def k(x: f32[n]):\n    for i in parallel(n):\n        for k in range(3):\n            x[i] += " \
  "1.0\n"
// A kernel with a complex array z, a float array x and an integer array c, in a parallel loop.
#define CLOOP "@kernel\ndef k(z: c64[n], x: f32[n], c: i32[n]):\n    for i in parallel(n):\n"
#define IN_SIMT "is only for SIMT kernels; declare 'k' with @kernel(simt=True)"

const BadProgram bad_programs[] = {
    // ---- lexical ----
    {"BadCharacter", LOOP "        x[i] = $ 1\n", "4:16: error: unexpected character '$'"},
    {"TabInIndentation", LOOP "\tx[i] = 1.0\n",
     "4:1: error: tab in indentation; indent with spaces only"},
    {"IndentationMatchesNoBlock", LOOP "        x[i] = 1.0\n      x[i] = 2.0\n",
     "5:7: error: this line's indentation (6 spaces) does not match any enclosing block"},
    {"UnclosedParenthesis", LOOP "        x[i] = (1.0 + m\n", "4:16: error: '(' was never closed"},
    {"MismatchedBracket", LOOP "        x[i] = (1.0 + m]\n",
     "4:24: error: closing ']' does not match '(' on line 4"},
    {"String", LOOP "        x[i] = \"one\"\n",
     "4:16: error: strings are only print()'s text, as in print(\"x =\", x[i])"},
    {"UnknownEscape", LOOP "        print(\"bad \\q escape\")\n",
     "4:21: error: unknown escape '\\q' in a string; the escapes are \\\\, \\\", \\', \\n and "
     "\\t"},
    // print
    {"PrintArray", LOOP "        print(\"x =\", x)\n",
     "4:22: error: 'x' is an array; use one of its elements (x[i]) or its shape (x.shape[0])"},
    {"PrintTuple", LOOP "        print((1, 2))\n",
     "4:15: error: print() takes text and scalar values, not a tuple; give the values one by one"},
    // assert
    {"AssertArray", LOOP "        assert x\n",
     "4:16: error: 'x' is an array; use one of its elements (x[i]) or its shape (x.shape[0])"},
    {"AssertMessageNotText", LOOP "        assert x[i] > 0.0, m\n",
     "4:28: error: the message of an assertion is a string literal, as in assert i < n, \"i is "
     "in range\""},
    {"AssertNothing", LOOP "        assert\n",
     "4:15: error: expected a condition after 'assert', as in assert i < n, \"message\""},
    {"AssertTuple", LOOP "        assert (x[i], 1)\n",
     "4:16: error: assert takes a condition, not a tuple (which Python takes as always true); "
     "write assert cond, \"message\""},
    {"AssertsOptionNotBool", "@kernel(asserts=1)\ndef k(x: f32[n]):\n    pass\n",
     "1:17: error: option 'asserts' takes True or False"},
    {"StringAsValue", LOOP "        y = 'text'\n",
     "4:13: error: strings are only print()'s text, as in print(\"x =\", x[i])"},
    {"FloatSuffix", LOOP "        x[i] = 2.5f\n",
     "4:16: error: invalid number '2.5f': number literals take no suffix; write f32(2.5) for an "
     "f32 constant"},
    {"IntegerTooLarge", LOOP "        x[i] = 99999999999999999999\n",
     "4:16: error: integer '99999999999999999999' is too large; the largest is "
     "9223372036854775807"},
    {"CStyleAnd", LOOP "        x[i] = m > 1 && m < 3\n",
     "4:22: error: '&&' is not an operator; use 'and'"},
    {"LeadingZero", LOOP "        x[i] = 007\n",
     "4:16: error: integer '007' has a leading zero; write it without (octal literals do not "
     "exist)"},
    // ---- syntax ----
    {"MissingColonAfterParameters", "@kernel\ndef k(x: f32[n])\n    pass\n",
     "2:17: error: expected ':' after the parameter list, got end of line"},
    {"MissingIndentedBlock", "@kernel\ndef k(x: f32[n]):\npass\n",
     "3:1: error: expected an indented block after 'def k' on line 2"},
    {"UnexpectedIndent", LOOP "        x[i] = 1.0\n            x[i] = 2.0\n",
     "5:13: error: unexpected indent"},
    {"FloorDivision", LOOP "        x[i] = m // 2\n",
     "4:18: error: '//' is not supported; '/' on integers divides truncating toward zero, as in "
     "C (see docs/language.md)"},
    {"PowerOperator", LOOP "        x[i] = x[i] ** 2\n",
     "4:21: error: '**' is not supported; use pow(a, b)"},
    {"ChainedComparison", LOOP "        x[i] = f32(0 < m < 3)\n",
     "4:26: error: comparisons cannot be chained; write 'a < b and b < c'"},
    {"ElseWithoutIf", LOOP "        x[i] = 1.0\n        else:\n            pass\n",
     "5:9: error: 'else' does not follow an 'if' block at the same indentation"},
    {"MissingExpression", LOOP "        x[i] = \n",
     "4:16: error: expected an expression, got end of line"},
    {"UnknownDecorator", "@jit\ndef k(x: f32[n]):\n    pass\n",
     "1:2: error: unknown decorator '@jit'; the only decorator is @kernel"},
    {"Slice", LOOP "        x[0:2] = 1.0\n",
     "4:12: error: slices are not supported; index with one integer per dimension"},
    {"Break", LOOP "        break\n",
     "4:9: error: 'break' is not supported; loops run to their end (use a while loop with a "
     "condition)"},
    {"StatementOutsideFunction", "n = 3\n",
     "1:1: error: expected 'def' (a function definition), got name 'n'; statements belong inside "
     "a function"},
    {"KeywordArgument", LOOP "        x[i] = pow(x[i], y=2)\n",
     "4:26: error: keyword arguments are not supported; pass arguments by position"},
    {"AnnotationWithoutValue", LOOP "        acc: f32\n",
     "4:17: error: expected '=' and an initial value after the type annotation, got end of line"},
    // ---- names ----
    {"UnknownName", LOOP "        acc: f32 = 0.0\n        x[i] = acc2\n",
     "5:16: error: unknown name 'acc2' (did you mean 'acc'?)"},
    {"UnknownFunction", LOOP "        x[i] = sqr(x[i])\n",
     "4:16: error: unknown function 'sqr' (did you mean 'sqrt'?)"},
    {"VariableOutsideItsBlock", LOOP "        if m > 0:\n            t = 1.0\n        x[i] = t\n",
     "6:16: error: unknown name 't': the variable declared on line 5 is local to its block; "
     "declare it before that block to use it here"},
    {"AssignToParameter", LOOP "        m = 2\n",
     "4:9: error: cannot assign to parameter 'm'; copy it into a local variable first"},
    {"AssignToLoopIndex", LOOP "        i = 2\n", "4:9: error: cannot assign to loop index 'i'"},
    {"DuplicateParameter", "@kernel\ndef k(x: f32[n], x: i32):\n    pass\n",
     "2:18: error: duplicate parameter 'x'"},
    {"Redeclaration", LOOP "        t = 1.0\n        t: f64 = 2.0\n",
     "5:9: error: 't' is already defined on line 4; a type annotation declares a new variable"},
    {"CallKernel", LOOP "        k(x, A, m)\n",
     "4:9: error: 'k' is a kernel, and kernels cannot be called; remove its @kernel to make it a "
     "helper function"},
    {"FunctionDefinedTwice",
     "def f(a: f32) -> f32:\n    return a\ndef f(a: f32) -> f32:\n    "
     "return a\n",
     "3:5: error: function 'f' is already defined on line 1"},
    // ---- complex numbers ----
    {"ComplexNotOrdered", CLOOP "        c[i] = i32(z[i] < z[i])\n",
     "4:25: error: '<' does not take complex numbers (got c64 and c64); they take + - * / == != "
     "only, and are not ordered: compare abs(z) or real(z)"},
    {"ComplexMin", CLOOP "        z[i] = min(z[i], 1j)\n",
     "4:16: error: 'min' does not take complex numbers (got c64 and c128); they take + - * / == "
     "!= only, and are not ordered: compare abs(z) or real(z)"},
    {"ComplexModulo", CLOOP "        z[i] %= z[i]\n",
     "4:14: error: '%' does not take complex numbers (got c64 and c64); they take + - * / == != "
     "only"},
    {"ComplexBitwise", CLOOP "        z[i] = z[i] | z[i]\n",
     "4:21: error: '|' needs integer or bool operands, got c64 and c64"},
    {"ComplexInvert", CLOOP "        z[i] = ~z[i]\n",
     "4:16: error: '~' needs an integer or bool operand, got c64"},
    {"ShiftByImaginary", CLOOP "        c[i] = 1 << 2j\n",
     "4:18: error: '<<' needs integer or bool operands, got i32 and c128"},
    {"Atan2OfComplex", CLOOP "        x[i] = atan2(z[i], 1)\n",
     "4:16: error: atan2() takes floats, not c64"},
    {"SignOfComplex", CLOOP "        z[i] = sign(z[i])\n",
     "4:16: error: sign() takes a float, an integer or a complex number, not c64"},
    {"FabsOfComplex", CLOOP "        x[i] = fabs(z[i])\n",
     "4:16: error: fabs() takes real numbers, not c64; abs(z) is a complex number's magnitude"},
    {"LdexpImaginaryExponent", CLOOP "        x[i] = ldexp(1.0, 2j)\n",
     "4:16: error: the exponent of ldexp() must be an integer, not c128"},
    {"ComplexStoredAsReal", CLOOP "        x[i] = z[i] * 2\n",
     "4:16: error: a c64 value cannot become f32 implicitly (its imaginary part would be lost); "
     "take real(z), imag(z) or abs(z), or convert with f32(z), which keeps the real part"},
    {"ComplexDeclaredReal", CLOOP "        y: f32 = 1j\n",
     "4:18: error: a c128 value cannot become f32 implicitly (its imaginary part would be lost); "
     "take real(z), imag(z) or abs(z), or convert with f32(z), which keeps the real part"},
    {"ComplexOfComplexParts", CLOOP "        z[i] = c64(z[i], 1)\n",
     "4:16: error: c64(re, im) takes two real numbers, not c64; convert a complex value with "
     "c64(z)"},
    {"ComplexConstructorArity", CLOOP "        z[i] = c64(1, 2, 3)\n",
     "4:16: error: c64() takes 1 argument (a number to convert) or 2 (the real and imaginary "
     "parts), got 3"},
    {"MathConj", CLOOP "        z[i] = math.conj(z[i])\n",
     "4:16: error: unknown function 'math.conj'; loom's math functions are abs, acos, acosh, asin, "
     "asinh, atan, atan2, atanh, cbrt, ceil, copysign, cos, cosh, degrees, erf, erfc, exp, exp2, "
     "expm1, fabs, floor, fma, fmod, gamma, hypot, isfinite, isinf, isnan, ldexp, lgamma, log, "
     "log10, log1p, log2, pow, radians, remainder, round, rsqrt, sign, sin, sinh, sqrt, tan, tanh, "
     "trunc, min and max"},
    {"CmathAtan", CLOOP "        z[i] = cmath.atan(z[i])\n",
     "4:16: error: unknown function 'cmath.atan'; loom's cmath functions are sqrt, exp, log, sin, "
     "cos, tanh, isnan, isinf and isfinite (and abs, pow, real, imag and conj without cmath.)"},
    {"RealOfAnArray", CLOOP "        x[i] = z.real\n",
     "4:18: error: 'z.real' would be an array; take the real part of an element, as in z[i].real"},
    {"ImaginaryWithSuffix", CLOOP "        z[i] = 2jx\n", "4:16: error: invalid number '2jx'"},
    {"AtomicOnComplex", "@kernel(simt=True)\ndef k(z: c64[n]):\n    atomic.add(z, 0, 1j)\n",
     "3:16: error: atomic.add() updates elements of i32, i64, u32, u64, f32 or f64; 'z' holds c64"},
    {"SharedComplex", "@kernel(simt=True)\ndef k(z: c64[n]):\n    s = shared.array(8, c64)\n",
     "3:25: error: shared arrays hold bool, an integer type, f16, bf16, f32 or f64, not c64"},
    {"NumpyComplexType", "@kernel\ndef k(x: complex64[n]):\n    pass\n",
     "2:10: error: unknown type 'complex64' (loom writes c64); the types are bool, i8, i16, i32, "
     "i64, u8, u16, u32, u64, f16, bf16, f32, f64, c64 and c128"},
    // ---- types ----
    {"UnknownType", "@kernel\ndef k(x: float32[n]):\n    pass\n",
     "2:10: error: unknown type 'float32' (loom writes f32); the types are bool, i8, i16, i32, "
     "i64, u8, u16, u32, u64, f16, bf16, f32, f64, c64 and c128"},
    {"NumpyUnsignedType", "@kernel\ndef k(x: uint8[n]):\n    pass\n",
     "2:10: error: unknown type 'uint8' (loom writes u8); the types are bool, i8, i16, i32, i64, "
     "u8, u16, u32, u64, f16, bf16, f32, f64, c64 and c128"},
    {"AtomicOnNarrowInteger", "@kernel(simt=True)\ndef k(n8: u8[n]):\n    atomic.add(n8, 0, 1)\n",
     "3:16: error: atomic.add() updates elements of i32, i64, u32, u64, f32 or f64; 'n8' holds "
     "u8"},
    {"BitwiseOnFloats", LOOP "        x[i] = x[i] & 1\n",
     "4:21: error: '&' needs integer or bool operands, got f32 and i32"},
    {"FloatIndex", LOOP "        x[x[i]] = 1.0\n",
     "4:11: error: an array index must be an integer, got f32"},
    {"FloatRangeBound", LOOP "        for j in range(x[i]):\n            pass\n",
     "4:24: error: a bound of range() must be an integer, got f32"},
    {"BitwiseNotOfFloat", LOOP "        x[i] = ~x[i]\n",
     "4:16: error: '~' needs an integer or bool operand, got f32"},
    {"PythonCast", LOOP "        x[i] = float(m)\n",
     "4:16: error: 'float' is not a loom type; convert with f32(x) or f64(x)"},
    {"HelperArrayOfOtherType",
     "def first(v: i32[p]) -> i32:\n    return v[0]\n" LOOP "        x[i] = first(x)\n",
     "6:22: error: argument 1 of 'first' must be an array of i32 with rank 1; 'x' is an array of "
     "f32 with rank 1"},
    {"FastmathNotBool", "@kernel(fastmath=1)\ndef k(x: f32[n]):\n    pass\n",
     "1:18: error: option 'fastmath' takes True or False"},
    // ---- ranks and shapes ----
    {"RankMismatch", LOOP "        A[i, 0, 1] = 1.0\n",
     "4:9: error: 'A' has rank 2 but is indexed with 3 indices"},
    {"ShapeDimensionOutOfRange", LOOP "        x[i] = f32(x.shape[1])\n",
     "4:28: error: 'x' has rank 1, so x.shape[1] does not exist"},
    {"ArrayAsValue", LOOP "        t = A\n",
     "4:13: error: 'A' is an array; use one of its elements (A[i, j]) or its shape (A.shape[0])"},
    {"TooManyDimensions", "@kernel\ndef k(x: f32[a, b, c, d, e, f, g, h, i]):\n    pass\n",
     "2:10: error: arrays have 1 to 8 dimensions; 'x' has 9"},
    {"ShapeSymbolNamedLikeParameter", "@kernel\ndef k(x: f32[m], m: i32):\n    pass\n",
     "2:14: error: shape symbol 'm' has the name of a parameter"},
    {"IndexingAScalar", LOOP "        x[i] = m[0]\n",
     "4:16: error: 'm' is a scalar parameter of type i32, not an array; only arrays can be "
     "indexed"},
    // ---- parallel loops ----
    {"ParallelInsideWhile",
     HEAD "    while n > 0:\n        for i in parallel(n):\n            "
          "pass\n",
     "4:9: error: a parallel loop must be at the top level of the kernel or in 'for' loops "
     "there, not inside a 'while' loop"},
    {"ParallelInsideIfInFor",
     HEAD "    for t in range(3):\n        if t > 0:\n            for i in parallel(n):\n"
          "                pass\n",
     "5:13: error: a parallel loop must be at the top level of the kernel or in 'for' loops "
     "there, not inside an 'if'"},
    {"TaskLoopBoundReadsArray",
     HEAD "    for t in range(i64(x[0])):\n        for i in parallel(n):\n            pass\n",
     "3:20: error: a bound of a 'for' loop around parallel loops cannot read array elements: "
     "loom runs that loop on the host, between the launches; use scalar parameters and array "
     "shapes"},
    {"NestedParallel", LOOP "        for j in parallel(n):\n            pass\n",
     "4:9: error: parallel loops cannot nest; use range() for the inner loop"},
    {"ParallelInHelper", "def h(a: i64):\n    for i in parallel(a):\n        pass\n",
     "2:5: error: parallel loops are only allowed in kernels; 'h' is a helper function"},
    {"ParallelArity", HEAD "    for i, j in parallel(n):\n        pass\n",
     "3:9: error: 2 loop variables but parallel() has 1 extent"},
    {"ParallelExtentReadsArray", HEAD "    for i in parallel(i64(x[0])):\n        pass\n",
     "3:23: error: an extent of parallel() cannot read array elements: loom sizes the launch "
     "before the kernel runs; use scalar parameters and array shapes"},
    {"ForOverSomethingElse", LOOP "        for j in x:\n            pass\n",
     "4:18: error: a 'for' loop iterates over range(...) or parallel(...)"},
    {"RangeArity", LOOP "        for j in range(1, 2, 3, 4):\n            pass\n",
     "4:18: error: range() takes 1 to 3 arguments (end; begin, end; or begin, end, step), got 4"},
    {"RangeStepZero", LOOP "        for j in range(0, 10, 0):\n            pass\n",
     "4:31: error: the step of range() must be positive, got 0"},
    // ---- helpers and returns ----
    {"EarlyReturn", "def f(a: f32) -> f32:\n    if a > 0.0:\n        return a\n    return -a\n",
     "3:9: error: 'return' must be the last statement of helper 'f' (helpers are inlined, so they "
     "cannot return early)"},
    {"ReturnInKernel", LOOP "        x[i] = 1.0\n    return\n",
     "5:5: error: 'return' is not allowed in a kernel; only helper functions return values"},
    {"MissingReturn", "def f(a: f32) -> f32:\n    b = a\n",
     "1:5: error: helper 'f' must end with 'return <value>'; it is declared to return f32"},
    {"Recursion", "def f(a: i32) -> i32:\n    return f(a - 1)\n",
     "2:12: error: recursive call of 'f' (f -> f); helpers are inlined, so they cannot call "
     "themselves"},
    {"HelperArity", "def f(a: i32) -> i32:\n    return a\n" LOOP "        x[i] = f(1, 2)\n",
     "6:16: error: 'f' takes 1 argument, got 2"},
    {"HelperWithoutValue", "def f(a: i32):\n    pass\n" LOOP "        x[i] = f(1)\n",
     "6:16: error: helper 'f' returns no value (it has no '-> type')"},
    {"HelperStatementsInWhileCondition",
     "def f(a: i32) -> bool:\n    t = a * 2\n    return t < 10\n" LOOP
     "        while f(m):\n            pass\n",
     "7:15: error: this condition calls a helper function that has statements, which would run "
     "only once, before the loop; compute the condition into a variable instead"},
    // ---- options and built-ins ----
    {"UnknownOption", "@kernel(fastmath=True, unroll_k=4)\ndef k(x: f32[n]):\n    pass\n",
     "1:24: error: unknown option 'unroll_k' of @kernel; the options are fastmath, bounds_check, "
     "asserts, simt, block_per_iteration, tile, thread_tile, stage, blocks_per_sm, tensor_cores, "
     "tf32, schedule, unroll and vectorize"},
    {"ScheduleValue", "@kernel(schedule=True)\ndef k(x: f32[n]):\n    pass\n",
     "1:18: error: option 'schedule' takes None (the default mapping, with no schedule of loom's "
     "choosing) or \"auto\" (loom may choose one)"},
    {"UnrollValue", "@kernel(unroll=4)\ndef k(x: f32[n]):\n    pass\n",
     "1:16: error: option 'unroll' takes a loop variable and a factor, as in unroll=(k, 4), or "
     "several pairs: unroll=((k, 4), (j, 2)); a second loop over k is \"k.1\""},
    {"UnrollFactor", "@kernel(unroll=(k, 65))\n" NESTED,
     "1:20: error: option 'unroll' takes a factor from 1 to 64 for loop 'k' (1: not unrolled)"},
    {"UnrollLoopTwice", "@kernel(unroll=((k, 2), (k, 4)))\n" NESTED,
     "1:25: error: loop 'k' is given twice in option 'unroll'"},
    {"VectorizeWidth", "@kernel(vectorize=(i, 3))\n" NESTED,
     "1:23: error: option 'vectorize' takes a width of 1, 2, 4, 8 or 16 for loop 'i'"},
    {"UnrollUnknownLoop", "@kernel(unroll=(j, 4))\n" NESTED,
     "1:17: error: unroll('j'): kernel 'k' has no sequential loop over a variable 'j' (its "
     "sequential loops: 'k'; its parallel loop variables: 'i'; as ir_text() names them)"},
    {"UnrollParallelLoop",
     "@kernel(unroll=(i, 4))\ndef k(x: f32[n]):\n    for i in parallel(n):\n        x[i] = 1.0\n",
     "1:17: error: unroll('i'): kernel 'k' has no sequential loop over 'i', which is a parallel "
     "loop's variable (its sequential loops: none; its parallel loop variables: 'i'; as "
     "ir_text() names them)"},
    {"VectorizeUnknownLoop",
     "@kernel(vectorize=(j, 4))\ndef k(x: f32[n]):\n    for i in parallel(n):\n        x[i] = "
     "1.0\n",
     "1:20: error: vectorize('j'): kernel 'k' has no loop over a variable 'j' (its sequential "
     "loops: none; its parallel loop variables: 'i'; as ir_text() names them)"},
    {"TileValue", "@kernel(tile=128)\ndef k(x: f32[n]):\n    pass\n",
     "1:14: error: option 'tile' takes two integers from 1 to 1024, as in tile=(128, 128)"},
    {"ThreadTileValue", "@kernel(tile=(16, 16), thread_tile=(4, 0))\ndef k(x: f32[n]):\n    pass\n",
     "1:36: error: option 'thread_tile' takes two integers from 1 to 1024, as in "
     "thread_tile=(8, 8)"},
    {"StageValue", "@kernel(tile=(64, 64), stage=65)\ndef k(x: f32[n]):\n    pass\n",
     "1:30: error: option 'stage' takes the steps of the inner loop staged in shared memory at a "
     "time, from 1 to 64"},
    {"BlocksPerSmValue", "@kernel(tile=(64, 64), blocks_per_sm=0)\ndef k(x: f32[n]):\n    pass\n",
     "1:38: error: option 'blocks_per_sm' takes the blocks of the tile schedule each SM should "
     "hold at once, from 1 to 32"},
    {"StageWithoutTile", "@kernel(stage=8)\ndef k(x: f32[n]):\n    pass\n",
     "2:1: error: options 'thread_tile', 'stage', 'blocks_per_sm', 'tensor_cores' and 'tf32' "
     "belong to the tile schedule: give 'tile' too, as in @kernel(tile=(128, 128), "
     "thread_tile=(8, 8), stage=8)"},
    {"Tf32WithoutTile", "@kernel(tf32=True)\ndef k(x: f32[n]):\n    pass\n",
     "2:1: error: options 'thread_tile', 'stage', 'blocks_per_sm', 'tensor_cores' and 'tf32' "
     "belong to the tile schedule: give 'tile' too, as in @kernel(tile=(128, 128), "
     "thread_tile=(8, 8), stage=8)"},
    {"TensorCoresValue", "@kernel(tile=(64, 64), tensor_cores=1)\ndef k(x: f32[n]):\n    pass\n",
     "1:37: error: option 'tensor_cores' takes True or False"},
    {"TileNotAMultiple",
     "@kernel(tile=(64, 64), thread_tile=(3, 4))\ndef k(x: f32[n]):\n    pass\n",
     "2:1: error: schedule tile 64 x 64, per thread 3 x 4, depth 0: rows and columns must be "
     "positive multiples of the thread's rows and columns"},
    {"TileWithSimt", "@kernel(simt=True, tile=(16, 16))\ndef k(x: f32[n]):\n    pass\n",
     "2:1: error: the tile schedule does not combine with simt=True"},
    {"BlockPerIterationValue", "@kernel(block_per_iteration=100)\ndef k(x: f32[n]):\n    pass\n",
     "1:29: error: option 'block_per_iteration' takes a multiple of 32 from 32 to 1024 (the "
     "threads of the block each iteration runs on)"},
    {"MathArity", LOOP "        x[i] = sqrt(x[i], 2.0)\n",
     "4:16: error: sqrt() takes 1 argument, got 2"},
    {"MathArityOfTwoArgumentFunction", LOOP "        x[i] = atan2(x[i])\n",
     "4:16: error: atan2() takes 2 arguments, got 1"},
    {"LdexpFloatExponent", LOOP "        x[i] = ldexp(x[i], 1.5)\n",
     "4:16: error: the exponent of ldexp() must be an integer, not f64"},
    {"NotAMathModuleFunction", LOOP "        x[i] = math.abs(x[i])\n",
     "4:16: error: unknown function 'math.abs' (Python has none either); write abs(x), or "
     "math.fabs(x) for a float result"},
    {"MisspelledMathFunction", LOOP "        x[i] = math.hypoth(x[i], 1.0)\n",
     "4:16: error: unknown function 'math.hypoth'; loom's math functions are abs, acos, acosh, "
     "asin, "
     "asinh, atan, atan2, atanh, cbrt, ceil, copysign, cos, cosh, degrees, erf, erfc, exp, exp2, "
     "expm1, fabs, floor, fma, fmod, gamma, hypot, isfinite, isinf, isnan, ldexp, lgamma, log, "
     "log10, log1p, log2, pow, radians, remainder, round, rsqrt, sign, sin, sinh, sqrt, tan, tanh, "
     "trunc, min and max"},
    {"MisspelledFunctionHint", LOOP "        x[i] = lgama(x[i])\n",
     "4:16: error: unknown function 'lgama' (did you mean 'lgamma'?)"},
    {"BitwiseOnAMathResult", LOOP "        x[i] = floor(x[i]) & 1\n",
     "4:28: error: '&' needs integer or bool operands, got f32 and i32"},
    {"MinArity", LOOP "        x[i] = min(x[i], 1.0, 2.0)\n",
     "4:16: error: min() takes 2 arguments, got 3"},
    {"ExpressionStatement", LOOP "        x[i] + 1.0\n",
     "4:9: error: this expression does nothing; a statement is an assignment, a call of a helper "
     "function, or if, for, while or pass"},
    {"RangeOutsideFor", LOOP "        t = range(3)\n",
     "4:13: error: range() can only be the iterable of a 'for' loop"},
    // ---- the SIMT level: outside SIMT kernels ----
    {"ThreadIdxOutsideSimt", HEAD "    x[0] = threadIdx.x\n", "3:12: error: threadIdx.x " IN_SIMT},
    {"NumbaThreadIdxOutsideSimt", LOOP "        x[i] = cuda.blockDim.y\n",
     "4:16: error: cuda.blockDim.y " IN_SIMT},
    {"SyncthreadsOutsideSimt", HEAD "    syncthreads()\n", "3:5: error: syncthreads() " IN_SIMT},
    {"GridOutsideSimt", HEAD "    x[cuda.grid(1)] = 1.0\n", "3:7: error: cuda.grid() " IN_SIMT},
    {"GridTupleOutsideSimt", HEAD "    a, b = gridsize(2)\n", "3:12: error: gridsize() " IN_SIMT},
    {"SharedArrayOutsideSimt", HEAD "    t = shared.array(8, f32)\n",
     "3:9: error: shared.array() " IN_SIMT},
    {"AtomicOutsideSimt", LOOP "        atomic.add(x, 0, 1.0)\n",
     "4:9: error: atomic.add() " IN_SIMT},
    {"ShuffleOutsideSimt", HEAD "    x[0] = shfl_sync(-1, x[0], 0)\n",
     "3:12: error: shfl_sync() " IN_SIMT},
    {"VoteOutsideSimt", HEAD "    t = any_sync(-1, m > 0)\n", "3:9: error: any_sync() " IN_SIMT},
    {"LaneidOutsideSimt", HEAD "    x[0] = laneid\n", "3:12: error: laneid " IN_SIMT},
    {"WarpsizeOutsideSimt", HEAD "    x[0] = cuda.warpsize\n",
     "3:12: error: cuda.warpsize " IN_SIMT},
    // A helper may use the SIMT level; the kernels it is inlined into must be SIMT kernels.
    {"SimtHelperInPlainKernel",
     "def lane() -> i32:\n    return laneid\n" HEAD "    x[0] = f32(lane())\n",
     "2:12: error: laneid " IN_SIMT},
    {"SimtNotBool", "@kernel(simt=1)\ndef k(x: f32[n]):\n    pass\n",
     "1:14: error: option 'simt' takes True or False"},
    // ---- the SIMT level: in SIMT kernels ----
    {"ParallelInSimt", SIMT "    for i in parallel(n):\n        pass\n",
     "3:5: error: parallel loops are not allowed in a SIMT kernel, where every thread runs the "
     "body "
     "once; index with grid(1) (or threadIdx and blockIdx) and loop with range()"},
    {"GeometryWithoutAxis", SIMT "    t = threadIdx\n",
     "3:9: error: 'threadIdx' has the attributes x, y and z, as in threadIdx.x"},
    {"NumbaGeometryWithoutAxis", SIMT "    t = cuda.gridDim\n",
     "3:14: error: 'cuda.gridDim' has the attributes x, y and z, as in cuda.gridDim.x"},
    {"GeometryBadAxis", SIMT "    t = blockDim.w\n",
     "3:18: error: blockDim has the attributes x, y and z; it has no attribute 'w'"},
    {"UnknownCudaName", SIMT "    t = cuda.lane\n",
     "3:14: error: unknown name 'cuda.lane'; the thread geometry is threadIdx, blockIdx, blockDim "
     "and gridDim (each with .x, .y and .z), laneid and warpsize"},
    {"SimtFunctionAsValue", SIMT "    t = syncthreads\n",
     "3:9: error: 'syncthreads' is a function; call it, as in syncthreads(...)"},
    {"SimtBuiltinAsHelperName", "def grid(a: i32) -> i32:\n    return a\n",
     "1:5: error: 'grid' is a built-in name; choose another function name"},
    {"GridAxes", SIMT "    t = grid(4)\n",
     "3:14: error: grid() takes the number of axes: the integer 1, 2 or 3"},
    {"GridAxesNotLiteral", SIMT "    t = gridsize(m)\n",
     "3:18: error: gridsize() takes the number of axes: the integer 1, 2 or 3"},
    {"GridOfTwoAsValue", SIMT "    t = grid(2)\n",
     "3:9: error: grid(2) gives 2 values; assign them to 2 names, as in 'x, y = grid(2)'"},
    {"GridNameCount", SIMT "    a, b = cuda.grid(3)\n",
     "3:10: error: cuda.grid(3) gives 3 values but 2 names are assigned"},
    {"MultipleAssignmentOfOther", SIMT "    a, b = m\n",
     "3:5: error: multiple assignment is only for the axes of grid() and gridsize(), as in 'x, y "
     "= grid(2)'; assign one name per line"},
    {"MultipleAssignmentOfElements", SIMT "    a, x[0] = grid(2)\n",
     "3:9: error: expected '=' after the names of a multiple assignment, got '['"},
    {"GridAxisToParameter", SIMT "    m, b = grid(2)\n",
     "3:5: error: cannot assign to parameter 'm'; copy it into a local variable first"},
    {"SyncthreadsAsValue", SIMT "    t = syncthreads()\n",
     "3:9: error: syncthreads() is a statement; it has no value"},
    {"SyncthreadsArguments", SIMT "    cuda.syncthreads(1)\n",
     "3:5: error: cuda.syncthreads() takes no arguments, got 1"},
    {"UnknownCudaFunction", SIMT "    cuda.threadfence()\n",
     "3:5: error: unknown function 'cuda.threadfence'; the SIMT level's functions are grid, "
     "gridsize, syncthreads, shared.array, atomic.add/min/max/exch/cas, shfl_sync, shfl_up_sync, "
     "shfl_down_sync, shfl_xor_sync, any_sync, all_sync, ballot_sync and mma_sync"},
    {"TupleAsValue", SIMT "    t = (1, 2)\n",
     "3:9: error: a tuple can only be the shape of shared.array() or the index of an atomic, as in "
     "atomic.add(A, (i, j), v)"},
    {"CallOfAnAttribute", SIMT "    t = x.size()\n",
     "3:15: error: only functions can be called; this expression is not a function name"},
    // local arrays
    {"LocalArrayOutsideParallelLoop", HEAD "    t = local.array(8, f32)\n",
     "3:9: error: local.array() outside a parallel loop: a local array belongs to one iteration of "
     "a parallel loop (or one thread of a SIMT kernel); declare it in the body of the parallel "
     "loop that uses it"},
    {"LocalArrayRunTimeExtent", LOOP "        t = local.array(m, f32)\n",
     "4:25: error: an extent of local.array() must be an integer literal (the size of a local "
     "array is fixed when the kernel is compiled), got a value of type i32 computed at run time"},
    {"LocalArrayFloatExtent", LOOP "        t = local.array(2.5, f32)\n",
     "4:25: error: an extent of local.array() must be an integer literal (the size of a local "
     "array is fixed when the kernel is compiled), got a literal of type f64"},
    {"LocalArrayZeroExtent", LOOP "        t = local.array(0, f32)\n",
     "4:25: error: an extent of local.array() must be positive, got 0 (only shared.array(0, type) "
     "is sized at launch; a local array's size is fixed when the kernel is compiled)"},
    {"LocalArrayTooLarge", LOOP "        t = local.array((100, 100), f64)\n",
     "4:13: error: a local array takes at most 65536 bytes (each iteration's copy lives on a stack "
     "or in a GPU thread's local memory); 't' would take 80000 bytes; pass a larger buffer as an "
     "array argument instead"},
    {"LocalArrayHalf", LOOP "        t = local.array(8, f16)\n",
     "4:28: error: local arrays hold bool, an integer type, f32 or f64, not f16"},
    {"LocalArrayArity", LOOP "        t = local.array(8, f32, 3)\n",
     "4:13: error: local.array() takes 2 arguments, a shape and an element type, as in "
     "local.array(256, f32) or local.array((16, 16), f32); got 3"},
    {"LocalArrayAtomic", SIMT "    t = local.array(8, i32)\n    atomic.add(t, 0, 1)\n",
     "4:16: error: atomic.add() updates an array parameter or a shared array; 't' is a local "
     "array, which only its own iteration sees: update it with a plain assignment"},
    {"LocalArrayWhole", LOOP "        t = local.array(8, f32)\n        x[i] = t\n",
     "5:16: error: 't' is a local array; use one of its elements (t[i])"},
    {"LocalArrayAsValue", LOOP "        x[i] = local.array(8, f32)\n",
     "4:16: error: local.array() declares a local array; assign it to a new name, as in 't = "
     "local.array(256, f32)'"},
    {"LocalArrayAfterItsLoop", LOOP "        t = local.array(8, f32)\n    x[0] = t[0]\n",
     "5:12: error: unknown name 't'"},
    // shared arrays
    {"SharedArity", SIMT "    s = shared.array(8)\n",
     "3:9: error: shared.array() takes 2 arguments, a shape and an element type, as in "
     "shared.array(256, f32) or shared.array((16, 16), f32); got 1"},
    {"SharedExtentNotLiteral", SIMT "    s = shared.array(m, f32)\n",
     "3:22: error: an extent of shared.array() must be an integer literal (the size of a shared "
     "array is fixed when the kernel is compiled; the literal 0 makes an array sized at launch), "
     "got a value of type i32 computed at run time"},
    {"SharedExtentFloat", SIMT "    s = cuda.shared.array((4, 2.0), f32)\n",
     "3:31: error: an extent of cuda.shared.array() must be an integer literal (the size of a "
     "shared array is fixed when the kernel is compiled; the literal 0 makes an array sized at "
     "launch), got a literal of type f64"},
    {"SharedExtentNegative", SIMT "    s = shared.array((4, -2), f32)\n",
     "3:26: error: an extent of shared.array() must be positive, got -2"},
    // the dynamic shared array: shared.array(0, type)
    {"DynamicSharedTwoDimensions", SIMT "    s = shared.array((4, 0), f32)\n",
     "3:26: error: an extent of 0 makes a dynamic shared array, sized at launch, which has one "
     "dimension: write shared.array(0, type) and index it as i * width + j"},
    {"DynamicSharedRunTimeZero", SIMT "    z = 0\n    s = shared.array(z, f32)\n",
     "4:22: error: an extent of shared.array() must be an integer literal (the size of a shared "
     "array is fixed when the kernel is compiled; the literal 0 makes an array sized at launch), "
     "got a value of type i32 computed at run time"},
    {"DynamicSharedTwice", SIMT "    s = shared.array(0, f32)\n    t = cuda.shared.array(0, i32)\n",
     "4:9: error: a kernel has at most one dynamic shared array (shared.array(0, type)), and 's' "
     "is "
     "one already; its size is the launch's shared_bytes: keep both in it by indexing one array "
     "at offsets"},
    {"DynamicSharedOutsideSimt", HEAD "    t = shared.array(0, f32)\n",
     "3:9: error: shared.array() " IN_SIMT},
    {"DynamicSharedHalf", SIMT "    s = shared.array(0, bf16)\n",
     "3:25: error: a dynamic shared array holds bool, an integer type, f32 or f64, not bf16 (a "
     "static one, shared.array((16, 24), f16), may)"},
    {"DynamicSharedShapeIndex", SIMT "    s = shared.array(0, f32)\n    t = s.shape[1]\n",
     "4:17: error: s.shape takes one integer literal index below its rank, 1, as in s.shape[0]"},
    {"DynamicSharedAsValue", SIMT "    s = shared.array(0, f32)\n    t = s\n",
     "4:9: error: 's' is a shared array; use one of its elements (s[i])"},
    {"SharedFourDimensions", SIMT "    s = shared.array((2, 2, 2, 2), f32)\n",
     "3:22: error: a shared array has 1 to 3 dimensions; this shape has 4"},
    {"SharedNumpyType", SIMT "    s = shared.array(8, float32)\n",
     "3:25: error: unknown type 'float32' (loom writes f32); the types are bool, i8, i16, i32, "
     "i64, u8, u16, u32, u64, f16, bf16, f32, f64, c64 and c128"},
    {"SharedTypeNotAName", SIMT "    s = shared.array(8, np.float32)\n",
     "3:25: error: the second argument of shared.array() is the element type: bool, an integer "
     "type, f32 or f64"},
    {"LocalHalf", SIMT "    s = local.array(8, f16)\n",
     "3:24: error: local arrays hold bool, an integer type, f32 or f64, not f16"},
    {"HalfBitwise",
     "@kernel\ndef k(h: f16, x: f32[n]):\n    for i in parallel(n):\n"
     "        x[i] = h ^ h\n",
     "4:18: error: '^' needs integer or bool operands, got f16 and f16"},
    {"HalfShift",
     "@kernel\ndef k(h: bf16, x: f32[n]):\n    for i in parallel(n):\n"
     "        x[i] = bf16(x[i]) << 1\n",
     "4:27: error: '<<' needs integer or bool operands, got bf16 and i32"},
    {"HalfNumpyName", "@kernel\ndef k(h: half, x: f32[n]):\n    pass\n",
     "2:10: error: unknown type 'half' (loom writes f16); the types are bool, i8, i16, i32, i64, "
     "u8, u16, u32, u64, f16, bf16, f32, f64, c64 and c128"},
    {"SharedTooLarge", SIMT "    s = shared.array(16384, f32)\n",
     "3:9: error: a kernel's shared arrays take at most 49152 bytes (48 KiB); with 's' (65536 "
     "bytes) this kernel's would take 65536"},
    {"SharedTooLargeTogether",
     SIMT "    s = shared.array(6000, f64)\n    t = shared.array((2, 1000), i32)\n",
     "4:9: error: a kernel's shared arrays take at most 49152 bytes (48 KiB); with 't' (8000 "
     "bytes) this kernel's would take 56000"},
    {"SharedHuge", SIMT "    s = shared.array((100000, 100000, 100000), bool)\n",
     "3:9: error: a kernel's shared arrays take at most 49152 bytes (48 KiB); with 's' (more than "
     "that) this kernel's would take more"},
    {"SharedAnnotated", SIMT "    s: f32 = shared.array(8, f32)\n",
     "3:8: error: a shared array takes no type annotation; its element type is the second argument "
     "of shared.array()"},
    {"SharedRedeclared", SIMT "    s = 1\n    s = shared.array(8, f32)\n",
     "4:5: error: 's' is already defined on line 3; shared.array() declares a new shared array"},
    {"SharedCompound", SIMT "    s += shared.array(8, f32)\n",
     "3:7: error: shared.array() declares a shared array; assign it to a new name with '='"},
    {"SharedInExpression", SIMT "    t = 1.0 + shared.array(8, f32)\n",
     "3:15: error: shared.array() declares a shared array; assign it to a new name, as in 'tile = "
     "shared.array(256, f32)'"},
    {"SharedAsValue", SIMT "    s = shared.array((8, 8), f32)\n    t = s\n",
     "4:9: error: 's' is a shared array; use one of its elements (s[i, j])"},
    {"SharedRank", SIMT "    s = shared.array(8, f32)\n    s[0, 1] = 1.0\n",
     "4:5: error: 's' has rank 1 but is indexed with 2 indices"},
    {"SharedFloatIndex", SIMT "    s = shared.array(8, f32)\n    t = s[1.5]\n",
     "4:11: error: an array index must be an integer, got f64"},
    {"AssignToShared", SIMT "    s = shared.array(8, f32)\n    s = 2.0\n",
     "4:5: error: cannot assign to shared array 's'; assign to its elements, as in s[i] = ..."},
    {"SharedBadAttribute", SIMT "    s = shared.array(8, f32)\n    t = s.dtype\n",
     "4:11: error: shared arrays have the attributes 'shape' and 'size'; 's' has no attribute "
     "'dtype'"},
    {"SharedShapeIndex", SIMT "    s = shared.array(8, f32)\n    t = s.shape[1]\n",
     "4:17: error: s.shape takes one integer literal index below its rank, 1, as in s.shape[0]"},
    {"SharedToHelper",
     "def first(v: f32[p]) -> f32:\n    return v[0]\n" SIMT
     "    s = shared.array(8, f32)\n    x[0] = first(s)\n",
     "6:18: error: argument 1 of 'first' must be an array; 's' is a shared array"},
    // atomics
    {"AtomicArity", SIMT "    atomic.add(x, 0)\n",
     "3:5: error: atomic.add() takes 3 arguments (array, index, value), got 2"},
    {"CasArity", SIMT "    t = cuda.atomic.cas(c, 0, 1)\n",
     "3:9: error: cuda.atomic.cas() takes 4 arguments (array, index, old, value), got 3"},
    {"AtomicRank", SIMT "    atomic.add(A, 0, 1.0)\n",
     "3:19: error: 'A' has rank 2 but the index of atomic.add() has 1; index with a tuple, as in "
     "(i, j)"},
    {"AtomicTupleRank", SIMT "    atomic.max(x, (0, 1), 1.0)\n",
     "3:19: error: 'x' has rank 1 but the index of atomic.max() has 2"},
    {"AtomicFloatIndex", SIMT "    atomic.min(A, (0, 1.0), 1.0)\n",
     "3:23: error: an array index must be an integer, got f64"},
    {"AtomicOnScalar", SIMT "    atomic.add(m, 0, 1)\n",
     "3:16: error: the first argument of atomic.add() must be an array; 'm' is a scalar parameter "
     "of type i32"},
    {"AtomicOnBool", "@kernel(simt=True)\ndef k(b: bool[n]):\n    atomic.exch(b, 0, True)\n",
     "3:17: error: atomic.exch() updates elements of i32, i64, u32, u64, f32 or f64; 'b' holds "
     "bool"},
    {"AtomicOnHalf", "@kernel(simt=True)\ndef k(h: f16[n]):\n    atomic.add(h, 0, 1.0)\n",
     "3:16: error: atomic.add() updates elements of i32, i64, u32, u64, f32 or f64; 'h' holds f16"},
    {"UnknownAtomic", SIMT "    atomic.sub(c, 0, 1)\n",
     "3:5: error: unknown function 'atomic.sub'; the atomics are atomic.add, atomic.min, "
     "atomic.max, atomic.exch and atomic.cas (subtract with atomic.add of -value)"},
    {"UnknownShared", SIMT "    s = shared.zeros(8, f32)\n",
     "3:9: error: unknown function 'shared.zeros'; a shared array is declared with "
     "shared.array(shape, type)"},
    // warp operations
    {"MaskNotFull", SIMT "    x[0] = shfl_sync(0xffff, x[0], 0)\n",
     "3:22: error: the mask of shfl_sync() must be 0xffffffff (or -1): loom's warp operations "
     "take the whole warp"},
    {"MaskNotConstant", SIMT "    t = ballot_sync(m, x[0] > 0.0)\n",
     "3:21: error: the mask of ballot_sync() must be 0xffffffff (or -1): loom's warp operations "
     "take the whole warp"},
    {"ShuffleOfBool", SIMT "    t = shfl_sync(-1, m > 0, 0)\n",
     "3:23: error: shfl_sync() moves an i32, i64, u32, u64, f32 or f64 value, got bool"},
    {"ShuffleOfComplex",
     "@kernel(simt=True)\ndef k(z: c64[n]):\n    z[0] = shfl_sync(-1, z[0], 0)\n",
     "3:26: error: shfl_sync() moves an i32, i64, u32, u64, f32 or f64 value, got c64"},
    {"ShuffleOfHalf",
     "@kernel(simt=True)\ndef k(x: f32[n], h: f16):\n    x[0] = shfl_sync(-1, h, 0)\n",
     "3:26: error: shfl_sync() moves an i32, i64, u32, u64, f32 or f64 value, got f16"},
    {"ShuffleDeltaFloat", SIMT "    x[0] = shfl_up_sync(-1, x[0], 1.5)\n",
     "3:35: error: the delta of shfl_up_sync() must be an integer, got f64"},
    {"ShuffleArity", SIMT "    x[0] = cuda.shfl_xor_sync(x[0], 1)\n",
     "3:12: error: cuda.shfl_xor_sync() takes 3 arguments (mask, value, lane mask), got 2"},
    {"VoteArity", SIMT "    t = all_sync(m > 0)\n",
     "3:9: error: all_sync() takes 2 arguments (mask, predicate), got 1"},
    {"ShuffleAsStatement", SIMT "    shfl_sync(-1, m, 0)\n",
     "3:5: error: this expression does nothing; a statement is an assignment, a call of a helper "
     "function, or if, for, while or pass"},
    {"MisspelledSimtFunction", SIMT "    syncthread()\n",
     "3:5: error: unknown function 'syncthread' (did you mean 'syncthreads'?)"},
    {"WarpOperationInWhileCondition", SIMT "    while any_sync(-1, m > 0):\n        pass\n",
     "3:11: error: this condition has an atomic or a warp operation, which would run only once, "
     "before the loop; compute the condition into a variable before the loop and again at the "
     "end of its body"},
};

class BadPrograms : public ::testing::TestWithParam<BadProgram> {};

TEST_P(BadPrograms, FailWithTheirExactDiagnostic) {
  const BadProgram &p = GetParam();
  try {
    text::parse_kernels(p.source, "t.loom");
    FAIL() << "no error for:\n" << p.source;
  } catch (const SourceError &e) {
    ASSERT_FALSE(e.diagnostics().empty());
    const Diagnostic &d = e.diagnostics()[0];
    EXPECT_EQ(d.file, "t.loom");
    std::string first =
        std::to_string(d.line) + ":" + std::to_string(d.col) + ": error: " + d.message;
    EXPECT_EQ(first, p.diagnostic) << "all diagnostics:\n" << e.what();
    EXPECT_EQ(e.diagnostics().size(), 1u) << "all diagnostics:\n" << e.what();
    // what() starts with the same diagnostic, with the file name.
    EXPECT_EQ(std::string(e.what()).rfind("t.loom:" + first + "\n", 0), 0u) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(, BadPrograms, ::testing::ValuesIn(bad_programs),
                         [](const ::testing::TestParamInfo<BadProgram> &info) {
                           return std::string(info.param.name);
                         });

TEST(Diagnostics, EachShowsTheSourceLineAndACaret) {
  try {
    text::parse_kernels("@kernel\ndef k(x: f32[n]):\n    for i in parallel(n):\n"
                        "        x[i] = x[i] +* 2.0\n",
                        "saxpy.loom");
    FAIL();
  } catch (const SourceError &e) {
    EXPECT_STREQ(e.what(), "saxpy.loom:4:22: error: expected an expression, got '*'\n"
                           "        x[i] = x[i] +* 2.0\n"
                           "                     ^\n");
  }
}

TEST(Diagnostics, SourceErrorIsADslError) {
  EXPECT_THROW(text::parse_kernels("def"), DslError);
  EXPECT_THROW(text::parse_kernels("def"), loom::Error);
}

// Several errors, of several statements, functions and kinds, are all reported in one run, in
// source order.
TEST(Diagnostics, SeveralErrorsInOneRun) {
  const char *source = R"(def norm(a: f32, b: f32) -> f32:
    return sqrt(a * a + c * c)

@kernel
def k(A: f32[N, K], B: f32[K, M], C: f32[N, M], s: f32):
    for i, j in parallel(N, M):
        acc: f32 = 0.0
        for k in range(K):
            acc += A[i, k] * B[k, j, 0]
        C[i, j] = acc2 * s
        s = 2.0
        C[i, j] = norm(acc, 1.0) + A[i] + wat(acc)
)";
  try {
    text::parse_kernels(source, "many.loom");
    FAIL();
  } catch (const SourceError &e) {
    std::vector<std::string> got;
    for (const Diagnostic &d : e.diagnostics())
      got.push_back(std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message);
    std::vector<std::string> expected = {
        "2:25: unknown name 'c'",
        "9:30: 'B' has rank 2 but is indexed with 3 indices",
        "10:19: unknown name 'acc2' (did you mean 'acc'?)",
        "11:9: cannot assign to parameter 's'; copy it into a local variable first",
        "12:36: 'A' has rank 2 but is indexed with 1 index",
        "12:43: unknown function 'wat'",
    };
    EXPECT_EQ(got, expected) << e.what();
    std::string what = e.what();
    EXPECT_NE(what.find("many.loom:10:19: error: unknown name 'acc2' (did you mean 'acc'?)\n"
                        "        C[i, j] = acc2 * s\n"
                        "                  ^\n"),
              std::string::npos)
        << what;
  }
}

TEST(Diagnostics, SeveralSyntaxErrorsInOneRun) {
  const char *source = "@kernel\ndef k(x: f32[n]):\n    for i in parallel(n)\n        x[i] = 1.0\n"
                       "    y = (1 +)\n    z = 3 **\n";
  try {
    text::parse_kernels(source, "s.loom");
    FAIL();
  } catch (const SourceError &e) {
    ASSERT_EQ(e.diagnostics().size(), 3u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].line, 3);
    EXPECT_EQ(e.diagnostics()[1].message, "expected an expression, got ')'");
    EXPECT_EQ(e.diagnostics()[2].message, "'**' is not supported; use pow(a, b)");
  }
}

TEST(Diagnostics, LexicalErrorsAreAllReported) {
  try {
    text::parse_kernels("@kernel\ndef k(x: f32[n]):\n    x[0] = $ + ?\n", "l.loom");
    FAIL();
  } catch (const SourceError &e) {
    ASSERT_EQ(e.diagnostics().size(), 2u) << e.what();
    EXPECT_EQ(e.diagnostics()[1].col, 16);
    EXPECT_EQ(e.diagnostics()[1].message, "unexpected character '?'");
  }
}

// Input built to exhaust the stack or the memory is an error instead.
TEST(Diagnostics, LimitsOnNestingAndInlining) {
  auto first_message = [](const std::string &source) {
    try {
      text::parse_kernels(source);
    } catch (const SourceError &e) {
      return e.diagnostics()[0].message;
    }
    return std::string("no error");
  };
  std::string deep =
      LOOP "        x[i] = " + std::string(100000, '(') + "1.0" + std::string(100000, ')') + "\n";
  EXPECT_EQ(first_message(deep), "expression nested too deeply (more than 200 levels)");
  std::string chain = LOOP "        x[i] = 1.0";
  for (int k = 0; k < 100000; ++k)
    chain += " + x[i]";
  EXPECT_EQ(first_message(chain + "\n"),
            "expression nested too deeply (more than 500 levels); split it with local variables");
  // Each helper calls the one before twice: 2^40 calls once inlined.
  std::string doubling = "def h0(a: f32) -> f32:\n    return a\n";
  for (int k = 1; k <= 40; ++k)
    doubling += "def h" + std::to_string(k) + "(a: f32) -> f32:\n    t = h" +
                std::to_string(k - 1) + "(a)\n    return h" + std::to_string(k - 1) + "(t)\n";
  EXPECT_NE(first_message(doubling).find("helper calls are inlined into this function"),
            std::string::npos);
  // Each helper passes its parameter squared: an expression tree of 2^40 leaves, in 40 calls.
  std::string squaring = "def g0(a: f32) -> f32:\n    return a\n";
  for (int k = 1; k <= 40; ++k)
    squaring += "def g" + std::to_string(k) + "(a: f32) -> f32:\n    return g" +
                std::to_string(k - 1) + "(a * a)\n";
  EXPECT_NE(first_message(squaring).find("once inlined; store intermediate values in local"),
            std::string::npos)
      << first_message(squaring);
  std::string blocks = HEAD;
  for (int k = 0; k < 300; ++k)
    blocks += std::string(4 * (k + 1), ' ') + "if m > 0:\n";
  blocks += std::string(4 * 301, ' ') + "pass\n";
  EXPECT_EQ(first_message(blocks), "block nested too deeply (more than 200 levels)");
}

// No input crashes the front end: every prefix of a valid program either parses or throws a
// SourceError.
TEST(Diagnostics, EveryPrefixOfAProgramIsHandled) {
  std::string program = R"(def sq(x: f32) -> f32:
    return x * x

@kernel(fastmath=True)
def k(A: f32[N, K], B: f32[K, M], C: f32[N, M], n: i32):
    for i, j in parallel(N, M):
        acc: f32 = 0.0
        for k in range(0, K, 2):
            acc += A[i, k] * B[k, j] if k < n else sq(-1.5e-3)
        while acc > 1.0 and not (n == 0):
            acc /= 2
        C[i, j] = acc
)";
  std::string simt = R"(def warp_sum(v: f32) -> f32:
    s = v + cuda.shfl_xor_sync(0xffffffff, v, 16)
    return s

@kernel(simt=True)
def k(x: f32[n], A: i32[N, M], total: f32[1]):
    tile = shared.array((16, 16,), f32)
    tx, ty = grid(2)
    tile[threadIdx.y, threadIdx.x] = x[tx] if tx < n else 0.0
    syncthreads()
    if laneid == 0 and all_sync(-1, ty < N):
        old = atomic.cas(A, (ty, 0), 0, ballot_sync(-1, True))
    atomic.add(total, 0, warp_sum(tile[0, laneid % 16]) + f32(warpsize))
)";
  for (const std::string &p : {program, simt}) {
    for (size_t len = 0; len <= p.size(); ++len) {
      try {
        text::parse_kernels(p.substr(0, len));
      } catch (const SourceError &) {
      }
    }
    EXPECT_EQ(text::parse_kernels(p).size(), 1u);
  }
}

} // namespace
