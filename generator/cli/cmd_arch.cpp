// strata arch detect [-o FILE]: writes a descriptor for the host (CPUID, sysfs and short measurements).
#include <fmt/format.h>

#include "cli/commands.h"
#include "common/atomic_file.h"
#include "detect/host_detect.h"
#include "spec/arch_writer.h"

namespace strata::cli {

Command add_arch_command(CLI::App& app) {
  auto* arch = app.add_subcommand("arch", "Architecture descriptors");
  arch->require_subcommand(1);
  auto* detect = arch->add_subcommand("detect", "Describe this machine as an architecture descriptor");
  auto output = std::make_shared<std::string>();
  detect->add_option("-o,--output", *output, "write the descriptor to FILE instead of standard output");
  return {arch, [output]() {
            const std::string yaml = write_arch_yaml(detect_host_arch());
            if (output->empty())
              fmt::print("{}", yaml);
            else
              write_file_atomically(*output, yaml);
            return 0;
          }};
}

}  // namespace strata::cli
