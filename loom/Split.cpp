// Kernel::on(DeviceSet): a kernel that is one parallel loop runs as parts, each part the loop
// over a share of its first dimension's iterations, on its own device. The access analysis
// (ir/RowAccess.h) says which rows of each array an iteration touches; a GPU part gets a device
// copy of each host array holding only the rows its share reads (halos included) and returns
// only the rows it writes. Reductions go into per-part arrays that start at the operation's
// identity and are combined into the host array in part order, so the result is the same for a
// given device set on every run.
#include "loom/Split.h"

#include "ir/Evaluate.h"
#include "ir/Mutator.h"
#include "ir/Printer.h"
#include "loom/KernelState.h"
#include "runtime/DeviceBuffer.h"
#include "runtime/GpuContext.h"
#include "support/Error.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <sstream>
#include <thread>

namespace loom {

namespace {

// The kernel's one parallel loop: its body, or the one statement of blocks around it; null when
// the body is anything else.
const ir::ParallelFor *the_parallel_loop(const ir::Stmt &body) {
  if (const auto *loop = body.as<ir::ParallelFor>())
    return loop;
  if (const auto *block = body.as<ir::Block>())
    if (block->stmts.size() == 1)
      return the_parallel_loop(block->stmts[0]);
  return nullptr;
}

// Replaces the loop variable i by j + part_begin.
class ShiftVar : public ir::Mutator {
public:
  const ir::Variable *from;
  ir::Expr to;

protected:
  ir::Expr mutate_node(const ir::VarRef *n, const ir::Expr &self) override {
    return n->var.get() == from ? to : self;
  }
};

// The kernel over iterations [part_begin, part_end) of its loop's first dimension: two i64
// parameters appended, the dimension's extent max(min(extent, part_end) - part_begin, 0), and
// its variable read as j + part_begin.
ir::Kernel part_kernel(const ir::Kernel &kernel, const ir::ParallelFor &loop) {
  using namespace ir;
  ir::Kernel part = kernel;
  part.name = kernel.name + "_part";
  Var begin = make_var("part_begin", ScalarType::I64), end = make_var("part_end", ScalarType::I64);
  for (const Var &v : {begin, end}) {
    Param p;
    p.name = v->name;
    p.kind = ParamKind::Scalar;
    p.type = ScalarType::I64;
    p.var = v;
    part.params.push_back(p);
  }
  Var j = make_var(loop.vars[0]->name, loop.vars[0]->type);
  ShiftVar shift;
  shift.from = loop.vars[0].get();
  shift.to = Binary::make(BinaryOp::Add, VarRef::make(j),
                          Cast::make(loop.vars[0]->type, VarRef::make(begin)));
  std::vector<Var> vars = loop.vars;
  vars[0] = j;
  std::vector<Expr> extents = loop.extents;
  extents[0] = Binary::make(
      BinaryOp::Max,
      Binary::make(BinaryOp::Sub,
                   Binary::make(BinaryOp::Min, Cast::make(ScalarType::I64, loop.extents[0]),
                                VarRef::make(end)),
                   VarRef::make(begin)),
      IntConst::make(ScalarType::I64, 0));
  extents[0] = Cast::make(loop.extents[0].type(), extents[0]);
  part.body = ParallelFor::make(vars, extents, shift.mutate(loop.body));
  return part;
}

bool reducible(ir::ScalarType t) {
  return !ir::is_complex(t) && !ir::is_half_float(t) && t != ir::ScalarType::Bool;
}

// Why `kernel` cannot be split, or "" (and then `s` holds the plan).
std::string plan(const KernelState &state, SplitState &s) {
  const ir::Kernel &k = state.kernel;
  const std::string who = "all_gpus() / DeviceSet: kernel '" + k.name + "'";
  if (k.simt())
    return who + " is a SIMT kernel; a split runs a kernel of parallel loops";
  const ir::ParallelFor *loop = the_parallel_loop(k.body);
  if (!loop)
    return who + " is not one parallel loop: a split divides the first dimension of a kernel "
                 "whose body is a single parallel loop (no statements, sequential loops or other "
                 "parallel loops around or beside it)";
  for (const ir::Param &p : k.params)
    if (p.kind == ir::ParamKind::Array && ir::is_complex(p.type))
      return who + " has the complex array '" + p.name + "', which a split does not copy yet";
  s.rows = ir::row_accesses(k, *loop);
  s.extent = loop->extents[0];
  s.variable = loop->vars[0]->name;
  if (!ir::reads_only_parameters(s.extent, k.params))
    return who + ": the extent of the loop over " + s.variable +
           " is not computable before the call";
  for (size_t p = 0; p < k.params.size(); ++p) {
    const ir::ArrayRows &r = s.rows[p];
    const std::string array = "'" + k.params[p].name + "'";
    const std::string split = "the split loop's variable " + s.variable;
    if (r.reduce_op) {
      if (r.mixed_reduce_ops)
        return who + " reduces into " + array + " with more than one operation";
      if (!r.read.empty() || !r.written.empty())
        return who + " reduces into " + array +
               " and also reads or stores it: each part's reductions go to an array of its own";
      if (!reducible(k.params[p].type))
        return who + " reduces into " + array + " of " + ir::type_name(k.params[p].type) +
               ", which a split does not combine";
    }
    if (r.written.any)
      return who + " stores into " + array + " at row " + r.written.unbounded_index +
             ", which cannot be bounded per part (parts would write rows that others own): "
             "store at rows " +
             s.variable + " + c, or reduce (+=, min, max) instead";
    if (r.written.fixed)
      return who + " stores into " + array + " at fixed rows " + std::to_string(r.written.first) +
             " to " + std::to_string(r.written.last) +
             ", which every part would write; reduce "
             "into them (+=, min, max) instead";
    if (r.written.relative && r.written.lo != r.written.hi)
      return who + " stores into " + array + " at rows " + s.variable + " + " +
             std::to_string(r.written.lo) + " to " + s.variable + " + " +
             std::to_string(r.written.hi) + ": neighbouring parts would write the same rows";
  }
  const int parts = s.devices.parts();
  ir::Kernel part = part_kernel(k, *loop);
  s.parts.clear();
  s.buffers.clear();
  s.buffers.resize(parts);
  for (int n = 0; n < parts; ++n) {
    Kernel kn = detail::make_kernel(part);
    if (s.devices.on_cpu())
      kn.on(ir::Target::CPU);
    else
      kn.on(s.devices.gpus()[n]);
    s.parts.push_back(kn);
  }
  return "";
}

// Typed element operations for the reduced arrays.
template <class T> T identity(ir::ReduceOp op) {
  switch (op) {
  case ir::ReduceOp::Add:
    return T(0);
  case ir::ReduceOp::Mul:
    return T(1);
  case ir::ReduceOp::Min:
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  case ir::ReduceOp::Max:
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  return T(0);
}

template <class T> T combine(ir::ReduceOp op, T a, T b) {
  switch (op) {
  case ir::ReduceOp::Add:
    return static_cast<T>(a + b);
  case ir::ReduceOp::Mul:
    return static_cast<T>(a * b);
  case ir::ReduceOp::Min:
    return b < a ? b : a;
  case ir::ReduceOp::Max:
    return a < b ? b : a;
  }
  return a;
}

template <class F> void with_type(ir::ScalarType t, F &&f) {
  using ir::ScalarType;
  switch (t) {
  case ScalarType::F32:
    return f(float{});
  case ScalarType::F64:
    return f(double{});
  case ScalarType::I8:
    return f(int8_t{});
  case ScalarType::I16:
    return f(int16_t{});
  case ScalarType::I32:
    return f(int32_t{});
  case ScalarType::I64:
    return f(int64_t{});
  case ScalarType::U8:
    return f(uint8_t{});
  case ScalarType::U16:
    return f(uint16_t{});
  case ScalarType::U32:
    return f(uint32_t{});
  case ScalarType::U64:
    return f(uint64_t{});
  default:
    throw Error("internal error: a split reduction of " + std::string(ir::type_name(t)));
  }
}

std::vector<unsigned char> identity_array(ir::ScalarType t, ir::ReduceOp op, int64_t count) {
  std::vector<unsigned char> bytes(static_cast<size_t>(count) * ir::byte_size(t));
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    const T v = identity<T>(op);
    for (int64_t e = 0; e < count; ++e)
      std::memcpy(bytes.data() + e * sizeof(T), &v, sizeof(T));
  });
  return bytes;
}

void combine_into(ir::ScalarType t, ir::ReduceOp op, void *into, const unsigned char *part,
                  int64_t count) {
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    T *out = static_cast<T *>(into);
    for (int64_t e = 0; e < count; ++e) {
      T v;
      std::memcpy(&v, part + e * sizeof(T), sizeof(T));
      out[e] = combine(op, out[e], v);
    }
  });
}

// What one call copies of one array for one part: rows [in_from, in_to) in, [out_from, out_to)
// out, or the whole array at its identity for a reduction.
struct PartCopies {
  int64_t in_from = 0, in_to = 0, out_from = 0, out_to = 0;
};

PartCopies copies_of(const ir::ArrayRows &r, const ir::ArrayAccess &access, int64_t begin,
                     int64_t end, int64_t rows) {
  PartCopies c;
  int64_t rf, rt, wf, wt;
  r.read.rows(begin, end, rows, &rf, &rt);
  r.written.rows(begin, end, rows, &wf, &wt);
  c.out_from = wf, c.out_to = wt;
  // Rows a part writes are copied in too, unless the kernel overwrites every element of them
  // (rows it stores only partly must come back with the rest of their elements unchanged).
  const bool overwrites = access.fully_overwritten && r.written.relative && !r.written.fixed;
  if (!overwrites && wf < wt) {
    if (rf < rt)
      rf = std::min(rf, wf), rt = std::max(rt, wt);
    else
      rf = wf, rt = wt;
  }
  c.in_from = rf, c.in_to = rt;
  return c;
}

bool unused(const ir::ArrayRows &r) {
  return r.read.empty() && r.written.empty() && !r.reduce_op;
}

// explain()'s lines for one call: the parts, and each array's rows in and out per part.
std::string describe_parts(const ir::Kernel &k, const SplitState &s, int64_t extent,
                           const std::vector<int64_t> &bounds,
                           const std::vector<std::vector<PartCopies>> &copies) {
  const size_t parts = bounds.size() - 1;
  std::ostringstream text;
  text << "  split: over " << s.devices.to_string() << "; the loop over " << s.variable << " ("
       << extent << " iterations) in parts";
  for (size_t n = 0; n < parts; ++n)
    text << (n ? ", " : " ") << "[" << bounds[n] << ", " << bounds[n + 1] << ")";
  text << "\n";
  for (size_t p = 0; p < k.params.size(); ++p) {
    if (k.params[p].kind != ir::ParamKind::Array)
      continue;
    const ir::ArrayRows &r = s.rows[p];
    text << "    '" << k.params[p].name << "': ";
    if (r.reduce_op) {
      text << "reduced (" << ir::op_name(*r.reduce_op)
           << ") into an array per part from the identity, combined into it in part order\n";
      continue;
    }
    if (unused(r)) {
      text << "unused\n";
      continue;
    }
    text << "rows in per part:";
    for (size_t n = 0; n < parts; ++n)
      text << (n ? "," : "") << " [" << copies[n][p].in_from << ", " << copies[n][p].in_to << ")";
    if (!r.written.empty()) {
      text << "; out:";
      for (size_t n = 0; n < parts; ++n)
        text << (n ? "," : "") << " [" << copies[n][p].out_from << ", " << copies[n][p].out_to
             << ")";
    }
    if (r.read.any)
      text << " (it reads rows at " << r.read.unbounded_index << ": every row to every part)";
    text << "\n";
  }
  return text.str();
}

} // namespace

void run_split(KernelState &state, std::span<const Argument> args,
               const ir::ArgumentValues &values) {
  SplitState &s = *state.split;
  const ir::Kernel &k = state.kernel;
  if (!s.planned) {
    s.problem = plan(state, s);
    s.planned = true;
  }
  if (!s.problem.empty())
    throw CompileError(s.problem);
  for (size_t p = 0; p < args.size(); ++p) {
    if (args[p].kind == Argument::Kind::DeviceArray)
      throw ArgumentError("argument " + std::to_string(p + 1) + " ('" + k.params[p].name +
                          "') of kernel '" + k.name +
                          "' is a DeviceArray, which lives on one GPU; a call split over " +
                          s.devices.to_string() + " takes host arrays, which it copies by rows");
    if (args[p].kind == Argument::Kind::HostArray && args[p].strides.size() != 0)
      throw ArgumentError("argument " + std::to_string(p + 1) + " ('" + k.params[p].name +
                          "') of kernel '" + k.name +
                          "' is a strided view; a split call copies dense host arrays by rows");
  }
  const int64_t extent = std::max<int64_t>(ir::evaluate(s.extent, k.params, values).i, 0);
  const int parts = s.devices.parts();
  const std::vector<double> shares = s.devices.shares();
  std::vector<int64_t> bounds(parts + 1, 0);
  double cumulative = 0;
  for (int n = 0; n < parts; ++n) {
    cumulative += shares[n];
    bounds[n + 1] = n + 1 == parts ? extent : std::llround(cumulative * double(extent));
  }

  // Per parameter: its rows, and the elements and bytes of one row.
  const size_t params = k.params.size();
  std::vector<int64_t> rows(params, 0), row_elements(params, 0);
  for (size_t p = 0; p < params; ++p) {
    if (k.params[p].kind != ir::ParamKind::Array)
      continue;
    const std::vector<int64_t> &e = values.extents[p];
    rows[p] = e.empty() ? 0 : e[0];
    row_elements[p] = 1;
    for (size_t d = 1; d < e.size(); ++d)
      row_elements[p] *= e[d];
  }
  auto row_bytes = [&](size_t p) { return row_elements[p] * ir::byte_size(k.params[p].type); };

  // Per part and reduced parameter: the part's array, starting at the identity.
  std::vector<std::vector<std::vector<unsigned char>>> reduced(
      parts, std::vector<std::vector<unsigned char>>(params));
  // Per part and array: the rows it copies (computed once, for the copies and for explain()).
  std::vector<std::vector<PartCopies>> copies(parts, std::vector<PartCopies>(params));
  for (int n = 0; n < parts; ++n)
    for (size_t p = 0; p < params; ++p)
      if (k.params[p].kind == ir::ParamKind::Array && !s.rows[p].reduce_op)
        copies[n][p] = copies_of(s.rows[p], state.access[p], bounds[n], bounds[n + 1], rows[p]);
  s.last = describe_parts(k, s, extent, bounds, copies);

  auto part_arguments = [&](int n) {
    std::vector<Argument> a;
    for (const Argument &arg : args)
      a.push_back(arg);
    for (const int64_t bound : {bounds[n], bounds[n + 1]}) {
      Argument b;
      b.type = ir::ScalarType::I64;
      b.scalar.i = bound;
      a.push_back(b);
    }
    for (size_t p = 0; p < params; ++p)
      if (s.rows[p].reduce_op) {
        reduced[n][p] =
            identity_array(k.params[p].type, *s.rows[p].reduce_op, rows[p] * row_elements[p]);
        a[p].host = reduced[n][p].data();
        a[p].host_const = false;
      }
    return a;
  };

  if (s.devices.on_cpu()) {
    // Logical devices on the CPU: each part reads and writes the host arrays in place (its rows
    // only), one after the other, each with all the CPU's threads.
    for (int n = 0; n < parts; ++n) {
      std::vector<Argument> a = part_arguments(n);
      s.parts[n].call(a);
    }
  } else {
    std::vector<std::exception_ptr> failed(parts);
    auto run_part = [&](int n) {
      try {
        const int device = s.devices.gpus()[n].ordinal();
        runtime::DeviceScope scope(device);
        std::vector<Argument> a = part_arguments(n);
        std::vector<runtime::DeviceBuffer> &buffers = s.buffers[n];
        buffers.resize(params);
        for (size_t p = 0; p < params; ++p) {
          // Arrays the kernel does not touch stay host arrays, which the call does not copy.
          if (k.params[p].kind != ir::ParamKind::Array || unused(s.rows[p]))
            continue;
          const size_t bytes = static_cast<size_t>(rows[p] * row_bytes(p));
          if (buffers[p].bytes() < bytes || buffers[p].device() != device)
            buffers[p] = runtime::DeviceBuffer(bytes, device);
          const auto *host = static_cast<const unsigned char *>(a[p].host);
          if (s.rows[p].reduce_op) {
            buffers[p].copy_from_host(host, bytes);
          } else {
            const PartCopies &c = copies[n][p];
            runtime::copy_host_to_device(buffers[p].ptr() + c.in_from * row_bytes(p),
                                         host + c.in_from * row_bytes(p),
                                         static_cast<size_t>((c.in_to - c.in_from) * row_bytes(p)));
          }
          a[p].kind = Argument::Kind::DeviceArray;
          a[p].device = buffers[p].ptr();
          a[p].device_ordinal = device;
          a[p].host = nullptr;
        }
        s.parts[n].call(a);
        for (size_t p = 0; p < params; ++p) {
          if (k.params[p].kind != ir::ParamKind::Array || unused(s.rows[p]))
            continue;
          if (s.rows[p].reduce_op) {
            buffers[p].copy_to_host(reduced[n][p].data(), reduced[n][p].size());
          } else if (const PartCopies &c = copies[n][p]; c.out_from < c.out_to) {
            auto *host = static_cast<unsigned char *>(args[p].host);
            runtime::copy_device_to_host(
                host + c.out_from * row_bytes(p), buffers[p].ptr() + c.out_from * row_bytes(p),
                static_cast<size_t>((c.out_to - c.out_from) * row_bytes(p)));
          }
        }
      } catch (...) {
        failed[n] = std::current_exception();
      }
    };
    std::vector<std::thread> threads;
    for (int n = 1; n < parts; ++n)
      threads.emplace_back(run_part, n);
    run_part(0);
    for (std::thread &t : threads)
      t.join();
    for (const std::exception_ptr &e : failed)
      if (e)
        std::rethrow_exception(e);
  }
  for (size_t p = 0; p < params; ++p)
    if (s.rows[p].reduce_op)
      for (int n = 0; n < parts; ++n)
        combine_into(k.params[p].type, *s.rows[p].reduce_op, args[p].host, reduced[n][p].data(),
                     rows[p] * row_elements[p]);
}

std::string explain_split(const KernelState &state) {
  const SplitState &s = *state.split;
  if (!s.problem.empty())
    return "  split: over " + s.devices.to_string() + ", refused: " + s.problem + "\n";
  if (s.last.empty())
    return "  split: over " + s.devices.to_string() + " (no call yet)\n";
  return s.last;
}

} // namespace loom
