// `ucudnn bench` in a build without the CUDA toolkit or cuDNN: the subcommand exists, so that
// the user learns what the build left out instead of "unknown subcommand".

#include "tools/bench_command.h"

#include "tools/cli_options.h"

namespace ucudnn::tools {

std::pair<CLI::App*, CommandRunner> add_bench_command(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmark a network's convolutions (not in this build: needs CUDA)");
  bench->allow_extras();
  return {bench, [](std::ostream&, std::ostream& err) {
            return report_error(err, kExitDataError,
                                "this ucudnn was built without the CUDA toolkit and cuDNN, so `bench` is not in it; "
                                "rebuild where both are installed (`ucudnn plan` and `ucudnn db` work here)");
          }};
}

}  // namespace ucudnn::tools
