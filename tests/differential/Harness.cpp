#include "differential/Harness.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/MathFunctions.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Uncertainty.h"
#include "ir/Verifier.h"
#include "loom/Kernel.hpp"
#include "runtime/GpuContext.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <functional>
#include <typeinfo>

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

// Runs `kernel` through loom::Kernel on `target` with copies of the arguments.
std::vector<InterpreterArg> run_compiled(const ir::Kernel &kernel,
                                         const std::vector<InterpreterArg> &inputs, Target target) {
  std::vector<InterpreterArg> out = inputs;
  std::vector<Argument> args(kernel.params.size());
  for (size_t p = 0; p < kernel.params.size(); ++p) {
    const Param &param = kernel.params[p];
    Argument &a = args[p];
    a.type = param.type;
    if (param.kind == ParamKind::Scalar) {
      a.kind = Argument::Kind::Scalar;
      a.scalar = out[p].scalar;
    } else {
      a.kind = Argument::Kind::HostArray;
      a.host = out[p].array.data();
      a.shape = out[p].array.shape;
    }
  }
  loom::Kernel compiled = loom::detail::make_kernel(kernel);
  compiled.on(target);
  compiled.call(args);
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

bool gpu_usable(std::string *why) {
  return runtime::GpuContext::usable(why);
}

Verdict check_program(const Program &program, const CheckOptions &options) {
  Verdict verdict;
  const ir::Kernel &kernel = program.kernel;
  // The kernel as lowering takes it on after its first pass: complex numbers as parts (the passes
  // checked one by one take it so; the interpreter expands a kernel as built itself).
  ir::Kernel expanded;
  std::vector<InterpreterArg> ref = program.args;
  InterpreterResult ref_result;
  try {
    verify(kernel);
    InterpreterOptions io;
    io.track_uncertainty = true;
    io.step_limit = options.step_limit;
    ref_result = interpret(kernel, ref, io);
    expanded = expand_complex(kernel);
  } catch (const std::exception &e) {
    verdict.invalid = e.what();
    return verdict;
  }
  verdict.steps = ref_result.steps;

  auto wanted = [&](const std::string &check) {
    return options.only.empty() ||
           std::find(options.only.begin(), options.only.end(), check) != options.only.end();
  };
  // Runs one check: `run` returns the arrays after the run; exceptions are failures too.
  auto check = [&](const std::string &name, Compare how,
                   const std::function<std::vector<InterpreterArg>()> &run) {
    if (!wanted(name))
      return;
    try {
      std::vector<InterpreterArg> got = run();
      std::string diff = compare(kernel.params, ref, ref_result, got, how, name);
      if (!diff.empty())
        verdict.failures.push_back({name, "mismatch", diff});
    } catch (const std::exception &e) {
      verdict.failures.push_back({name, exception_kind(e), e.what()});
    }
  };
  auto interpreted = [&](const LoweredKernel &lowered, int chunks) {
    std::vector<InterpreterArg> args = program.args;
    InterpreterOptions io;
    io.cpu_chunks = chunks;
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
      InterpreterOptions io;
      io.step_limit = options.step_limit;
      interpret(simplified, args, io);
      return args;
    });
    auto split = [&] {
      TaskProgram program = split_into_tasks(expanded);
      LoweredKernel l{kernel.name, task_loop_params(expanded.params, program.loops), Target::CPU,
                      std::move(program.tasks), std::move(program.loops)};
      for (const Task &t : l.tasks) {
        ir::Kernel task_kernel = expanded;
        task_kernel.params = l.params; // the task loops' variables are parameters
        task_kernel.body = t.body;
        verify(task_kernel);
      }
      return l;
    };
    check("pass:split_into_tasks", Compare::Bits, [&] { return interpreted(split(), 1); });
    if (comparable)
      check("pass:lower_reductions", exact, [&] {
        LoweredKernel l = split();
        for (Task &t : l.tasks)
          t = lower_reductions(t, l.params);
        return interpreted(l, 1);
      });
    for (Target target : {Target::CPU, Target::GPU}) {
      if (!comparable)
        break;
      std::string suffix = target == Target::CPU ? "cpu" : "gpu";
      check("pass:map_parallel:" + suffix, exact, [&] {
        LoweredKernel l = split();
        l.target = target;
        for (Task &t : l.tasks)
          t = map_parallel_loops(lower_reductions(t, l.params), target);
        verify(l);
        return interpreted(l, 3);
      });
      check("lowered:" + suffix, exact, [&] {
        LoweredKernel l = lower(kernel, target);
        if (options.fault && target == Target::CPU)
          for (Task &t : l.tasks)
            t.body = options.fault(t.body);
        return interpreted(l, 3);
      });
    }
  }
  if (options.cpu_jit && comparable && (values != Compare::Values || !calls_libm(expanded)))
    check("jit:cpu", values, [&] { return run_compiled(kernel, program.args, Target::CPU); });
  if (options.gpu && wanted("gpu")) {
    if (!ref_result.inconclusive.empty()) {
      verdict.gpu_inconclusive = ref_result.inconclusive;
    } else {
      verdict.gpu_compared = true;
      check("gpu", Compare::WithinUncertainty,
            [&] { return run_compiled(kernel, program.args, Target::GPU); });
    }
  }
  return verdict;
}

} // namespace loom::difftest
