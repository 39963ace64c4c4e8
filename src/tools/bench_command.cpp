#include "tools/bench_command.h"

#include <filesystem>
#include <memory>
#include <string>

#include "core/batch_policy.h"
#include "core/search_mode.h"
#include "tools/bench_engine.h"
#include "tools/beside_command.h"
#include "tools/cli_options.h"
#include "tools/command.h"
#include "tools/networks.h"

namespace ucudnn::tools {
namespace {

struct BenchOptions {
  std::string network;
  std::string database;
  std::string policy = "powerOfTwo";
  std::string search = "fast";
  std::string measurements;  ///< also write the network's rows as a measurement table here
  /// --network and --net (its name in 0.1): which were given, as only one may be.
  const CLI::Option* network_given = nullptr;
  const CLI::Option* net_given = nullptr;
};

// Refuses an existing --measurements file before any work: it is never overwritten.
Status check_measurements_path(const std::string& path) {
  std::error_code ignored;
  if (!path.empty() && std::filesystem::exists(path, ignored)) {
    return Error::invalid("--measurements: '" + path + "' exists; it is not overwritten");
  }
  return Status::success();
}

int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  if (options.network_given->count() > 0 && options.net_given->count() > 0) {
    return report_error(err, kExitUsageError, "--network and --net (its old name) are one option: give it once");
  }
  if (options.network_given->count() == 0 && options.net_given->count() == 0) {
    return report_error(err, kExitUsageError, "--network is required: a built-in network or a network JSON file");
  }
  const auto policy = parse_batch_size_policy(options.policy);
  if (!policy) return report_error(err, kExitUsageError, "--policy: " + policy.message());
  const auto search = parse_search_mode(options.search);
  if (!search) return report_error(err, kExitUsageError, "--search: " + search.message());
  const auto database = database_path(options.database);
  if (!database) return report_error(err, kExitUsageError, database.message());
  auto network = resolve_network(options.network);
  if (!network) return report_error(err, kExitDataError, network.message());
  const Status writable = check_measurements_path(options.measurements);
  if (!writable) return report_error(err, kExitUsageError, writable.message());

  // Everything the engine needs is checked before it is loaded: a usage error never waits on cuDNN.
  const auto engine = bench_engine(this_executable());
  if (!engine) return report_error(err, kExitDataError, engine.message());
  const BenchRequest request{std::move(network).value(), *policy, *search, *database, options.measurements};
  return (*engine)(&request, &out, &err);
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* bench = app.add_subcommand("bench", "Benchmark a network's convolutions into the database (needs a GPU)");
  const char* networks =
      "A built-in network (alexnet, resnet18, resnet50, densenet40, vgg16) or a network "
      "description file (JSON); required";
  options->network_given = bench->add_option("--network", options->network, networks)->type_name("NET");
  // --net, as 0.1 named it: still accepted, no longer shown (db import and export say --network).
  options->net_given = bench->add_option("--net", options->network, networks)->group("");
  bench->add_option("--database", options->database, "The SQLite benchmark database (default: UCUDNN_DATABASE)")
      ->type_name("FILE");
  bench->add_option("--policy", options->policy, "Micro-batch sizes: all, powerOfTwo, undivided")
      ->type_name("POLICY")
      ->capture_default_str();
  bench
      ->add_option("--search", options->search,
                   "How new kernels are benchmarked: fast (only the sizes and candidates that can change the plan "
                   "under the default workspace limit) or exhaustive (every candidate fully, at every size)")
      ->type_name("MODE")
      ->capture_default_str();
  bench
      ->add_option("--measurements", options->measurements,
                   "Also write the network's rows as a measurement table (the CSV `ucudnn plan` reads); "
                   "an existing file is refused")
      ->type_name("FILE");
  return {bench, [options](std::ostream& out, std::ostream& err) { return run_bench(*options, out, err); }};
}

}  // namespace ucudnn::tools
