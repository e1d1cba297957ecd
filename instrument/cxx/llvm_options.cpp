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
