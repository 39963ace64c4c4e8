// The GPU benchmark's command line: parses the options and checks their values.
#include "conv_benchmark_options.h"

#include <CLI/CLI.hpp>
#include <cctype>

#include "bench_support.h"
#include "command_line.h"
#include "core/units.h"

namespace bench {

std::optional<int> parse_options(int argc, char** argv, Options* o) {
  CLI::App app{"Times a network's training convolutions through ucudnn and three baselines in one run: plain "
               "legacy cuDNN, cuDNN's best single engine within the limit, and unlimited (needs a GPU)"};
  app.add_option("--workspace-limit", o->limit_text, "per-kernel workspace limit (of ucudnn and the baselines)");
  app.add_option("--policy", o->policy_text, "ucudnn's micro-batch sizes: all, powerOfTwo or undivided")
      ->check(CLI::IsMember({"all", "powerOfTwo", "undivided"}, CLI::ignore_case));
  app.add_option("--net", o->network_name, "a built-in network (alexnet, resnet18, resnet50, vgg16, densenet40) or a "
                                           "network file; every distinct convolution runs once per sequence");
  app.add_option("--batch", o->batch, "mini-batch size of every layer (default: the network's)")
      ->check(CLI::PositiveNumber);
  app.add_option("--iterations", o->iterations, "timed calls per measurement (median)")->check(CLI::PositiveNumber);
  app.add_option("--json", o->json_path, "also write the results as JSON to this file");
  app.add_option("--graph-replay", o->graph_replay,
                 "1: ucudnn handles replay recurring calls as CUDA graphs (their default); 0: every call is issued "
                 "to cuDNN")
      ->check(CLI::IsMember({0, 1}));
  app.add_flag("--list-kernels", o->list_kernels,
               "print how many kernels a training step runs (3 per distinct convolution, less the input layer's "
               "backward data unless --input-gradient) and exit; needs no GPU");
  app.add_option("--kernels", o->kernels,
                 "only these kernels of the training step, as LAYER:OP (op fwd, bwdd or bwdf), comma-separated, e.g. "
                 "conv2:fwd,conv2:bwdf")
      ->delimiter(',');
  app.add_flag("--input-gradient", o->input_gradient,
               "also run the input layer's backward data (the gradient of the images, which training leaves out)");
  app.add_option("--data-type", o->data_type_text,
                 "impose float, half or bfloat16 on every layer (default: each layer's own; built-in networks are "
                 "float); half and bfloat16 run with tensor-op math")
      ->check(CLI::IsMember({"float", "half", "bfloat16"}));
  app.add_option("--layout", o->layout_text,
                 "impose NCHW or NHWC (channels-last; NCDHW / NDHWC for 3-d layers) on every layer (default: each "
                 "layer's own; built-in networks are NCHW)")
      ->check(CLI::IsMember({"NCHW", "NHWC"}));
  app.add_option("--math", o->math_text, "float layers: default (cuDNN's, TF32 allowed) or fma (strict FP32)")
      ->check(CLI::IsMember({"default", "fma"}));
  app.add_option("--candidates", o->candidates_text,
                 "what ucudnn plans with: legacy (cuDNN's legacy algorithms), engines (its graph API) or both")
      ->check(CLI::IsMember({"legacy", "engines", "both"}));
  app.add_option("--total-workspace", o->total_text,
                 "run ucudnn in WD mode with this total budget (the baselines keep --workspace-limit per kernel)");
  app.add_option("--search", o->search_text,
                 "how ucudnn benchmarks new kernels: fast (its default) or exhaustive (every candidate fully, at "
                 "every size of the policy)")
      ->check(CLI::IsMember({"fast", "exhaustive"}));
  app.add_option("--baselines", o->baselines_text,
                 "all: plain legacy cuDNN, the best single engine at the limit and unlimited (default); plain: plain "
                 "legacy cuDNN only (a faster run)")
      ->check(CLI::IsMember({"all", "plain"}));
  return parse_command_line(&app, argc, argv);
}

Settings settings_of(const Options& o) {
  Settings settings;
  const auto limit = ucudnn::parse_byte_size(o.limit_text);
  if (!limit) fail("--workspace-limit: " + limit.message());
  settings.limit = *limit;
  if (!o.total_text.empty()) {
    const auto total = ucudnn::parse_total_workspace(o.total_text);
    if (!total) fail("--total-workspace: " + total.message());
    settings.total_workspace = *total;
  }
  std::string policy;
  for (char c : o.policy_text) policy.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  settings.policy = policy == "all"         ? UCUDNN_BATCH_SIZE_POLICY_ALL
                    : policy == "undivided" ? UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED
                                            : UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  settings.candidates = o.candidates_text == "legacy"    ? UCUDNN_CANDIDATES_LEGACY
                        : o.candidates_text == "engines" ? UCUDNN_CANDIDATES_ENGINES
                                                         : UCUDNN_CANDIDATES_BOTH;
  if (!o.data_type_text.empty()) settings.overrides.data_type = ucudnn::tools::data_type_of_name(o.data_type_text);
  if (!o.layout_text.empty()) {
    settings.overrides.layout = o.layout_text == "NHWC" ? ucudnn::Layout::kNhwc : ucudnn::Layout::kNchw;
  }
  if (o.batch > 0) settings.overrides.batch = o.batch;
  if (o.math_text == "fma") {
    if (settings.overrides.data_type.value_or(0) != 0) fail("--math fma is for float layers; --data-type " +
                                                            o.data_type_text + " leaves none");
    settings.float_math = CUDNN_FMA_MATH;
  }
  settings.all_baselines = o.baselines_text == "all";
  settings.search = o.search_text == "exhaustive" ? UCUDNN_SEARCH_EXHAUSTIVE : UCUDNN_SEARCH_FAST;
  return settings;
}

}  // namespace bench
