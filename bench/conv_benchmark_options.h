#pragma once
// The GPU benchmark's command line: its options as given, and their values checked.

#include <cudnn.h>

#include <optional>
#include <string>
#include <vector>

#include "tools/networks.h"
#include "ucudnn/ucudnn.h"

namespace bench {

struct Options {
  std::string limit_text = "64MiB", policy_text = "powerOfTwo", json_path, total_text;
  int batch = 0, iterations = 20, warmup = 3, graph_replay = 1;
  std::string network_name = "alexnet";
  std::string data_type_text, layout_text;  // empty: each layer's own
  std::string math_text = "default", candidates_text = "both", baselines_text = "all", search_text = "fast";
  bool list_kernels = false, input_gradient = false;
  std::vector<std::string> kernels;  // LAYER:OP; empty: the whole training step
};

/// Parses the command line; an exit status where the program is done (help, a usage error).
std::optional<int> parse_options(int argc, char** argv, Options* o);

/// The options' values, checked.
struct Settings {
  size_t limit = 0;
  size_t total_workspace = 0;  // 0: WR mode
  UcudnnBatchSizePolicy_t policy = UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  UcudnnCandidates_t candidates = UCUDNN_CANDIDATES_BOTH;
  ucudnn::tools::LayerOverrides overrides;          // --data-type, --layout, --batch
  cudnnMathType_t float_math = CUDNN_DEFAULT_MATH;  // float layers' math type, as a framework sets it
  bool all_baselines = true;
  UcudnnSearchMode_t search = UCUDNN_SEARCH_FAST;  // ucudnn's side; the baselines plan from its rows
};

/// Fails with one line where an option's value is wrong.
Settings settings_of(const Options& o);

}  // namespace bench
