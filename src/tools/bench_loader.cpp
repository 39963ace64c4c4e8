// Finds `bench`'s engine (tools/bench_engine.h): linked in, or loaded from the module.
#include <dlfcn.h>

#include "tools/bench_engine.h"
#include "tools/beside_command.h"

// Weak: defined only where the engine's object is linked in (the test suite), null elsewhere.
extern "C" __attribute__((weak)) int ucudnn_tools_bench_engine(const ucudnn::tools::BenchRequest* request,
                                                               std::ostream* out, std::ostream* err);

namespace ucudnn::tools {

Expected<BenchEngine> bench_engine(const std::string& executable) {
  if (&ucudnn_tools_bench_engine != nullptr) return &ucudnn_tools_bench_engine;
  const auto found = library_beside(kBenchModuleName, executable);
  if (!found) return found.error().prefixed("`bench` is not installed: ");
  const std::string& module = *found;
  // RTLD_LOCAL: the module's copy of the library keeps to itself.
  void* handle = dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Error::invalid("`bench` needs cuDNN 9 and the CUDA runtime, and cannot load them: " +
                          std::string(why ? why : "cannot load " + module) +
                          " (`plan`, `db` and `run` need neither; put cuDNN's folder on LD_LIBRARY_PATH to benchmark)");
  }
  const auto engine = reinterpret_cast<BenchEngine>(dlsym(handle, "ucudnn_tools_bench_engine"));
  if (engine == nullptr) return Error::invalid("'" + module + "' is no ucudnn bench module (it has no engine)");
  return engine;  // the module stays loaded for the process's life
}

}  // namespace ucudnn::tools
