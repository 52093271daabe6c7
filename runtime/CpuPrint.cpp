// print(...) on the CPU: generated code passes the line's printf format (ir/PrintFormat.h) and
// its 8-byte argument slots; this formats the line and writes it whole (support/PrintLine.h).
#include "support/Abi.h"
#include "support/PrintLine.h"

#include <cstdio>
#include <cstring>
#include <string>

extern "C" void loom_print(const char *format, const uint64_t *slots) {
  std::string line;
  char piece[96];
  for (const char *c = format; *c;) {
    if (*c != '%') {
      line += *c++;
      continue;
    }
    if (c[1] == '%') {
      line += '%';
      c += 2;
      continue;
    }
    // One conversion: from '%' through its conversion letter (s, d, u or g).
    const char *end = c + 1;
    while (*end && !std::strchr("sdug", *end))
      ++end;
    if (!*end)
      break; // not a format loom makes
    std::string spec(c, end + 1);
    const uint64_t slot = *slots++;
    switch (*end) {
    case 's':
      std::snprintf(piece, sizeof piece, spec.c_str(), reinterpret_cast<const char *>(slot));
      break;
    case 'd':
      std::snprintf(piece, sizeof piece, spec.c_str(), static_cast<long long>(slot));
      break;
    case 'u':
      std::snprintf(piece, sizeof piece, spec.c_str(), static_cast<unsigned long long>(slot));
      break;
    default: {
      double v;
      std::memcpy(&v, &slot, sizeof v);
      std::snprintf(piece, sizeof piece, spec.c_str(), v);
    }
    }
    line += piece;
    c = end + 1;
  }
  loom::support::print_line(line);
}
