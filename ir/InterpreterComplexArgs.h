// The interpreter's view of complex arguments, for kernels whose complex numbers expand_complex
// made parts (ir/ExpandComplex.cpp).
#pragma once

#include "ir/Interpreter.h"
#include "support/Error.h"

#include <string>
#include <vector>

namespace loom::ir::interpreter {

// Complex arguments as a kernel whose complex numbers expand_complex made parts takes them
// (ir::ComplexPart), for one run: an array's buffer is seen as one of its parts' type with one
// more dimension, of 2; a scalar's imaginary part is appended. `params` are the expanded ones;
// the first `own` are the arguments the caller gives.
class ComplexArgs {
public:
  ComplexArgs(const std::string &kernel, const std::vector<Param> &params, size_t own,
              std::vector<InterpreterArg> &args)
      : params_(params), args_(args), size_(args.size()) {
    if (args.size() != own)
      return; // the machine says what is wrong
    for (size_t p = 0; p < own; ++p) {
      if (params[p].part != ComplexPart::Parts)
        continue;
      Buffer &b = args[p].array;
      const ScalarType c = complex_of(params[p].type);
      if (b.type != c || static_cast<int>(b.shape.size()) != params[p].rank - 1)
        throw ArgumentError("argument '" + params[p].name + "' of kernel '" + kernel +
                            "' must be a " + type_name(c) + " array of rank " +
                            std::to_string(params[p].rank - 1));
      b.type = params[p].type;
      b.shape.push_back(2);
      seen_.push_back(p);
    }
    for (const Param &p : params)
      if (p.part == ComplexPart::Imag)
        args.push_back(InterpreterArg::of_scalar(float_value(p.type, args[p.of].scalar.im)));
  }
  ~ComplexArgs() {
    args_.resize(size_);
    for (size_t p : seen_) {
      args_[p].array.type = complex_of(params_[p].type);
      args_[p].array.shape.pop_back();
    }
  }
  ComplexArgs(const ComplexArgs &) = delete;
  ComplexArgs &operator=(const ComplexArgs &) = delete;

private:
  const std::vector<Param> &params_;
  std::vector<InterpreterArg> &args_;
  size_t size_;
  std::vector<size_t> seen_;
};

inline size_t imag_params(const std::vector<Param> &params) {
  size_t n = 0;
  for (const Param &p : params)
    n += p.part == ComplexPart::Imag;
  return n;
}

} // namespace loom::ir::interpreter
