#include "emit/package.h"

#include <fmt/format.h>

namespace strata {

void check_package_support(const Arch& arch, const Op& op) {
  switch (arch.target) {
    case Target::x86_64:
    case Target::aarch64: check_cpu_support(arch, op); return;
    case Target::cuda: break;
  }
  throw Error({arch.file, 0, 0}, fmt::format("no package backend emits target {} yet (architecture '{}')",
                                             to_string(arch.target), arch.name));
}

std::map<std::string, std::string> render_package(const PackageInputs& in, TemplateRenderer& renderer) {
  check_package_support(*in.arch, *in.op);
  return render_cpu_package(in, renderer);
}

}  // namespace strata
