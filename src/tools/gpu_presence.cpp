#include "tools/gpu_presence.h"

#include <dlfcn.h>

#include "tools/subprocess.h"

namespace ucudnn::tools {
namespace {

using InitFunction = int (*)(unsigned int);
using CountFunction = int (*)(int*);

// In the forked child: "ok", or one line saying what is missing.
std::string ask_driver(const std::string& library, const StepReporter& step) {
  step("loading '" + library + "'");
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return "no NVIDIA driver is installed (" + library + " cannot be loaded)";
  const auto init = reinterpret_cast<InitFunction>(dlsym(handle, "cuInit"));
  const auto count = reinterpret_cast<CountFunction>(dlsym(handle, "cuDeviceGetCount"));
  if (init == nullptr || count == nullptr) return library + " is not an NVIDIA driver (no cuInit or cuDeviceGetCount)";
  step("calling cuInit of '" + library + "'");
  const int started = init(0);
  if (started == 100) return "the NVIDIA driver sees no GPU (CUDA_ERROR_NO_DEVICE; CUDA_VISIBLE_DEVICES may hide them)";
  if (started != 0) return "the NVIDIA driver cannot start (cuInit returned " + std::to_string(started) + ")";
  int devices = 0;
  step("calling cuDeviceGetCount of '" + library + "'");
  if (count(&devices) != 0 || devices <= 0) return "the NVIDIA driver sees no GPU (CUDA_VISIBLE_DEVICES may hide them)";
  return "ok";
}

}  // namespace

std::optional<std::string> missing_gpu(const std::string& driver_library) {
  const auto answered =
      run_in_fork([&](const StepReporter& step) { return ask_driver(driver_library, step); }, kChildAnswerTimeoutMs);
  if (!answered) return "asking the NVIDIA driver failed: " + answered.message();
  if (*answered == "ok") return std::nullopt;
  return *answered;
}

}  // namespace ucudnn::tools
