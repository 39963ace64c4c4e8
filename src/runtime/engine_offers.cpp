// The engine configurations cuDNN offers for one convolution (runtime/backend_graph.h's
// offer_engines): its heuristics' lists, which of them the caller's convolution allows, and with
// UCUDNN_ENGINE_KNOBS=sweep the configurations one knob away (core/knob_sweep.h).

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/engine_config.h"
#include "core/knob_sweep.h"
#include "core/logging.h"
#include "runtime/backend_calls.h"
#include "runtime/backend_graph.h"

namespace ucudnn::runtime {
using backend::create;
using backend::finalize;
using backend::make_graph;
using backend::planning_handle;
using backend::read_notes;
using backend::set;
using backend::set_descriptor;

namespace {

// What a configuration is and whether the caller's settings allow it.
struct ConfigFacts {
  EngineConfigId id;
  std::set<int> numerical, behavior;
};

Status read_config(const BackendDescriptor& config, ConfigFacts* facts) {
  BackendDescriptor engine;
  UCUDNN_TRY(create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine));
  cudnnBackendDescriptor_t raw_engine = engine.get();
  std::int64_t count = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              1, &count, &raw_engine));
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count,
                                              &facts->id.engine));
  UCUDNN_TRY(read_notes<cudnnBackendNumericalNote_t>(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                                     CUDNN_TYPE_NUMERICAL_NOTE, &facts->numerical));
  UCUDNN_TRY(read_notes<cudnnBackendBehaviorNote_t>(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                                    &facts->behavior));
  // As many knob-choice descriptors as the configuration has choices (asked first): making one
  // per knob type for every offer was most of the heuristics' time.
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<BackendDescriptor> choices(
      static_cast<std::size_t>(std::clamp<std::int64_t>(count, 0, CUDNN_KNOB_TYPE_COUNTS)));
  std::vector<cudnnBackendDescriptor_t> raw(choices.size());
  for (std::size_t i = 0; i < choices.size(); ++i) {
    UCUDNN_TRY(create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &choices[i]));
    raw[i] = choices[i].get();
  }
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<std::int64_t>(raw.size()),
                                              &count, raw.data()));
  for (std::int64_t i = 0; i < count; ++i) {
    cudnnBackendKnobType_t type{};
    std::int64_t value = 0, n = 0;
    UCUDNN_CHECK_CUDNN(
        cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &n, &type));
    UCUDNN_CHECK_CUDNN(
        cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &n, &value));
    facts->id.knobs.emplace_back(static_cast<int>(type), value);
  }
  return Status::success();
}

// The knobs of a configuration's engine and the values each takes: what a sweep varies.
Status read_knob_ranges(const BackendDescriptor& config, std::vector<KnobRange>* out) {
  BackendDescriptor engine;
  UCUDNN_TRY(create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine));
  cudnnBackendDescriptor_t raw_engine = engine.get();
  std::int64_t count = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              1, &count, &raw_engine));
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              0, &count, nullptr));
  std::vector<BackendDescriptor> infos(
      static_cast<std::size_t>(std::clamp<std::int64_t>(count, 0, CUDNN_KNOB_TYPE_COUNTS)));
  std::vector<cudnnBackendDescriptor_t> raw(infos.size());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    UCUDNN_TRY(create(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, &infos[i]));
    raw[i] = infos[i].get();
  }
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              static_cast<std::int64_t>(raw.size()), &count, raw.data()));
  for (std::int64_t i = 0; i < std::min<std::int64_t>(count, static_cast<std::int64_t>(raw.size())); ++i) {
    cudnnBackendKnobType_t type{};
    KnobRange range;
    std::int64_t n = 0;
    UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &n, &type));
    UCUDNN_CHECK_CUDNN(
        cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, CUDNN_TYPE_INT64, 1, &n, &range.min));
    UCUDNN_CHECK_CUDNN(
        cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, CUDNN_TYPE_INT64, 1, &n, &range.max));
    UCUDNN_CHECK_CUDNN(
        cudnnBackendGetAttribute(raw[i], CUDNN_ATTR_KNOB_INFO_STRIDE, CUDNN_TYPE_INT64, 1, &n, &range.stride));
    range.type = static_cast<int>(type);
    out->push_back(range);
  }
  return Status::success();
}

bool tf32_overridden_off() {
  static const bool off = [] {
    const char* value = std::getenv("NVIDIA_TF32_OVERRIDE");
    return value && std::strcmp(value, "0") == 0;
  }();
  return off;
}

// Whether the caller's convolution allows a configuration with these notes (see the header).
bool allowed(const ConvKey& key, const ConfigFacts& facts) {
  if (facts.behavior.count(CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION)) return false;
  if (known_defective_engine(key, facts.id.engine)) return false;
  const bool fp32 = key.x.data_type == CUDNN_DATA_FLOAT;
  const bool fma_only = key.conv.math_type == CUDNN_FMA_MATH || (fp32 && tf32_overridden_off());
  if (fma_only && (facts.numerical.count(CUDNN_NUMERICAL_NOTE_TENSOR_CORE) ||
                   facts.numerical.count(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS))) {
    return false;
  }
  if (key.conv.compute_type == CUDNN_DATA_FLOAT &&
      facts.numerical.count(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION)) {
    return false;
  }
  return true;
}

Status heuristic_configs(const BackendDescriptor& graph, cudnnBackendHeurMode_t mode,
                         std::vector<BackendDescriptor>* out) {
  BackendDescriptor heuristics;
  UCUDNN_TRY(create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heuristics));
  UCUDNN_TRY(set_descriptor(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph));
  UCUDNN_TRY(set(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode, 1));
  UCUDNN_TRY(finalize(heuristics));
  std::int64_t count = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<BackendDescriptor> configs(static_cast<std::size_t>(count));
  std::vector<cudnnBackendDescriptor_t> raw(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    UCUDNN_TRY(create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &configs[i]));
    raw[i] = configs[i].get();
  }
  std::int64_t returned = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()));
  configs.resize(static_cast<std::size_t>(std::min(returned, count)));
  for (auto& c : configs) out->push_back(std::move(c));
  return Status::success();
}

}  // namespace

bool engines_supported(const ConvKey& key) {
  auto floating = [](int type) {
    return type == CUDNN_DATA_FLOAT || type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16 ||
           type == CUDNN_DATA_DOUBLE;
  };
  const std::size_t rank = key.x.dims.size();
  return floating(key.x.data_type) && floating(key.w.data_type) && floating(key.y.data_type) &&
         (rank == 4 || rank == 5) && key.w.dims.size() == rank && key.conv.pads.size() == rank - 2 &&
         (key.w.format == CUDNN_TENSOR_NCHW || key.w.format == CUDNN_TENSOR_NHWC);
}

namespace {

// Appends the allowed configurations of `configs` not yet in `seen`; swept, each followed by those
// one knob away from it (core/knob_sweep.h), which share its engine's notes.
void add_allowed(const ConvKey& key, const std::vector<BackendDescriptor>& configs, KnobSearch knobs,
                 std::set<std::string>* seen, std::vector<EngineOffer>* out) {
  for (const BackendDescriptor& config : configs) {
    ConfigFacts facts;
    const Status read = read_config(config, &facts);
    if (!read.ok()) {
      UCUDNN_LOG_DEBUG("skipping an engine configuration: " << read.message());
      continue;
    }
    if (!allowed(key, facts)) continue;
    const bool deterministic = facts.numerical.count(CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC) == 0;
    auto add = [&](const EngineConfigId& id) {
      EngineOffer offer{format_engine_config(id), deterministic};
      if (seen->insert(offer.id).second) out->push_back(std::move(offer));
    };
    add(facts.id);
    if (knobs != KnobSearch::kSweep) continue;
    std::vector<KnobRange> ranges;
    const Status ranged = read_knob_ranges(config, &ranges);
    if (!ranged.ok()) UCUDNN_LOG_DEBUG("engine " << facts.id.engine << ": knobs unread: " << ranged.message());
    for (const EngineConfigId& variant : knob_variants(facts.id, ranges)) add(variant);
  }
}

}  // namespace

Status offer_engines(const ConvKey& key, KnobSearch knobs, std::vector<EngineOffer>* out) {
  out->clear();
  if (!engines_supported(key)) return Status::success();
  cudnnHandle_t handle = nullptr;
  UCUDNN_TRY(planning_handle(&handle));
  BackendDescriptor graph;
  std::vector<BackendDescriptor> keep;
  UCUDNN_TRY(make_graph(key, 1.0, 0.0, handle, &graph, &keep));
  std::set<std::string> seen;
  // A mode that offers nothing for this graph is not an error: the other may.
  std::vector<cudnnBackendHeurMode_t> modes = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
  if (knobs == KnobSearch::kSweep) modes.insert(modes.begin() + 1, CUDNN_HEUR_MODE_B);
  for (cudnnBackendHeurMode_t mode : modes) {
    std::vector<BackendDescriptor> configs;
    const Status listed = heuristic_configs(graph, mode, &configs);
    if (!listed.ok()) UCUDNN_LOG_DEBUG("engine heuristics (mode " << mode << "): " << listed.message());
    add_allowed(key, configs, knobs, &seen, out);
  }
  return Status::success();
}

}  // namespace ucudnn::runtime
