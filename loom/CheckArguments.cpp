#include "ir/Evaluate.h"
#include "ir/Printer.h"
#include "ir/Semantics.h"
#include "loom/KernelState.h"
#include "support/Error.h"
#include "support/StridedLayout.h"

#include <cmath>

namespace loom {

namespace {

std::string describe_param(const ir::Param &p) {
  if (p.kind == ir::ParamKind::Scalar)
    return std::string("a scalar ") + ir::type_name(p.type);
  return "an array of " + std::string(ir::type_name(p.type)) + " with rank " +
         std::to_string(p.rank);
}

std::string describe_argument(const Argument &a) {
  if (a.kind == Argument::Kind::Scalar)
    return std::string("a scalar ") + ir::type_name(a.type);
  return std::string(a.kind == Argument::Kind::DeviceArray ? "a device" : "a host") + " array of " +
         ir::type_name(a.type) + " with shape " + ir::shape_text(a.shape);
}

// A scalar argument converted to the parameter's type, as a C++ call would convert it.
// loom's own cast: one rounding, saturating float -> int, NaN -> 0.
ir::ScalarValue convert(const Argument &a, ir::ScalarType to) {
  return ir::cast_op(to, a.type, a.scalar);
}

} // namespace

void check_arguments(const KernelState &state, std::span<const Argument> args,
                     ir::ArgumentValues &values) {
  const ir::Kernel &k = state.kernel;
  if (args.size() != k.params.size())
    throw ArgumentError("kernel " + ir::signature(k) + " takes " + std::to_string(k.params.size()) +
                        " arguments but was called with " + std::to_string(args.size()));
  // Sized once per kernel: a call with the same ranks allocates nothing.
  values.scalars.resize(args.size());
  values.extents.resize(args.size());
  values.strides.resize(args.size());
  for (size_t p = 0; p < args.size(); ++p) {
    const ir::Param &param = k.params[p];
    const Argument &a = args[p];
    auto where = [&] {
      return "argument " + std::to_string(p + 1) + " ('" + param.name + "') of kernel '" + k.name +
             "'";
    };
    if (param.kind == ir::ParamKind::Scalar) {
      if (a.kind != Argument::Kind::Scalar)
        throw ArgumentError(where() + " must be " + describe_param(param) + "; got " +
                            describe_argument(a));
      if (ir::is_complex(a.type) && !ir::is_complex(param.type))
        throw ArgumentError(where() + " must be " + describe_param(param) + "; got " +
                            describe_argument(a) +
                            " (a complex number does not convert to a real one; pass its real "
                            "part, or declare the parameter complex)");
      values.scalars[p] = convert(a, param.type);
      continue;
    }
    if (a.kind == Argument::Kind::Scalar || a.type != param.type ||
        static_cast<int>(a.shape.size()) != param.rank) {
      std::string hint;
      if (a.kind == Argument::Kind::HostArray && a.type == param.type && param.rank > 1 &&
          a.shape.size() == 1)
        hint = " (pass a std::vector as a " + std::to_string(param.rank) +
               "-D array with loom::view(v, {extents...}))";
      throw ArgumentError(where() + " must be " + describe_param(param) + "; got " +
                          describe_argument(a) + hint);
    }
    for (int64_t e : a.shape)
      if (e < 0)
        throw ArgumentError(where() + " has a negative extent in shape " + ir::shape_text(a.shape));
    if (a.host_const && state.access[p].written)
      throw ArgumentError(where() + " is a const array, but the kernel writes '" + param.name +
                          "'");
    if (a.kind == Argument::Kind::HostArray && !a.host && a.size() > 0)
      throw ArgumentError(where() + " has no data (null pointer) but shape " +
                          ir::shape_text(a.shape));
    values.extents[p].assign(a.shape.begin(), a.shape.end());
    values.strides[p].clear();
    if (a.strides.size() == 0)
      continue;
    // A view: its strides, unless they are the dense layout's.
    std::span<const int64_t> shape(a.shape.begin(), a.shape.end()),
        strides(a.strides.begin(), a.strides.end());
    strided::Reach reach;
    if (a.strides.size() != a.shape.size() || !strided::reach(shape, strides, reach))
      throw ArgumentError(where() + " is a view with shape " + ir::shape_text(a.shape) +
                          " and strides " + ir::shape_text(a.strides) +
                          (a.strides.size() != a.shape.size()
                               ? ": it needs one stride per dimension"
                               : ": the elements it reaches overflow a 64-bit offset"));
    if (state.access[p].written && !strided::elements_distinct(shape, strides))
      throw ArgumentError(where() + " is a view with shape " + ir::shape_text(a.shape) +
                          " and strides " + ir::shape_text(a.strides) +
                          " in which several indices name one element, and the kernel writes '" +
                          param.name + "'; pass a view whose elements are distinct");
    if (!strided::is_row_major(shape, strides))
      values.strides[p].assign(a.strides.begin(), a.strides.end());
  }

  ir::check_shape_symbols(k, values);
  for (const ir::CallCheck &check : k.call_checks)
    if (ir::evaluate(check.holds, k.params, values).i == 0)
      throw ArgumentError("kernel '" + k.name + "': " + check.message);

  // Arrays are compiled as not aliasing: an array the kernel writes must not overlap another.
  // Two arguments overlap when the memory from the lowest to the highest element each reaches
  // meets and their lattices of element addresses meet (strided::lattices_meet: the even and odd
  // elements of one vector do not).
  auto first_element = [](const Argument &a) {
    return a.kind == Argument::Kind::DeviceArray ? a.device : reinterpret_cast<uint64_t>(a.host);
  };
  auto lattice = [](const Argument &a) {
    const int64_t bytes = ir::byte_size(a.type);
    if (a.strides.size() == 0)
      return a.size() > 1 ? bytes : int64_t(0);
    return strided::byte_lattice(std::span<const int64_t>(a.shape.begin(), a.shape.end()),
                                 std::span<const int64_t>(a.strides.begin(), a.strides.end()),
                                 bytes);
  };
  auto range = [&](const Argument &a) {
    uint64_t first = first_element(a);
    const uint64_t bytes = ir::byte_size(a.type);
    if (a.strides.size() == 0)
      return std::pair<uint64_t, uint64_t>(first, first + a.size() * bytes);
    strided::Reach r;
    strided::reach(std::span<const int64_t>(a.shape.begin(), a.shape.end()),
                   std::span<const int64_t>(a.strides.begin(), a.strides.end()), r);
    if (r.empty)
      return std::pair<uint64_t, uint64_t>(first, first);
    return std::pair<uint64_t, uint64_t>(first + r.lowest * bytes, first + (r.highest + 1) * bytes);
  };
  for (size_t p = 0; p < args.size(); ++p) {
    if (k.params[p].kind != ir::ParamKind::Array || !state.access[p].written)
      continue;
    auto [b1, e1] = range(args[p]);
    for (size_t q = 0; q < args.size(); ++q) {
      if (q == p || k.params[q].kind != ir::ParamKind::Array || args[q].kind != args[p].kind)
        continue;
      auto [b2, e2] = range(args[q]);
      if (b1 < e2 && b2 < e1 &&
          strided::lattices_meet(first_element(args[p]), lattice(args[p]),
                                 ir::byte_size(args[p].type), first_element(args[q]),
                                 lattice(args[q]), ir::byte_size(args[q].type)))
        throw ArgumentError("arguments '" + k.params[p].name + "' and '" + k.params[q].name +
                            "' of kernel '" + k.name + "' overlap, and the kernel writes '" +
                            k.params[p].name +
                            "'; loom compiles arrays as not aliasing, so pass separate arrays");
    }
  }
}

void pack_params(PackedParams &packed, const std::vector<ir::Param> &params,
                 const ir::ArgumentValues &values, const std::vector<uint64_t> &pointers,
                 const TaskExtras &extras) {
  size_t count = (extras.reduction_scratch ? 1 : 0) + (extras.bounds_record ? 1 : 0);
  for (const ir::Param &p : params)
    count += p.kind == ir::ParamKind::Array ? 1 + p.rank * (p.strided ? 2 : 1) : 1;
  packed.reset(count);
  for (size_t p = 0; p < params.size(); ++p) {
    if (params[p].kind == ir::ParamKind::Array) {
      packed.push(pointers[p]);
      for (int64_t e : values.extents[p])
        packed.push(e);
      if (params[p].part == ir::ComplexPart::Parts)
        packed.push(int64_t(2)); // the real and the imaginary part
      if (!params[p].strided)
        continue;
      // In elements of the parameter's type: a complex view's strides count parts.
      const bool parts = params[p].part == ir::ComplexPart::Parts;
      for (int64_t s : values.strides[p])
        packed.push(parts ? 2 * s : s);
      if (parts)
        packed.push(int64_t(1));
      continue;
    }
    // The imaginary part of a complex scalar argument is a parameter of its own
    // (ir/ExpandComplex.cpp); the real part is the argument's value as a float.
    const ir::ScalarValue v = params[p].part == ir::ComplexPart::Imag
                                  ? ir::ScalarValue{0, values.scalars[params[p].of].im, 0}
                                  : values.scalars[p];
    switch (params[p].type) {
    case ir::ScalarType::Bool:
      packed.push(static_cast<uint8_t>(v.i != 0));
      break;
    case ir::ScalarType::I32:
      packed.push(static_cast<int32_t>(v.i));
      break;
    case ir::ScalarType::I64:
    case ir::ScalarType::U64:
      packed.push(v.i);
      break;
    case ir::ScalarType::I8:
    case ir::ScalarType::U8:
      packed.push(static_cast<uint8_t>(v.i));
      break;
    case ir::ScalarType::I16:
    case ir::ScalarType::U16:
      packed.push(static_cast<uint16_t>(v.i));
      break;
    case ir::ScalarType::U32:
      packed.push(static_cast<uint32_t>(v.i));
      break;
    case ir::ScalarType::F32:
      packed.push(static_cast<float>(v.f));
      break;
    case ir::ScalarType::F64:
      packed.push(v.f);
      break;
    case ir::ScalarType::F16:
    case ir::ScalarType::BF16: // expand_half made them f32
    case ir::ScalarType::C64:  // lowering made them parts
    case ir::ScalarType::C128:
      throw Error("internal error: scalar parameter '" + params[p].name +
                  "' of a 16-bit float or complex type");
    }
  }
  if (extras.reduction_scratch)
    packed.push(extras.reduction_scratch);
  if (extras.bounds_record)
    packed.push(extras.bounds_record);
}

void check_same_task_abi(const ir::LoweredKernel &a, const ir::LoweredKernel &b) {
  bool same = a.params.size() == b.params.size() && a.tasks.size() == b.tasks.size() &&
              a.task_loops.size() == b.task_loops.size() && a.scratch.size() == b.scratch.size() &&
              a.takes_record() == b.takes_record();
  for (size_t p = 0; same && p < a.params.size(); ++p)
    same = a.params[p].kind == b.params[p].kind && a.params[p].type == b.params[p].type &&
           a.params[p].rank == b.params[p].rank && a.params[p].strided == b.params[p].strided;
  for (size_t t = 0; same && t < a.tasks.size(); ++t)
    same = a.tasks[t].name == b.tasks[t].name && a.tasks[t].kind == b.tasks[t].kind &&
           a.tasks[t].reductions.size() == b.tasks[t].reductions.size();
  if (!same)
    throw Error("internal error: two variants of kernel '" + a.name +
                "' differ in their tasks or parameters, so a call cannot switch between them");
}

} // namespace loom
