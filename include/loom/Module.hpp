// Kernels compiled from the text DSL at run time, as PyCUDA's SourceModule does for CUDA C:
//
//   loom::Module m = loom::compile(source_text);
//   m["matmul"](loom::view(A, {n, k}), loom::view(B, {k, m}), loom::view(C, {n, m}));
//
// Module kernels are ordinary loom::Kernel objects: the same caching, target choice and argument
// checks as embedded-DSL kernels, plus the shape symbols of their parameters.
#pragma once

#include "frontend/text/Diagnostics.h"
#include "ir/IR.h"
#include "loom/Kernel.hpp"

#include <string>
#include <utility>
#include <vector>

namespace loom {

class Module;
Module compile(const std::string &source, const std::string &filename);

class Module {
public:
  // The kernel named `name`; an unknown name throws ArgumentError listing the module's kernels.
  Kernel &operator[](const std::string &name);
  const Kernel &operator[](const std::string &name) const;
  bool contains(const std::string &name) const;
  // The kernels' names, in source order.
  std::vector<std::string> names() const;

private:
  friend Module compile(const std::string &source, const std::string &filename);
  explicit Module(std::vector<ir::Kernel> kernels);
  std::vector<std::pair<std::string, Kernel>> kernels_;
};

// Compiles the @kernel functions of `source` (the text DSL, docs/language.md) to IR; each kernel
// is compiled for its target on its first call. Throws SourceError with every error found, as
// `filename:line:col: error: ...` with the source line and a caret.
Module compile(const std::string &source, const std::string &filename = "<source>");

} // namespace loom
