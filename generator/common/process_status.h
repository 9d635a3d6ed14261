// Reading the status std::system() and pclose() return, for commands the generator runs (compilers, builds,
// self-tests), so that every failure says the same thing the same way.
#pragma once

#include <string>

namespace strata {

// "exit status 2", "killed by signal 9", "exit status 127: command not found", or "could not be started" (-1).
std::string status_text(int status);

// The command ran and exited with status 0.
bool succeeded(int status);

}  // namespace strata
