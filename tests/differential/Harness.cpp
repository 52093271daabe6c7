#include "differential/Harness.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/MathFunctions.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Uncertainty.h"
#include "ir/Verifier.h"
#include "loom/Kernel.hpp"
#include "runtime/DeviceBuffer.h"
#include "runtime/GpuContext.h"
#include "support/Error.h"
#include "support/PrintLine.h"
#include "support/StridedLayout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <functional>
#include <optional>
#include <stdexcept>
#include <typeinfo>
#include <unistd.h>

namespace loom::difftest {

using namespace loom::ir;

namespace {

enum class Compare { Bits, Values, WithinUncertainty };

std::string text(ScalarType t, ScalarValue v) {
  char buf[96];
  if (is_complex(t))
    std::snprintf(buf, sizeof buf, "(%.17g, %.17g)", v.f, v.im);
  else if (is_float(t))
    std::snprintf(buf, sizeof buf, "%.17g", v.f);
  else
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.i));
  return buf;
}

std::string element_name(const Param &p, const Buffer &b, int64_t linear) {
  std::string s = p.name + "[";
  std::vector<int64_t> idx(b.shape.size());
  for (size_t d = b.shape.size(); d-- > 0;) {
    idx[d] = linear % b.shape[d];
    linear /= b.shape[d];
  }
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

bool equal_values(ScalarType t, ScalarValue a, ScalarValue b) {
  if (is_complex(t)) // each part
    return equal_values(part_type(t), a, b) &&
           equal_values(part_type(t), {0, a.im, 0}, {0, b.im, 0});
  if (!is_float(t))
    return a.i == b.i;
  return a.f == b.f || (std::isnan(a.f) && std::isnan(b.f));
}

} // namespace

std::string outside_bound(ScalarType t, ScalarValue ref, const double bound[2], ScalarValue other) {
  if (!is_complex(t)) {
    Uncertainty u;
    u.error = bound[0];
    if (within_uncertainty(t, ref, u, other))
      return "";
    return "allowed difference " + text(ScalarType::F64, ScalarValue{0, bound[0]});
  }
  const ScalarType p = part_type(t);
  const ScalarValue parts[2][2] = {{{0, ref.f, 0}, {0, other.f, 0}},
                                   {{0, ref.im, 0}, {0, other.im, 0}}};
  for (int k = 0; k < 2; ++k) {
    Uncertainty u;
    u.error = bound[k];
    if (!within_uncertainty(p, parts[k][0], u, parts[k][1]))
      return std::string(k ? "imaginary" : "real") + " part: allowed difference " +
             text(ScalarType::F64, ScalarValue{0, bound[k]}) + " (the other part's " +
             text(ScalarType::F64, ScalarValue{0, bound[1 - k]}) + ")";
  }
  return "";
}

namespace {

// The first element where `got` differs from the reference, described; empty when none does.
std::string compare(const std::vector<Param> &params, const std::vector<InterpreterArg> &ref,
                    const InterpreterResult &ref_result, const std::vector<InterpreterArg> &got,
                    Compare how, const std::string &check) {
  for (size_t p = 0; p < params.size(); ++p) {
    if (params[p].kind != ParamKind::Array)
      continue;
    const Buffer &a = ref[p].array, &b = got[p].array;
    const ScalarType t = a.type;
    // The reference ran with its complex numbers as parts (ir/ExpandComplex.cpp): a complex
    // array's bounds are its parts', the real part's then the imaginary part's, element by
    // element.
    const int parts = is_complex(t) ? 2 : 1;
    for (int64_t k = 0; k < a.size(); ++k) {
      ScalarValue x = a.get(k), y = b.get(k);
      bool same = false;
      std::string why;
      switch (how) {
      case Compare::Bits:
        same = same_value(t, x, y);
        break;
      case Compare::Values:
        same = equal_values(t, x, y);
        break;
      case Compare::WithinUncertainty: {
        const std::vector<double> &bounds = ref_result.error_bounds.at(p);
        const double bound[2] = {bounds.at(k * parts), bounds.at(k * parts + parts - 1)};
        why = outside_bound(t, x, bound, y);
        same = why.empty();
      } break;
      }
      if (!same) {
        std::string s = element_name(params[p], a, k) + ": interpreter " + text(t, x) + ", " +
                        check + " " + text(t, y);
        if (how == Compare::WithinUncertainty)
          s += " (" + why + ")";
        return s;
      }
    }
  }
  return "";
}

// The bytes of one sentinel element of type t, which fill a view's buffer where the view has no
// element: a quiet NaN with a payload in each float (part), 0xa5 in every byte of the others, so
// that a wrong read shows in the results and a wrong write in the buffer.
std::vector<unsigned char> sentinel(ScalarType t) {
  const ScalarType part = is_complex(t) ? part_type(t) : t;
  std::vector<unsigned char> one(static_cast<size_t>(byte_size(part)), 0xa5);
  auto put = [&](auto bits) { std::memcpy(one.data(), &bits, sizeof bits); };
  switch (part) {
  case ScalarType::F16:
    put(uint16_t(0x7e5a));
    break;
  case ScalarType::BF16:
    put(uint16_t(0x7fc5));
    break;
  case ScalarType::F32:
    put(uint32_t(0x7fc5a5a5u));
    break;
  case ScalarType::F64:
    put(uint64_t(0x7ff8a5a5a5a5a5a5ull));
    break;
  default:
    break;
  }
  std::vector<unsigned char> element = one;
  if (is_complex(t))
    element.insert(element.end(), one.begin(), one.end());
  return element;
}

std::string hex(const unsigned char *p, size_t bytes) {
  std::string s = "0x";
  char buf[4];
  for (size_t k = bytes; k-- > 0;) { // little-endian: the value's bits, most significant first
    std::snprintf(buf, sizeof buf, "%02x", p[k]);
    s += buf;
  }
  return s;
}

std::string layout_text(const ViewLayout &v) {
  std::string s = "strides [";
  for (size_t d = 0; d < v.strides.size(); ++d)
    s += (d ? ", " : "") + std::to_string(v.strides[d]);
  return s + "] from element " + std::to_string(v.offset) + " of " + std::to_string(v.buffer);
}

// An array passed as a strided view: its buffer on the host (and on the GPU for a device view),
// between guards of `guard` sentinel elements on either side, so that a write past the buffer (a
// view addressed as a dense array from its element [0, ..., 0], say) is reported like one into
// its padding rather than corrupting other memory.
struct StagedView {
  const ViewLayout *layout = nullptr; // where the program puts the view
  int64_t guard = 0;
  std::vector<unsigned char> host;
  runtime::DeviceBuffer device;
};

// Runs `kernel` through loom::Kernel on `target` with copies of the arguments, the arrays with
// a strided layout in `views` as views (see ViewLayout). `outside` gets the first element of a
// view's buffer outside the view that the run overwrote, described (empty when none was).
std::vector<InterpreterArg> run_compiled(const Program &program, const ir::Kernel &kernel,
                                         const std::vector<InterpreterArg> &inputs,
                                         const std::vector<ViewLayout> &views, Target target,
                                         const CheckOptions &options, std::string &outside) {
  std::vector<InterpreterArg> out = inputs;
  std::vector<Argument> args(kernel.params.size());
  std::vector<StagedView> staged(kernel.params.size());
  for (size_t p = 0; p < kernel.params.size(); ++p) {
    const Param &param = kernel.params[p];
    Argument &a = args[p];
    a.type = param.type;
    if (param.kind == ParamKind::Scalar) {
      a.kind = Argument::Kind::Scalar;
      a.scalar = out[p].scalar;
      continue;
    }
    Buffer &dense = out[p].array;
    a.kind = Argument::Kind::HostArray;
    a.host = dense.data();
    a.shape = dense.shape;
    if (views.empty() || !views[p].strided())
      continue;
    // The buffer: the sentinel everywhere, then the array's elements where the view has them.
    StagedView &s = staged[p];
    s.layout = &views[p];
    const std::vector<unsigned char> fill = sentinel(param.type);
    const size_t bytes = fill.size();
    s.guard = std::max<int64_t>(64, dense.size());
    s.host.resize(static_cast<size_t>(s.layout->buffer + 2 * s.guard) * bytes);
    for (size_t k = 0; k < s.host.size(); k += bytes)
      std::memcpy(&s.host[k], fill.data(), bytes);
    unsigned char *first = s.host.data() + (s.guard + s.layout->offset) * bytes;
    strided::copy(first, dense.bytes.data(), dense.shape, s.layout->strides, bytes,
                  strided::Direction::FromDense);
    // What loom is told: the layout, unless a planted bug changes it (within the buffer).
    ViewLayout passed = *s.layout;
    if (options.view_fault) {
      options.view_fault(p, passed);
      strided::Reach r;
      if (passed.strides.size() != dense.shape.size() ||
          !strided::reach(dense.shape, passed.strides, r) ||
          (!r.empty &&
           (passed.offset + r.lowest < 0 || passed.offset + r.highest >= passed.buffer)))
        throw std::logic_error("the planted layout of '" + param.name +
                               "' reaches outside its buffer");
    }
    a.strides = passed.strides;
    if (target == Target::GPU && s.layout->device) {
      s.device = runtime::DeviceBuffer(s.host.size());
      s.device.copy_from_host(s.host.data(), s.host.size());
      a.kind = Argument::Kind::DeviceArray;
      a.host = nullptr;
      a.device = s.device.ptr() + static_cast<uint64_t>(s.guard + passed.offset) * bytes;
    } else {
      a.host = s.host.data() + (s.guard + passed.offset) * bytes;
    }
  }
  loom::Kernel compiled = loom::detail::make_kernel(kernel);
  compiled.on(target);
  if (kernel.simt())
    compiled.shape(program.simt_grid, program.simt_block,
                   static_cast<size_t>(program.dynamic_shared_bytes));
  compiled.call(args);
  // The views' elements gathered back; the rest of their buffers must hold the sentinel still.
  for (size_t p = 0; p < kernel.params.size(); ++p) {
    StagedView &s = staged[p];
    if (!s.layout)
      continue;
    Buffer &dense = out[p].array;
    const std::vector<unsigned char> fill = sentinel(dense.type);
    const size_t bytes = fill.size();
    if (s.device.ptr())
      s.device.copy_to_host(s.host.data(), s.host.size());
    strided::copy(s.host.data() + (s.guard + s.layout->offset) * bytes, dense.bytes.data(),
                  dense.shape, s.layout->strides, bytes, strided::Direction::ToDense);
    if (!outside.empty())
      continue;
    // The elements the view covers: a mask of the buffer and its guards, marked through the same
    // layout. Element k of the buffer is element guard + k here (k < 0 or past the buffer: in a
    // guard).
    const int64_t total = s.layout->buffer + 2 * s.guard;
    std::vector<unsigned char> covered(static_cast<size_t>(total), 0),
        ones(static_cast<size_t>(dense.size()), 1);
    strided::copy(covered.data() + s.guard + s.layout->offset, ones.data(), dense.shape,
                  s.layout->strides, 1, strided::Direction::FromDense);
    for (int64_t k = 0; k < total; ++k) {
      const unsigned char *e = &s.host[static_cast<size_t>(k) * bytes];
      if (covered[k] || std::memcmp(e, fill.data(), bytes) == 0)
        continue;
      const int64_t element = k - s.guard;
      outside = kernel.params[p].name + ": element " + std::to_string(element) +
                " of its buffer, outside the view (" + layout_text(*s.layout) + ")" +
                (element < 0 || element >= s.layout->buffer ? " and past the buffer" : "") +
                ", was overwritten: " + hex(e, bytes) + " where the sentinel " +
                hex(fill.data(), bytes) + " was";
      break;
    }
  }
  return out;
}

std::string exception_kind(const std::exception &e) {
  int status = 0;
  char *name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
  std::string kind = std::string("exception ") + (status == 0 && name ? name : typeid(e).name());
  std::free(name);
  return kind;
}

// Whether a parallel loop reduces floats: the result then depends on the order the workers'
// partials combine in (rounding; the sign of a zero min or max), so lowered and compiled runs
// are compared within the reference's uncertainty bound rather than bit for bit.
bool reduces_floats_in_parallel(const ir::Kernel &kernel) {
  struct Find : ir::Visitor {
    const ir::Kernel &kernel;
    int depth = 0;
    bool found = false;
    explicit Find(const ir::Kernel &k) : kernel(k) {}
    void visit_node(const ir::ParallelFor *n) override {
      ++depth;
      ir::Visitor::visit_node(n);
      --depth;
    }
    void visit_node(const ir::Reduce *n) override {
      const ScalarType t = kernel.params[n->array].type;
      found = found || (depth > 0 && (is_float(t) || is_complex(t)));
      ir::Visitor::visit_node(n);
    }
  } find(kernel);
  find.visit(kernel.body);
  return find.found;
}

// Whether the kernel calls a math function that libm computes (exp, log, sin, ...): LLVM may fold
// such a call on constants by other means than the C library the interpreter calls. (Of a kernel
// with complex numbers as parts: abs of a complex number is hypot.)
bool calls_libm(const ir::Kernel &kernel) {
  struct Find : ir::Visitor {
    bool found = false;
    void visit_node(const ir::Call *n) override {
      found = found || !ir::math_info(n->fn).exact;
      ir::Visitor::visit_node(n);
    }
  } find;
  find.visit(kernel.body);
  return find.found;
}

} // namespace

namespace {

// The lines a run prints, sorted (their order across iterations is not defined): what the host
// prints (interpreter, CPU runtime) through support/PrintLine.h's sink, and with `from_stdout`
// what reaches file descriptor 1 meanwhile (the GPU's printf, written by the driver), through a
// temporary file in its place.
class PrintCapture {
public:
  explicit PrintCapture(bool from_stdout) {
    previous_ = support::set_print_sink(
        [this](std::string_view line) { text_.append(line.data(), line.size()); });
    if (from_stdout) {
      std::fflush(stdout);
      file_ = std::tmpfile();
      saved_fd_ = file_ ? dup(1) : -1;
      if (saved_fd_ >= 0)
        dup2(fileno(file_), 1);
    }
  }
  ~PrintCapture() { finish(); }
  std::vector<std::string> finish() {
    if (!done_) {
      done_ = true;
      support::set_print_sink(std::move(previous_));
      if (saved_fd_ >= 0) {
        std::fflush(stdout);
        dup2(saved_fd_, 1);
        close(saved_fd_);
        std::rewind(file_);
        char buffer[4096];
        for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file_)) > 0;)
          text_.append(buffer, n);
      }
      if (file_)
        std::fclose(file_);
    }
    return sorted_lines(text_);
  }
  static std::vector<std::string> sorted_lines(const std::string &text) {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
      lines.push_back(text.substr(start, end - start));
    if (start < text.size())
      lines.push_back(text.substr(start));
    std::sort(lines.begin(), lines.end());
    return lines;
  }

private:
  support::PrintSink previous_;
  std::string text_;
  std::FILE *file_ = nullptr;
  int saved_fd_ = -1;
  bool done_ = false;
};

bool prints(const Stmt &body) {
  return contains<Print>(body);
}

// The first difference of two sorted lists of lines, in words; empty when equal.
std::string lines_differ(const std::vector<std::string> &want,
                         const std::vector<std::string> &got) {
  if (want == got)
    return "";
  std::string text = "printed " + std::to_string(got.size()) + " lines, the reference " +
                     std::to_string(want.size());
  for (size_t k = 0; k < std::min(want.size(), got.size()); ++k)
    if (want[k] != got[k])
      return text + "; first difference (sorted): \"" + got[k] +
             "\" where the reference printed \"" + want[k] + "\"";
  return text;
}

} // namespace

bool gpu_usable(std::string *why) {
  return runtime::GpuContext::usable(why);
}

// The interpreter's options for `program`: its SIMT launch, when it is a SIMT kernel.
InterpreterOptions launch_options(const Program &program) {
  InterpreterOptions io;
  io.simt_grid = {program.simt_grid, 1, 1};
  io.simt_block = {program.simt_block, 1, 1};
  io.simt_dynamic_shared_bytes = program.dynamic_shared_bytes;
  return io;
}

Verdict check_program(const Program &program, const CheckOptions &options) {
  Verdict verdict;
  const ir::Kernel &kernel = program.kernel;
  // The kernel as lowering takes it on after its first passes: 16-bit float values as the f32s
  // that hold them, complex numbers as parts (the passes checked one by one take it so; the
  // interpreter expands a kernel as built itself).
  ir::Kernel expanded;
  std::string ref_printed;
  const bool printing = prints(kernel.body);
  std::vector<InterpreterArg> ref = program.args;
  InterpreterResult ref_result;
  try {
    verify(kernel);
    InterpreterOptions io = launch_options(program);
    io.track_uncertainty = true;
    io.step_limit = options.step_limit;
    io.print_line = [&](const std::string &line) { ref_printed += line; };
    io.throw_on_assert = false;
    ref_result = interpret(kernel, ref, io);
    expanded = lower_asserts(expand_complex(expand_half(kernel)));
  } catch (const std::exception &e) {
    verdict.invalid = e.what();
    return verdict;
  }
  verdict.invalid = invalid_views(program);
  if (!verdict.invalid.empty())
    return verdict;
  verdict.steps = ref_result.steps;

  auto wanted = [&](const std::string &check) {
    return options.only.empty() ||
           std::find(options.only.begin(), options.only.end(), check) != options.only.end();
  };
  const std::vector<std::string> ref_lines = PrintCapture::sorted_lines(ref_printed);
  // Runs one check: `run` returns the arrays after the run; exceptions are failures too, and so
  // is a write outside a view's elements, which a compiled run describes in `outside`. Where
  // assertions failed in the reference, the run must throw KernelAssertionError counting as many
  // (what a failed call leaves in the arrays is not compared).
  const uint64_t failures = ref_result.assert_failures;
  std::string outside;
  auto check = [&](const std::string &name, Compare how,
                   const std::function<std::vector<InterpreterArg>()> &run) {
    if (!wanted(name))
      return;
    outside.clear();
    if (failures > 0) {
      // A count hung on an uncertain value compares only where nothing may differ.
      if (how != Compare::Bits && !ref_result.inconclusive.empty())
        return;
      std::string diff;
      try {
        PrintCapture capture(printing && name == "gpu");
        run();
        diff = "no assertion failed";
      } catch (const KernelAssertionError &e) {
        if (e.failures() != failures)
          diff = std::to_string(e.failures()) + " assertions failed";
      } catch (const std::exception &e) {
        verdict.failures.push_back({name, exception_kind(e), e.what()});
        return;
      }
      if (!diff.empty())
        verdict.failures.push_back(
            {name, "mismatch",
             diff + " where " + std::to_string(failures) + " failed in the reference"});
      return;
    }
    try {
      PrintCapture capture(printing && name == "gpu");
      std::vector<InterpreterArg> got = run();
      std::vector<std::string> printed = capture.finish();
      std::string diff =
          !outside.empty() ? outside : compare(kernel.params, ref, ref_result, got, how, name);
      if (diff.empty())
        diff = lines_differ(ref_lines, printed);
      if (!diff.empty())
        verdict.failures.push_back({name, "mismatch", diff});
    } catch (const std::exception &e) {
      verdict.failures.push_back({name, exception_kind(e), e.what()});
    }
  };
  // `walk`: the simulated GPU launch has one block along z, whose threads walk it
  // (ir/CarryLoads.cpp).
  auto interpreted = [&](const LoweredKernel &lowered, int chunks, bool walk = false) {
    std::vector<InterpreterArg> args = program.args;
    InterpreterOptions io = launch_options(program);
    io.cpu_chunks = chunks;
    if (walk) {
      io.gpu_block = {4, 2, 1};
      io.gpu_grid = {2, 2, 1};
    }
    io.step_limit = options.step_limit;
    interpret(lowered, args, io);
    return args;
  };

  // Checks that would be bit for bit compare within the bound when float reductions reorder;
  // where the bound is unknown (a decision hung on an uncertain value) they are skipped.
  const bool reordered = reduces_floats_in_parallel(kernel);
  const bool comparable = !reordered || ref_result.inconclusive.empty();
  const Compare exact = reordered ? Compare::WithinUncertainty : Compare::Bits;
  // The CPU JIT calls the host's libm like the interpreter, but LLVM folds math calls on
  // constants in double precision, which can differ from libm's float functions by an ulp: it
  // too is compared within the bound, and exactly only where the bound is unknown and nothing
  // was reordered.
  const Compare values =
      ref_result.inconclusive.empty() ? Compare::WithinUncertainty : Compare::Values;

  if (options.passes) {
    check("pass:simplify", Compare::Bits, [&] {
      ir::Kernel simplified = kernel;
      simplified.body = simplify(kernel.body);
      verify(simplified);
      std::vector<InterpreterArg> args = program.args;
      InterpreterOptions io = launch_options(program);
      io.step_limit = options.step_limit;
      interpret(simplified, args, io);
      return args;
    });
    auto split = [&] {
      TaskProgram program = split_into_tasks(expanded);
      LoweredKernel l{kernel.name, task_loop_params(expanded.params, program.loops), Target::CPU,
                      std::move(program.tasks), std::move(program.loops)};
      l.locals = expanded.locals;
      l.assert_sites = expanded.assert_sites;
      for (const Task &t : l.tasks) {
        ir::Kernel task_kernel = expanded;
        task_kernel.params = l.params; // the task loops' variables are parameters
        task_kernel.body = t.body;
        verify(task_kernel);
      }
      return l;
    };
    // A SIMT kernel is one task, its body as written: no passes split it or map its loops.
    const bool simt = kernel.simt();
    if (!simt)
      check("pass:split_into_tasks", Compare::Bits, [&] { return interpreted(split(), 1); });
    if (comparable && !simt)
      check("pass:lower_reductions", exact, [&] {
        LoweredKernel l = split();
        for (Task &t : l.tasks)
          t = lower_reductions(t, l.params);
        return interpreted(l, 1);
      });
    std::optional<LoweredKernel> gpu_lowered; // the lowered:gpu check's, once it lowered
    for (Target target : {Target::CPU, Target::GPU}) {
      if (!comparable)
        break;
      std::string suffix = target == Target::CPU ? "cpu" : "gpu";
      if (!simt)
        check("pass:map_parallel:" + suffix, exact, [&] {
          LoweredKernel l = split();
          l.target = target;
          for (Task &t : l.tasks)
            t = map_parallel_loops(lower_reductions(t, l.params), l.params, target);
          verify(l);
          return interpreted(l, 3);
        });
      check("lowered:" + suffix, exact, [&] {
        // The CPU's with 128-bit vectors: loops of the matmul form in the register blocks loom
        // chooses itself (ir/AutoSchedule.cpp), 4 x 8 floats, small enough that the programs'
        // arrays (up to 8 x 8) hold whole blocks as well as edges.
        LoweredKernel l = target == Target::CPU
                              ? lower(kernel, target, nullptr,
                                      {.cpu_vector_bits = 128, .cpu_vector_registers = 16})
                              : lower(kernel, target);
        if (options.fault && target == Target::CPU)
          for (Task &t : l.tasks)
            t.body = options.fault(t.body);
        if (target == Target::GPU)
          gpu_lowered = l;
        return interpreted(l, 3);
      });
    }
    // The GPU's 3-D loops walked along z, each thread through the planes of its (y, x).
    bool three = false;
    if (gpu_lowered && !simt)
      for (const Task &t : gpu_lowered->tasks)
        three = three || (t.domain.size() == 3 && t.threads == 0);
    if (three)
      check("lowered:gpu:walk", exact, [&] { return interpreted(*gpu_lowered, 3, true); });
  }
  if (options.cpu_jit && comparable && (values != Compare::Values || !calls_libm(expanded)))
    check("jit:cpu", values, [&] {
      return run_compiled(program, kernel, program.args, program.views, Target::CPU, options,
                          outside);
    });
  if (options.gpu && wanted("gpu")) {
    if (!ref_result.inconclusive.empty()) {
      verdict.gpu_inconclusive = ref_result.inconclusive;
    } else {
      verdict.gpu_compared = true;
      check("gpu", Compare::WithinUncertainty, [&] {
        return run_compiled(program, kernel, program.args, program.views, Target::GPU, options,
                            outside);
      });
    }
  }
  return verdict;
}

} // namespace loom::difftest
