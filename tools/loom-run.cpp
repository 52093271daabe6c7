// loom-run: runs a kernel of a text-DSL file on loom's IR interpreter with small inputs given on
// the command line and prints the arrays afterwards. No GPU, no LLVM code generation: the
// interpreter is the reference the compiled code is tested against (ir/Interpreter.h).
//   loom-run saxpy.loom a=2 'x=[1, 2, 3]' 'y=[10, 20, 30]'
//   loom-run matmul.loom 'A=[[1, 2], [3, 4]]' 'B=[[5, 6], [7, 8]]' 'C=zeros(2, 2)' --lower=gpu
//   loom-run block_sum.loom 'x=range(100)' 'total=[0]' --grid=2 --block=64     (a SIMT kernel)
//   loom-run block_sum.loom ... --grid=2 --block=64 --shared=256    (with shared.array(0, f32))
#include "frontend/text/Compile.h"
#include "ir/Evaluate.h"
#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "loom/Version.hpp"
#include "support/Error.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using loom::ir::ScalarType;

const char *usage_text = R"(usage: loom-run FILE [--kernel=NAME] [--lower=cpu|gpu]
                [--grid=X[,Y[,Z]] --block=X[,Y[,Z]] [--shared=BYTES]] NAME=VALUE...

Runs a @kernel of a loom text-DSL file on loom's IR interpreter and prints every array argument
after the run. Each parameter gets one NAME=VALUE:
  a scalar        a=2.5   n=10   flag=true
  an array        x=[1, 2, 3]   A=[[1, 2], [3, 4]]   (nested lists give the shape)
  zeros           C=zeros(2, 3)   (an array of that shape, all zero)
  a ramp          x=range(8)      (0, 1, ..., 7)
options:
  --kernel=NAME       the kernel to run (required when the file defines several)
  --lower=cpu|gpu     run the IR lowered for that target instead of the front end's (the GPU's
                      launch is simulated: 2x2 blocks of 4x2x2 threads); the results are the same
  --grid=X[,Y[,Z]]    a SIMT kernel's (@kernel(simt=True)) launch: the blocks along x, y, z, and
  --block=X[,Y[,Z]]   the threads of each block (at most 1024); both are required for a SIMT
                      kernel and apply to SIMT kernels only; missing axes are 1
  --shared=BYTES      a SIMT kernel's dynamic shared memory per block: the size of its
                      shared.array(0, type), BYTES / element size elements
  --version           loom's version
  -h, --help          this text
)";

struct UsageError {
  std::string message;
};

// A value as written: a number, or a nested list of them.
struct Literal {
  bool is_list = false;
  std::string number;
  std::vector<Literal> items;
};

class LiteralParser {
public:
  explicit LiteralParser(const std::string &text) : s_(text) {}

  Literal parse() {
    Literal l = value();
    skip_space();
    if (at_ < s_.size())
      fail("unexpected '" + s_.substr(at_, 1) + "'");
    return l;
  }

private:
  Literal value() {
    skip_space();
    Literal l;
    if (at_ < s_.size() && s_[at_] == '[') {
      ++at_;
      l.is_list = true;
      skip_space();
      if (at_ < s_.size() && s_[at_] == ']') {
        ++at_;
        return l;
      }
      while (true) {
        l.items.push_back(value());
        skip_space();
        if (at_ < s_.size() && s_[at_] == ',') {
          ++at_;
          continue;
        }
        if (at_ < s_.size() && s_[at_] == ']') {
          ++at_;
          return l;
        }
        fail("expected ',' or ']'");
      }
    }
    size_t start = at_;
    while (at_ < s_.size() && s_[at_] != ',' && s_[at_] != ']' && s_[at_] != '[' &&
           !std::isspace(static_cast<unsigned char>(s_[at_])))
      ++at_;
    if (start == at_)
      fail("expected a number or '['");
    l.number = s_.substr(start, at_ - start);
    return l;
  }
  void skip_space() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_])))
      ++at_;
  }
  [[noreturn]] void fail(const std::string &what) {
    throw UsageError{"'" + s_ + "': " + what + " at character " + std::to_string(at_ + 1)};
  }
  const std::string &s_;
  size_t at_ = 0;
};

std::string type_text(ScalarType t) {
  return loom::ir::type_name(t);
}

// `text` as a value of type t (what the parameter declares).
loom::ir::ScalarValue scalar_of(const std::string &text, ScalarType t, const std::string &what) {
  if (t == ScalarType::Bool) {
    if (text == "true" || text == "True" || text == "1")
      return loom::ir::int_value(t, 1);
    if (text == "false" || text == "False" || text == "0")
      return loom::ir::int_value(t, 0);
    throw UsageError{what + ": '" + text + "' is not a bool (true or false)"};
  }
  if (loom::ir::is_int(t)) {
    // Read as the type's own signedness, then checked against its range.
    bool fits = false;
    int64_t held = 0;
    const char *first = text.data(), *last = text.data() + text.size();
    if (loom::ir::is_unsigned(t)) {
      uint64_t v = 0;
      auto [end, error] = std::from_chars(first, last, v);
      if (error == std::errc() && end == last) {
        held = loom::ir::wrap_int(t, v);
        fits = static_cast<uint64_t>(held) == v;
      } else if (error != std::errc::result_out_of_range) {
        throw UsageError{what + ": '" + text + "' is not an unsigned integer (" + type_text(t) +
                         ")"};
      }
    } else {
      int64_t v = 0;
      auto [end, error] = std::from_chars(first, last, v);
      if (error == std::errc() && end == last) {
        held = loom::ir::wrap_int(t, static_cast<uint64_t>(v));
        fits = held == v;
      } else if (error != std::errc::result_out_of_range) {
        throw UsageError{what + ": '" + text + "' is not an integer (" + type_text(t) + ")"};
      }
    }
    if (!fits)
      throw UsageError{what + ": " + text + " is outside the range of " + type_text(t)};
    loom::ir::ScalarValue value;
    value.i = held;
    return value;
  }
  double v = 0;
  if (text == "inf" || text == "-inf" || text == "nan") {
    v = text == "nan" ? NAN : (text[0] == '-' ? -INFINITY : INFINITY);
  } else {
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc() || end != text.data() + text.size())
      throw UsageError{what + ": '" + text + "' is not a number (" + type_text(t) + ")"};
  }
  return loom::ir::float_value(loom::ir::value_type(t), v);
}

// The extents of a nested list, from its first elements (flatten checks the rest agree).
std::vector<int64_t> shape_of(const Literal &l) {
  std::vector<int64_t> shape;
  for (const Literal *x = &l; x && x->is_list; x = x->items.empty() ? nullptr : &x->items[0])
    shape.push_back(static_cast<int64_t>(x->items.size()));
  return shape;
}

void flatten(const Literal &l, size_t depth, const std::vector<int64_t> &shape,
             std::vector<std::string> &out, const std::string &what) {
  const size_t rank = shape.size();
  if (l.is_list != (depth < rank))
    throw UsageError{
        what + ": " +
        (l.is_list ? "a list where a number belongs"
                   : "a number where a list of rank " + std::to_string(rank - depth) + " belongs")};
  if (!l.is_list) {
    out.push_back(l.number);
    return;
  }
  if (static_cast<int64_t>(l.items.size()) != shape[depth])
    throw UsageError{what + ": the lists at depth " + std::to_string(depth + 1) +
                     " have different lengths (" + std::to_string(shape[depth]) + " and " +
                     std::to_string(l.items.size()) + ")"};
  for (const Literal &item : l.items)
    flatten(item, depth + 1, shape, out, what);
}

// zeros(2, 3) or range(8): the function's name and its integer arguments, or false.
bool call_of(const std::string &text, std::string &name, std::vector<int64_t> &args,
             const std::string &what) {
  size_t open = text.find('(');
  if (open == std::string::npos || text.back() != ')')
    return false;
  name = text.substr(0, open);
  if (name != "zeros" && name != "range")
    throw UsageError{what + ": unknown '" + name + "(...)'; zeros(...) and range(n) make arrays"};
  std::stringstream in(text.substr(open + 1, text.size() - open - 2));
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t a = item.find_first_not_of(' '), b = item.find_last_not_of(' ');
    item = a == std::string::npos ? "" : item.substr(a, b - a + 1);
    int64_t v = -1;
    auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (error != std::errc() || end != item.data() + item.size() || v < 0)
      throw UsageError{what + ": '" + item + "' is not an extent (a non-negative integer)"};
    args.push_back(v);
  }
  return true;
}

loom::ir::InterpreterArg array_of(const std::string &text, const loom::ir::Param &p,
                                  const std::string &what) {
  std::string call;
  std::vector<int64_t> extents;
  if (call_of(text, call, extents, what)) {
    if (call == "range" && (p.rank != 1 || extents.size() != 1))
      throw UsageError{what + ": range(n) makes a 1-D array; '" + p.name + "' has rank " +
                       std::to_string(p.rank)};
    if (static_cast<int>(extents.size()) != p.rank)
      throw UsageError{what + ": zeros(...) with " + std::to_string(extents.size()) +
                       " extents for an array of rank " + std::to_string(p.rank)};
    loom::ir::Buffer b(p.type, extents);
    if (call == "range")
      for (int64_t k = 0; k < b.size(); ++k)
        b.set(k, loom::ir::is_float(p.type)
                     ? loom::ir::float_value(loom::ir::value_type(p.type), static_cast<double>(k))
                     : loom::ir::int_value(p.type, k));
    return loom::ir::InterpreterArg::of_array(std::move(b));
  }
  Literal l = LiteralParser(text).parse();
  if (!l.is_list)
    throw UsageError{what + ": '" + p.name + "' is an array (" + type_text(p.type) + ", rank " +
                     std::to_string(p.rank) + "): write [..], zeros(..) or range(n)"};
  std::vector<int64_t> shape = shape_of(l);
  if (shape.back() == 0 && static_cast<int>(shape.size()) < p.rank)
    shape.resize(p.rank, 0); // [] for a 2-D array: no rows
  if (static_cast<int>(shape.size()) != p.rank)
    throw UsageError{what + ": a list of rank " + std::to_string(shape.size()) + " for '" + p.name +
                     "', an array of rank " + std::to_string(p.rank)};
  std::vector<std::string> numbers;
  flatten(l, 0, shape, numbers, what);
  loom::ir::Buffer b(p.type, shape);
  for (size_t k = 0; k < numbers.size(); ++k)
    b.set(static_cast<int64_t>(k), scalar_of(numbers[k], p.type, what));
  return loom::ir::InterpreterArg::of_array(std::move(b));
}

std::string value_text(ScalarType t, loom::ir::ScalarValue v) {
  if (t == ScalarType::Bool)
    return v.i ? "true" : "false";
  if (loom::ir::is_unsigned(t))
    return std::to_string(static_cast<uint64_t>(v.i));
  if (loom::ir::is_int(t))
    return std::to_string(v.i);
  char buffer[64];
  // The shortest text that reads back as the same value of the element's type.
  auto result = t == ScalarType::F64
                    ? std::to_chars(buffer, buffer + sizeof buffer, v.f)
                    : std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(v.f));
  return std::string(buffer, result.ptr);
}

void print_array(const loom::ir::Param &p, const loom::ir::Buffer &b) {
  std::string out = p.name + ": " + type_text(p.type) + "[";
  for (size_t d = 0; d < b.shape.size(); ++d)
    out += (d ? ", " : "") + std::to_string(b.shape[d]);
  out += "] = ";
  // Row-major, one bracket per dimension.
  std::vector<int64_t> index(b.shape.size(), 0);
  const int64_t n = b.size();
  if (n == 0) {
    out += "[]";
  }
  for (int64_t k = 0; k < n; ++k) {
    size_t opening = 0;
    for (size_t d = b.shape.size(); d-- > 0 && index[d] == 0;)
      ++opening;
    out += std::string(opening, '[');
    out += value_text(p.type, b.get(k));
    size_t closing = 0;
    for (size_t d = b.shape.size(); d-- > 0;) {
      if (++index[d] < b.shape[d])
        break;
      index[d] = 0;
      ++closing;
    }
    out += std::string(closing, ']');
    if (k + 1 < n)
      out += ", ";
  }
  std::puts(out.c_str());
}

// --grid=X[,Y[,Z]] or --block=X[,Y[,Z]]: one to three positive extents, the rest 1.
std::array<unsigned, 3> launch_extents(const std::string &option, const std::string &text) {
  std::array<unsigned, 3> extents = {1, 1, 1};
  size_t at = 0;
  for (int axis = 0;; ++axis) {
    size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    unsigned v = 0;
    auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (axis == 3 || error != std::errc() || end != item.data() + item.size() || v == 0)
      throw UsageError{option + "=" + text +
                       ": expected X[,Y[,Z]], one to three positive integers"};
    extents[axis] = v;
    if (comma == std::string::npos)
      return extents;
    at = comma + 1;
  }
}

int run(int argc, char **argv) {
  std::string file, kernel_name, lower;
  std::map<std::string, std::string> values;
  std::optional<std::array<unsigned, 3>> grid, block;
  std::optional<int64_t> shared_bytes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version") {
      std::printf("loom-run (loom) %s\n", loom::version());
      return 0;
    }
    if (a == "-h" || a == "--help") {
      std::fputs(usage_text, stdout);
      return 0;
    }
    if (a.rfind("--kernel=", 0) == 0) {
      kernel_name = a.substr(9);
    } else if (a.rfind("--lower=", 0) == 0) {
      lower = a.substr(8);
      if (lower != "cpu" && lower != "gpu")
        throw UsageError{"--lower=" + lower + ": expected cpu or gpu"};
    } else if (a.rfind("--grid=", 0) == 0) {
      grid = launch_extents("--grid", a.substr(7));
    } else if (a.rfind("--block=", 0) == 0) {
      block = launch_extents("--block", a.substr(8));
    } else if (a.rfind("--shared=", 0) == 0) {
      std::string text = a.substr(9);
      int64_t bytes = -1;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bytes);
      if (error != std::errc() || end != text.data() + text.size() || bytes < 0)
        throw UsageError{a + ": expected a number of bytes"};
      shared_bytes = bytes;
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError{"unknown option " + a};
    } else if (size_t eq = a.find('='); eq != std::string::npos && eq > 0) {
      if (!values.emplace(a.substr(0, eq), a.substr(eq + 1)).second)
        throw UsageError{"'" + a.substr(0, eq) + "' is given twice"};
    } else if (file.empty()) {
      file = a;
    } else {
      throw UsageError{"more than one file (" + file + ", " + a + "); arguments are NAME=VALUE"};
    }
  }
  if (file.empty())
    throw UsageError{"no input file"};
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw loom::Error(file + ": cannot open the file");
  std::stringstream source;
  source << in.rdbuf();
  std::vector<loom::ir::Kernel> kernels = loom::text::parse_kernels(source.str(), file);
  std::string all;
  const loom::ir::Kernel *chosen = nullptr;
  for (const loom::ir::Kernel &k : kernels) {
    all += (all.empty() ? "" : ", ") + k.name;
    if (k.name == kernel_name || (kernel_name.empty() && kernels.size() == 1))
      chosen = &k;
  }
  if (!chosen)
    throw UsageError{kernels.empty() ? file + " has no @kernel function"
                     : kernel_name.empty()
                         ? file + " defines " + std::to_string(kernels.size()) + " kernels (" +
                               all + "); choose one with --kernel=NAME"
                         : file + ": no kernel named '" + kernel_name + "' (kernels: " + all + ")"};
  const loom::ir::Kernel &k = *chosen;
  loom::ir::InterpreterOptions options;
  if (k.simt()) {
    if (!grid || !block)
      throw UsageError{"kernel '" + k.name +
                       "' is a SIMT kernel: give its launch with --grid=X[,Y[,Z]] (blocks) and "
                       "--block=X[,Y[,Z]] (threads per block)"};
    options.simt_grid = *grid;
    options.simt_block = *block;
    options.simt_dynamic_shared_bytes = shared_bytes.value_or(0);
  } else if (grid || block || shared_bytes) {
    throw UsageError{std::string(grid    ? "--grid"
                                 : block ? "--block"
                                         : "--shared") +
                     " applies to SIMT kernels (@kernel(simt=True)) only; kernel '" + k.name +
                     "' is not one"};
  }

  std::vector<loom::ir::InterpreterArg> args;
  std::string expected;
  for (const loom::ir::Param &p : k.params)
    expected += (expected.empty() ? "" : " ") + p.name + "=" +
                (p.kind == loom::ir::ParamKind::Array ? "[..]" : "..");
  for (const loom::ir::Param &p : k.params) {
    auto it = values.find(p.name);
    if (it == values.end())
      throw UsageError{
          "kernel '" + k.name + "' needs a value for '" + p.name + "' (" + type_text(p.type) +
          (p.kind == loom::ir::ParamKind::Array ? " array of rank " + std::to_string(p.rank)
                                                : std::string(" scalar")) +
          "); it takes " + expected};
    std::string what = "argument '" + p.name + "'";
    args.push_back(p.kind == loom::ir::ParamKind::Array
                       ? array_of(it->second, p, what)
                       : loom::ir::InterpreterArg::of_scalar(scalar_of(it->second, p.type, what)));
    values.erase(it);
  }
  if (!values.empty())
    throw UsageError{"kernel '" + k.name + "' has no parameter '" + values.begin()->first +
                     "'; it takes " + expected};
  loom::ir::ArgumentValues shapes; // text-DSL shape symbols, checked as a call checks them
  shapes.extents.resize(args.size());
  for (size_t p = 0; p < args.size(); ++p)
    shapes.extents[p] = args[p].array.shape;
  loom::ir::check_shape_symbols(k, shapes);

  if (lower.empty())
    loom::ir::interpret(k, args, options);
  else
    loom::ir::interpret(
        loom::ir::lower(k, lower == "gpu" ? loom::ir::Target::GPU : loom::ir::Target::CPU), args,
        options);
  for (size_t p = 0; p < k.params.size(); ++p)
    if (k.params[p].kind == loom::ir::ParamKind::Array)
      print_array(k.params[p], args[p].array);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError &e) {
    std::fprintf(stderr, "loom-run: %s\n(loom-run --help says how to write arguments)\n",
                 e.message.c_str());
    return 2;
  } catch (const loom::ArgumentError &e) {
    std::fprintf(stderr, "loom-run: %s\n", e.what());
    return 2;
  } catch (const loom::SourceError &e) {
    std::fputs(e.what(), stderr);
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "loom-run: error: %s\n", e.what());
    return 1;
  }
}
