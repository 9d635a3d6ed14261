// strata check FILE...: loads and validates spec files (architecture descriptors and operator specs),
// telling them apart by their `schema` key.
#include <fmt/format.h>

#include "cli/commands.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "spec/yaml_reader.h"

namespace strata::cli {

Command add_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Validate architecture descriptors and operator specs");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "spec files (archs/*.yaml, ops/*.yaml)")->required();
  return {cmd, [files]() {
            for (const auto& file : *files) {
              YAML::Node root = load_yaml_file(file);
              MapReader r(root, file, "spec");
              const std::string schema = r.has("schema") ? r.string("schema") : "";
              if (schema == "strata-op/1") {
                Op op = load_op(file);
                fmt::print("{}: ok (operator '{}', {})\n", file, op.name, to_string(op.kind));
              } else {
                // Anything else is read as an architecture descriptor, whose loader reports a wrong or missing
                // schema.
                Arch arch = load_arch(file);
                fmt::print("{}: ok (architecture '{}', target {}, {} levels)\n", file, arch.name,
                           to_string(arch.target), arch.levels.size());
              }
            }
            return 0;
          }};
}

}  // namespace strata::cli
