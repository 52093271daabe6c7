#include "loom/Module.hpp"

#include "frontend/text/Compile.h"
#include "support/Error.h"

namespace loom {

Module::Module(std::vector<ir::Kernel> kernels) {
  for (ir::Kernel &k : kernels) {
    std::string name = k.name;
    kernels_.emplace_back(std::move(name), detail::make_kernel(std::move(k)));
  }
}

bool Module::contains(const std::string &name) const {
  for (const auto &[n, k] : kernels_)
    if (n == name)
      return true;
  return false;
}

const Kernel &Module::operator[](const std::string &name) const {
  for (const auto &[n, k] : kernels_)
    if (n == name)
      return k;
  std::string list;
  for (const auto &[n, k] : kernels_)
    list += (list.empty() ? "" : ", ") + n;
  throw ArgumentError("the module has no kernel '" + name + "'; " +
                      (list.empty() ? std::string("it has none (mark a function with @kernel)")
                                    : "its kernels are: " + list));
}

Kernel &Module::operator[](const std::string &name) {
  return const_cast<Kernel &>(static_cast<const Module &>(*this)[name]);
}

std::vector<std::string> Module::names() const {
  std::vector<std::string> out;
  for (const auto &[n, k] : kernels_)
    out.push_back(n);
  return out;
}

Module compile(const std::string &source, const std::string &filename) {
  return Module(text::parse_kernels(source, filename));
}

} // namespace loom
