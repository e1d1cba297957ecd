// Set one of LLVM's registered boolean command-line options by name.
//
// Triton sets `nvptx-short-ptr` and `nvptx-mad-wide-opt` before each
// compile (python/src/llvm.cc), and kperf must compile Triton's LLVM IR the
// same way to get Triton's kernel. The LLVM C API can only parse a whole
// command line, once per process (a second occurrence of an option exits
// the process), so this sets the option's value the way Triton does.
#include "llvm/Support/CommandLine.h"

extern "C" int kperf_set_llvm_bool_option(const char *name, int value) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it == options.end())
    return 0;
  // Only boolean options take an optional value; anything else is not ours
  // to cast.
  if (it->second->getValueExpectedFlag() != llvm::cl::ValueOptional)
    return -1;
  static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(value != 0);
  return 1;
}

// Set any of LLVM's registered command-line options to `value`, as if
// given once on the command line (`-name=value`): what the boolean setter
// cannot reach (enum options such as `use-unknown-locations`). Returns 0 if
// no such option is registered, -1 if it refused the value, 1 when set.
extern "C" int kperf_set_llvm_option(const char *name, const char *value) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it == options.end())
    return 0;
  llvm::cl::Option *option = it->second;
  // Back to its default and no occurrence, so that setting it again is
  // not a second occurrence (which LLVM refuses).
  option->reset();
  return option->addOccurrence(0, name, value) ? -1 : 1;
}
