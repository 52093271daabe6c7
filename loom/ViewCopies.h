// A strided view's elements copied to and from a dense row-major copy in host memory: what a call
// stages a view through when its target does not read it in place (a host view on the GPU, a
// device view on the CPU). Only the elements the view covers are written back; a device view's
// span is read first, so the memory between its elements keeps its contents.
// Internal to loom (included by loom/*.cpp only).
#pragma once

#include "loom/Arguments.hpp"

#include <vector>

namespace loom {

// Whether the argument is a view with strides of its own (Argument::strides).
inline bool is_view(const Argument &a) {
  return a.strides.size() != 0;
}

// The view's elements, row-major, into `dense` (resized to a.size() elements).
void view_to_dense(const Argument &a, std::vector<unsigned char> &dense);
// `dense` (a.size() elements, row-major) into the view's elements.
void dense_to_view(const Argument &a, const unsigned char *dense);

} // namespace loom
