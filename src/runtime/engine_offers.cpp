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

namespace {

// What a configuration is and whether the caller's settings allow it.
struct ConfigFacts {
  EngineConfigId id;
  std::set<int> numerical, behavior;
};

// The engine of a configuration.
Status engine_of(const BackendDescriptor& config, BackendDescriptor* engine) {
  return referenced(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine);
}

// The descriptors (of `type`) that `owner`'s attribute `name` lists, asked how many first: making
// one per knob type for every offer was most of the heuristics' time.
Status listed_descriptors(const BackendDescriptor& owner, cudnnBackendAttributeName_t name,
                          cudnnBackendDescriptorType_t type, std::vector<BackendDescriptor>* out) {
  std::int64_t count = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(owner.get(), name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  out->resize(static_cast<std::size_t>(std::clamp<std::int64_t>(count, 0, CUDNN_KNOB_TYPE_COUNTS)));
  std::vector<cudnnBackendDescriptor_t> raw(out->size());
  for (std::size_t i = 0; i < out->size(); ++i) {
    UCUDNN_TRY(create(type, &(*out)[i]));
    raw[i] = (*out)[i].get();
  }
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(owner.get(), name, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              static_cast<std::int64_t>(raw.size()), &count, raw.data()));
  out->resize(static_cast<std::size_t>(std::clamp<std::int64_t>(count, 0, static_cast<std::int64_t>(raw.size()))));
  return Status::success();
}

// An engine's numerical and behavior notes: what the caller's settings allow it by.
Status read_engine_notes(const BackendDescriptor& engine, ConfigFacts* facts) {
  UCUDNN_TRY(read_notes<cudnnBackendNumericalNote_t>(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                                     CUDNN_TYPE_NUMERICAL_NOTE, &facts->numerical));
  UCUDNN_TRY(read_notes<cudnnBackendBehaviorNote_t>(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                                    &facts->behavior));
  return Status::success();
}

Status read_config(const BackendDescriptor& config, ConfigFacts* facts) {
  BackendDescriptor engine;
  UCUDNN_TRY(engine_of(config, &engine));
  UCUDNN_TRY(read_value(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, &facts->id.engine));
  UCUDNN_TRY(read_engine_notes(engine, facts));
  std::vector<BackendDescriptor> choices;
  UCUDNN_TRY(
      listed_descriptors(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &choices));
  for (const BackendDescriptor& choice : choices) {
    cudnnBackendKnobType_t type{};
    std::int64_t value = 0;
    UCUDNN_TRY(read_value(choice.get(), CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, &type));
    UCUDNN_TRY(read_value(choice.get(), CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, &value));
    facts->id.knobs.emplace_back(static_cast<int>(type), value);
  }
  return Status::success();
}

// The knobs of an engine and the values each takes: what a sweep varies.
Status read_engine_knob_ranges(const BackendDescriptor& engine, std::vector<KnobRange>* out) {
  std::vector<BackendDescriptor> infos;
  UCUDNN_TRY(listed_descriptors(engine, CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, &infos));
  for (const BackendDescriptor& info : infos) {
    cudnnBackendKnobType_t type{};
    KnobRange range;
    UCUDNN_TRY(read_value(info.get(), CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE, &type));
    UCUDNN_TRY(read_value(info.get(), CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, CUDNN_TYPE_INT64, &range.min));
    UCUDNN_TRY(read_value(info.get(), CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, CUDNN_TYPE_INT64, &range.max));
    UCUDNN_TRY(read_value(info.get(), CUDNN_ATTR_KNOB_INFO_STRIDE, CUDNN_TYPE_INT64, &range.stride));
    range.type = static_cast<int>(type);
    out->push_back(range);
  }
  return Status::success();
}

// The same for a configuration's engine.
Status read_knob_ranges(const BackendDescriptor& config, std::vector<KnobRange>* out) {
  BackendDescriptor engine;
  UCUDNN_TRY(engine_of(config, &engine));
  return read_engine_knob_ranges(engine, out);
}

bool tf32_overridden_off() {
  static const bool off = [] {
    const char* value = std::getenv("NVIDIA_TF32_OVERRIDE");
    return value && std::strcmp(value, "0") == 0;
  }();
  return off;
}

// Whether the caller's convolution allows a configuration with these notes (see the header).
// Engines compiled at run time take seconds of NVRTC per plan: only the sweep (the ceiling) times them.
bool allowed(const ConvKey& key, const ConfigFacts& facts, KnobSearch knobs) {
  if (facts.behavior.count(CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) && knobs != KnobSearch::kSweep) return false;
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

// Appends the allowed configurations of `configs` not yet in `seen`; swept, the first of an engine
// not yet in `swept` followed by those one knob away from it (core/knob_sweep.h), which share its
// engine's notes.
struct Offered {
  std::set<std::string> ids;
  std::set<std::int64_t> swept_engines;
};
void add_allowed(const ConvKey& key, const std::vector<BackendDescriptor>& configs, KnobSearch knobs, Offered* offered,
                 std::vector<EngineOffer>* out) {
  for (const BackendDescriptor& config : configs) {
    ConfigFacts facts;
    const Status read = read_config(config, &facts);
    if (!read.ok()) {
      UCUDNN_LOG_DEBUG("skipping an engine configuration: " << read.message());
      continue;
    }
    if (!allowed(key, facts, knobs)) continue;
    const bool deterministic = facts.numerical.count(CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC) == 0;
    const bool compiled = facts.behavior.count(CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) != 0;
    auto add = [&](const EngineConfigId& id) {
      EngineOffer offer{format_engine_config(id), deterministic, compiled};
      if (offered->ids.insert(offer.id).second) out->push_back(std::move(offer));
    };
    add(facts.id);
    if (knobs != KnobSearch::kSweep || !offered->swept_engines.insert(facts.id.engine).second) continue;
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
  Offered offered;
  // A mode that offers nothing for this graph is not an error: the other may.
  std::vector<cudnnBackendHeurMode_t> modes = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
  if (knobs == KnobSearch::kSweep) modes.insert(modes.begin() + 1, CUDNN_HEUR_MODE_B);
  for (cudnnBackendHeurMode_t mode : modes) {
    std::vector<BackendDescriptor> configs;
    const Status listed = heuristic_configs(graph, mode, &configs);
    if (!listed.ok()) UCUDNN_LOG_DEBUG("engine heuristics (mode " << mode << "): " << listed.message());
    add_allowed(key, configs, knobs, &offered, out);
  }
  return Status::success();
}

Status knob_neighbours(const ConvKey& key, const std::string& id, std::vector<EngineOffer>* out) {
  out->clear();
  if (!engines_supported(key)) return Status::success();
  UCUDNN_TRY_ASSIGN(const EngineConfigId chosen, parse_engine_config(id));
  cudnnHandle_t handle = nullptr;
  UCUDNN_TRY(planning_handle(&handle));
  BackendDescriptor graph;
  std::vector<BackendDescriptor> keep;
  UCUDNN_TRY(make_graph(key, 1.0, 0.0, handle, &graph, &keep));
  BackendDescriptor engine;
  UCUDNN_TRY(make_engine(graph, chosen.engine, &engine));
  ConfigFacts facts;
  facts.id = chosen;
  UCUDNN_TRY(read_engine_notes(engine, &facts));
  if (!allowed(key, facts, KnobSearch::kRefine)) return Status::success();
  std::vector<KnobRange> ranges;
  UCUDNN_TRY(read_engine_knob_ranges(engine, &ranges));
  const bool deterministic = facts.numerical.count(CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC) == 0;
  for (const EngineConfigId& variant : knob_variants(chosen, ranges)) {
    out->push_back(EngineOffer{format_engine_config(variant), deterministic, false});
  }
  return Status::success();
}

}  // namespace ucudnn::runtime
