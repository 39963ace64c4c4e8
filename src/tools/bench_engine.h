#pragma once
// `ucudnn bench`'s work, apart from its options: benchmarking a network needs cuDNN and the CUDA
// runtime, which the `ucudnn` command itself does not link (so that `run`, `plan`, `db` and
// `--version` start where the only cuDNN is a framework's). The engine lives in the module
// libucudnn_bench.so, loaded when `bench` runs; a program that links the engine's object (the
// test suite) uses it directly.

#include <iosfwd>
#include <string>

#include "core/batch_policy.h"
#include "core/expected.h"
#include "core/search_mode.h"
#include "tools/networks.h"

namespace ucudnn::tools {

/// What `bench` was asked, its options checked already.
struct BenchRequest {
  Network network;
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  SearchMode search = SearchMode::kFast;
  std::string database;      ///< the benchmark database's path
  std::string measurements;  ///< also write the rows here (a new file); empty: do not
};

/// The module's file name, as the build and the install put it.
inline constexpr const char* kBenchModuleName = "libucudnn_bench.so";

/// The engine's entry point, under a C name that dlsym finds: benchmarks, prints the summary on
/// `out`, errors as one line on `err`, and returns the exit status.
using BenchEngine = int (*)(const BenchRequest* request, std::ostream* out, std::ostream* err);

/// The engine: the one linked into this program, else the module's, loaded from beside
/// `executable` (this command's file: <its folder>/../lib/ as installed, <its folder>/ as built).
/// An error naming the module and why it cannot be loaded (cuDNN or the CUDA runtime missing).
Expected<BenchEngine> bench_engine(const std::string& executable);

}  // namespace ucudnn::tools

/// The engine's definition (tools/bench_engine.cpp), exported from the module.
extern "C" int ucudnn_tools_bench_engine(const ucudnn::tools::BenchRequest* request, std::ostream* out,
                                         std::ostream* err);
