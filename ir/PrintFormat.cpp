#include "ir/PrintFormat.h"

#include <cmath>
#include <cstdio>

namespace loom::ir {

namespace {

const char *float_spec(ScalarType t) {
  return t == ScalarType::F64 || t == ScalarType::C128 ? "%.17g" : "%.9g";
}

std::string spec(ScalarType t, bool complex) {
  if (complex)
    return std::string("(") + float_spec(t) + "%+" + (float_spec(t) + 1) + "j)";
  if (t == ScalarType::Bool)
    return "%s";
  if (is_float(t))
    return float_spec(t);
  return is_unsigned(t) ? "%llu" : "%lld";
}

std::string number(const char *format, double v) {
  if (std::isnan(v))
    v = std::nan(""); // canonical: prints "nan" whatever the sign
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

} // namespace

std::string print_format(const Print &print) {
  std::string format;
  for (size_t k = 0; k < print.items.size(); ++k) {
    const PrintItem &item = print.items[k];
    if (k)
      format += ' ';
    if (!item.value.defined()) {
      for (char c : item.text)
        format += c == '%' ? std::string("%%") : std::string(1, c);
      continue;
    }
    ScalarType t = item.value.type();
    format += spec(is_complex(t) ? part_type(t) : t, is_complex(t) || item.imag.defined());
  }
  return format + "\n";
}

std::string print_text(ScalarType t, ScalarValue v) {
  if (t == ScalarType::Bool)
    return v.i ? "True" : "False";
  if (is_complex(t)) {
    std::string re = number(float_spec(t), v.f), im = number(float_spec(t), v.im);
    // %+ gives the imaginary part its sign; "nan" and "inf" get one too.
    if (im[0] != '-')
      im = "+" + im;
    return "(" + re + im + "j)";
  }
  if (is_float(t))
    return number(float_spec(t), v.f);
  char buffer[32];
  if (is_unsigned(t))
    std::snprintf(buffer, sizeof buffer, "%llu", static_cast<unsigned long long>(v.i));
  else
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v.i));
  return buffer;
}

} // namespace loom::ir
