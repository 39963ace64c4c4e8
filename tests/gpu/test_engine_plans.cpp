// Graph-API engines as candidates: execution plans of the engine configurations cuDNN offers,
// run on random micro-batch splits, must equal plain legacy cuDNN on the whole batch; a handle
// set to engines plans with them and stays exact; the candidates setting is checked.

#include <set>

#include "conv_check.h"
#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "runtime/backend_graph.h"
#include "runtime/descriptors.h"
#include "runtime/plan_builder.h"
#include "runtime/executor.h"

namespace ucudnn_test {
namespace {

class EnginePlans : public PlanExecutionTest {};

// A random micro-batch split whose every micro-batch starts 16-byte aligned (engine plans promise
// cuDNN that much; ucudnn's planner only uses such sizes).
std::vector<int> aligned_split(const ucudnn::ConvKey& key, std::mt19937& rng) {
  const std::vector<long long> bytes = {
      static_cast<long long>(key.x.strides[0]) * static_cast<long long>(ucudnn::runtime::element_size(key.x.data_type)),
      static_cast<long long>(key.y.strides[0]) *
          static_cast<long long>(ucudnn::runtime::element_size(key.y.data_type))};
  std::vector<int> all;
  for (int s = 1; s < key.batch(); ++s) all.push_back(s);
  const std::vector<int> aligned = ucudnn::aligned_micro_batch_sizes(all, key.batch(), bytes, 16);
  std::vector<int> split;
  int left = key.batch();
  while (left > 0) {
    std::vector<int> fitting;
    for (int s : aligned) {
      if (s <= left && s < key.batch()) fitting.push_back(s);
    }
    if (fitting.empty() || (!split.empty() && rng() % 3 == 0)) {
      split.push_back(left);  // the last micro-batch may have any size: only its start must be aligned
      break;
    }
    const int s = fitting[std::uniform_int_distribution<std::size_t>(0, fitting.size() - 1)(rng)];
    split.push_back(s);
    left -= s;
  }
  return split;
}

TEST_F(EnginePlans, RandomSplitsOverOfferedEnginesMatchPlainCudnn) {
  SeededRng rng;
  int checked = 0, split_checked = 0, no_engine = 0;
  std::set<std::string> engines_seen;
  for (int i = 0; i < 30; ++i) {
    ConvSpec spec = random_spec(rng);
    spec.n = std::max(spec.n, 2);
    if (i % 3 == 1) {  // what people train with: half and bfloat16, channels-last
      spec.data_type = i % 2 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
      spec.math = CUDNN_DEFAULT_MATH;
      spec.layout = Layout::kNhwc;
    }
    ConvProblem p(spec);
    if (!p.ok) continue;
    for (const auto& [op, reference_algo, key] : reference_kernels(plain_, p, kAmpleWorkspace)) {
      // Each micro-batch size runs an offered engine that builds at that size, picked at random.
      ucudnn::optimize::MicroBatchSplit wr;
      wr.batch = spec.n;
      bool planned = true;
      for (int size : aligned_split(key, rng)) {
        // Every other problem draws from the knob sweep's configurations too (core/knob_sweep.h).
        const auto knobs = i % 2 ? ucudnn::KnobSearch::kSweep : ucudnn::KnobSearch::kHeuristics;
        std::vector<ucudnn::runtime::EngineOffer> offers;
        ASSERT_TRUE(ucudnn::runtime::offer_engines(key.with_batch(size), knobs, &offers).ok());
        std::shuffle(offers.begin(), offers.end(), rng);
        std::string chosen;
        for (const auto& offer : offers) {
          std::unique_ptr<ucudnn::runtime::CudnnExecutionPlan> probe;
          if (ucudnn::runtime::CudnnExecutionPlan::build(key.with_batch(size), offer.id, 1.0, 0.0, &probe).ok() &&
              probe->workspace_bytes() <= kAmpleWorkspace) {
            chosen = offer.id;
            break;
          }
        }
        if (chosen.empty()) {
          planned = false;
          break;
        }
        engines_seen.insert(chosen);
        wr.runs.push_back(run_of(size, -1, spec.math, chosen));
      }
      if (!planned) {
        ++no_engine;
        continue;
      }
      std::unique_ptr<ucudnn::runtime::ExecutablePlan> plan;
      ASSERT_TRUE(build_plan(key, kAmpleWorkspace, wr, &plan));
      // (1, 0) and (1, 1) are built with the plan; (0.5, 0.25) on its first call.
      const auto& scale = kScales[std::uniform_int_distribution<int>(0, 2)(rng)];
      std::string runs;
      for (const auto& r : wr.runs) runs += " " + std::to_string(r.size()) + ":" + r.candidate().engine_id;
      SCOPED_TRACE(spec.describe() + " op " + std::to_string(op) + " runs" + runs + " alpha " +
                   std::to_string(scale[0]) + " beta " + std::to_string(scale[1]));

      OpTensors t(p, op);
      ASSERT_TRUE(t.allocated());
      t.fill_random(rng);
      const ucudnn::Status ran = plan->execute(plain_, &scale[0], &scale[1], {t.x.get(), t.w.get(), t.y.get()},
                                               workspace_->get(), kAmpleWorkspace);
      ASSERT_TRUE(ran.ok()) << ran.message();
      ASSERT_EQ(t.run_reference(plain_, reference_algo, scale[0], scale[1], workspace_->get(), kAmpleWorkspace),
                CUDNN_STATUS_SUCCESS);
      CUDA_OK(cudaDeviceSynchronize());
      // Another algorithm than the reference's: cuDNN's cross-algorithm tolerance.
      EXPECT_LE(t.error(), tolerance(spec, false));
      ++checked;
      if (wr.runs.size() > 1) ++split_checked;
    }
  }
  std::printf("[ engines ] seed %u: %d engine executions checked (%d split), %d without an engine, %zu engines\n",
              rng.first_seed, checked, split_checked, no_engine, engines_seen.size());
  EXPECT_GE(checked, 40);
  EXPECT_GE(split_checked, 20);
  EXPECT_GE(engines_seen.size(), 5u) << "cuDNN offered hardly any engine configurations";
}

TEST_F(EnginePlans, OffersRespectTheCallersMathType) {
  // FP32 with FMA math forbids tensor cores: no offered engine may use them. With default math
  // (TF32 allowed) the offer is a superset.
  ConvSpec spec = square_conv_2d(32, 64, 64, 28, 3, 1);
  spec.layout = Layout::kNhwc;
  spec.math = CUDNN_FMA_MATH;
  ConvProblem strict(spec);
  spec.math = CUDNN_DEFAULT_MATH;
  ConvProblem relaxed(spec);
  ASSERT_TRUE(strict.ok && relaxed.ok);
  ucudnn::ConvKey strict_key, relaxed_key;
  ASSERT_TRUE(conv_key_of(strict, UCUDNN_OP_FORWARD, &strict_key));
  ASSERT_TRUE(conv_key_of(relaxed, UCUDNN_OP_FORWARD, &relaxed_key));
  std::vector<ucudnn::runtime::EngineOffer> strict_offers, relaxed_offers;
  ASSERT_TRUE(ucudnn::runtime::offer_engines(strict_key, ucudnn::KnobSearch::kHeuristics, &strict_offers).ok());
  ASSERT_TRUE(ucudnn::runtime::offer_engines(relaxed_key, ucudnn::KnobSearch::kHeuristics, &relaxed_offers).ok());
  EXPECT_FALSE(strict_offers.empty());
  EXPECT_GT(relaxed_offers.size(), strict_offers.size());
  std::set<std::string> relaxed_ids;
  for (const auto& o : relaxed_offers) relaxed_ids.insert(o.id);
  for (const auto& o : strict_offers) EXPECT_TRUE(relaxed_ids.count(o.id)) << o.id;
}

// The knob sweep offers every configuration the heuristics do, and configurations one knob away
// that cuDNN builds: an engine of this FP16 convolution exposes knobs.
TEST_F(EnginePlans, TheKnobSweepOffersTheHeuristicConfigurationsAndMoreThatBuild) {
  ConvSpec spec = square_conv_2d(32, 64, 64, 28, 3, 1);
  spec.layout = Layout::kNhwc;
  spec.data_type = CUDNN_DATA_HALF;
  spec.math = CUDNN_DEFAULT_MATH;
  ucudnn::ConvKey key;
  ASSERT_TRUE(conv_key_of(spec, UCUDNN_OP_BACKWARD_FILTER, &key));
  std::vector<ucudnn::runtime::EngineOffer> chosen, swept;
  ASSERT_TRUE(ucudnn::runtime::offer_engines(key, ucudnn::KnobSearch::kHeuristics, &chosen).ok());
  ASSERT_TRUE(ucudnn::runtime::offer_engines(key, ucudnn::KnobSearch::kSweep, &swept).ok());
  std::set<std::string> swept_ids;
  for (const auto& o : swept) swept_ids.insert(o.id);
  EXPECT_EQ(swept_ids.size(), swept.size()) << "an offer twice";
  for (const auto& o : chosen) EXPECT_TRUE(swept_ids.count(o.id)) << o.id;
  std::set<std::string> chosen_ids;
  for (const auto& o : chosen) chosen_ids.insert(o.id);
  int built = 0;
  for (const auto& o : swept) {
    std::unique_ptr<ucudnn::runtime::CudnnExecutionPlan> plan;
    if (!chosen_ids.count(o.id) && ucudnn::runtime::CudnnExecutionPlan::build(key, o.id, 1.0, 0.0, &plan).ok()) ++built;
  }
  std::printf("[ knobs ] %zu configurations from the heuristics, %zu swept, %d of the new ones built\n", chosen.size(),
              swept.size(), built);
  EXPECT_GT(built, 0) << "no configuration one knob away builds";
}

// UCUDNN_ENGINE_KNOBS=refine's neighbours: those one knob away from one configuration, every one of
// the same engine and none the configuration itself, some of which build.
TEST_F(EnginePlans, KnobNeighboursOfAConfigurationAreItsEnginesAndSomeBuild) {
  ConvSpec spec = square_conv_2d(32, 64, 64, 28, 3, 1);
  spec.layout = Layout::kNhwc;
  spec.data_type = CUDNN_DATA_HALF;
  spec.math = CUDNN_DEFAULT_MATH;
  ucudnn::ConvKey key;
  ASSERT_TRUE(conv_key_of(spec, UCUDNN_OP_FORWARD, &key));
  std::vector<ucudnn::runtime::EngineOffer> chosen;
  ASSERT_TRUE(ucudnn::runtime::offer_engines(key, ucudnn::KnobSearch::kHeuristics, &chosen).ok());
  int with_neighbours = 0, built = 0;
  for (const auto& offer : chosen) {
    std::vector<ucudnn::runtime::EngineOffer> neighbours;
    ASSERT_TRUE(ucudnn::runtime::knob_neighbours(key, offer.id, &neighbours).ok()) << offer.id;
    if (!neighbours.empty()) ++with_neighbours;
    EXPECT_LE(neighbours.size(), ucudnn::kMaxSweptConfigs);
    const std::string engine = offer.id.substr(0, offer.id.find(':'));
    for (const auto& n : neighbours) {
      EXPECT_NE(n.id, offer.id);
      EXPECT_EQ(n.id.substr(0, n.id.find(':')), engine) << n.id << " is not " << offer.id << "'s engine";
      std::unique_ptr<ucudnn::runtime::CudnnExecutionPlan> plan;
      if (ucudnn::runtime::CudnnExecutionPlan::build(key, n.id, 1.0, 0.0, &plan).ok()) ++built;
    }
  }
  std::printf("[ knobs ] %zu configurations, %d with neighbours, %d neighbours built\n", chosen.size(), with_neighbours,
              built);
  EXPECT_GT(with_neighbours, 0);
  EXPECT_GT(built, 0);
  std::vector<ucudnn::runtime::EngineOffer> none;
  EXPECT_FALSE(ucudnn::runtime::knob_neighbours(key, "not an engine", &none).ok());
}

// A row that understates its engine's workspace (one recorded before the database kept backward
// filter's beta = 1 need) must not make a plan fail or break its limit: the planner plans again
// without it. With a limit the engine fits, the plan keeps it and asks for what it truly needs.
TEST_F(EnginePlans, UnderstatedEngineRowIsPlannedAroundWithinTheLimit) {
  ConvSpec spec = square_conv_2d(8, 24, 40, 30, 5, 2);
  spec.layout = Layout::kNchw;
  spec.math = CUDNN_DEFAULT_MATH;
  ucudnn::ConvKey key;
  ASSERT_TRUE(conv_key_of(spec, UCUDNN_OP_FORWARD, &key));
  std::vector<ucudnn::runtime::EngineOffer> offers;
  ASSERT_TRUE(ucudnn::runtime::offer_engines(key, ucudnn::KnobSearch::kHeuristics, &offers).ok());
  std::string hungry;
  std::size_t needed = 0;
  for (const auto& offer : offers) {
    std::unique_ptr<ucudnn::runtime::CudnnExecutionPlan> probe;
    if (ucudnn::runtime::CudnnExecutionPlan::build(key, offer.id, 1.0, 0.0, &probe).ok() &&
        probe->workspace_bytes() > 0) {
      hungry = offer.id;
      needed = probe->workspace_bytes();
      break;
    }
  }
  if (hungry.empty()) GTEST_SKIP() << "cuDNN offered no engine that needs workspace for " << spec.describe();
  SCOPED_TRACE(hungry + " needs " + std::to_string(needed) + " bytes");

  ucudnn::Measurement understated;
  understated.candidate = ucudnn::Candidate::engine(hungry, CUDNN_DEFAULT_MATH);
  understated.micro_batch = spec.n;
  understated.time_ms = 1e-6;  // faster than anything: the optimiser picks it first
  understated.workspace_bytes = 0;
  ucudnn::runtime::PlanBuilder& builder = ucudnn::runtime::PlanBuilder::instance();
  builder.table().record(key, ucudnn::CandidateKind::kEngine, std::numeric_limits<std::size_t>::max(), {understated});

  const auto policy = ucudnn::BatchSizePolicy::kUndivided;
  std::shared_ptr<const ucudnn::runtime::ExecutablePlan> tight, roomy;
  const ucudnn::Status planned_tight =
      builder.plan(plain_, key, needed - 1, policy, ucudnn::CandidateSet::kBoth, &tight);
  ASSERT_TRUE(planned_tight.ok()) << planned_tight.message();
  EXPECT_LE(tight->split().workspace_bytes, needed - 1);
  for (const auto& run : tight->split().runs) EXPECT_NE(run.candidate().engine_id, hungry);

  const ucudnn::Status planned_roomy = builder.plan(plain_, key, needed, policy, ucudnn::CandidateSet::kBoth, &roomy);
  ASSERT_TRUE(planned_roomy.ok()) << planned_roomy.message();
  ASSERT_EQ(roomy->split().runs.size(), 1u);
  EXPECT_EQ(roomy->split().runs.front().candidate().engine_id, hungry);
  EXPECT_EQ(roomy->split().workspace_bytes, needed);
}

// Every row the benchmarker writes carries the host's time to issue the call beside the GPU's,
// and a convolution too small to be worth several calls is planned as one: each call costs the
// host at least a few microseconds, more than such a micro-batch saves on the GPU.
TEST_F(EnginePlans, RowsCarryHostTimesAndATinyConvolutionIsNotSplit) {
  ConvSpec spec = square_conv_2d(64, 16, 16, 8, 3, 1);
  spec.data_type = CUDNN_DATA_HALF;
  spec.layout = Layout::kNhwc;
  spec.math = CUDNN_DEFAULT_MATH;
  ucudnn::ConvKey key;
  ASSERT_TRUE(conv_key_of(spec, UCUDNN_OP_FORWARD, &key));
  ucudnn::runtime::PlanBuilder& builder = ucudnn::runtime::PlanBuilder::instance();
  const ucudnn::SearchMode mode = builder.search_mode();
  // The fast search measures the whole batch and stops there: a smaller micro-batch of so tiny a
  // convolution cannot be faster per sample.
  builder.set_search_mode(ucudnn::SearchMode::kFast);
  std::shared_ptr<const ucudnn::runtime::ExecutablePlan> fast_plan;
  const ucudnn::Status fast_planned =
      builder.plan(plain_, key, std::size_t{64} << 20, ucudnn::BatchSizePolicy::kPowerOfTwo,
                   ucudnn::CandidateSet::kBoth, &fast_plan);
  ASSERT_TRUE(fast_planned.ok()) << fast_planned.message();
  EXPECT_EQ(fast_plan->split().micro_batch_count(), 1);
  EXPECT_TRUE(builder.table().entry(key.with_batch(spec.n), ucudnn::CandidateKind::kLegacy).has_value());
  EXPECT_FALSE(builder.table().entry(key.with_batch(1), ucudnn::CandidateKind::kLegacy).has_value())
      << "the fast search measured micro-batch 1";
  // The exhaustive search measures every size (the whole batch's rows reused).
  builder.set_search_mode(ucudnn::SearchMode::kExhaustive);
  std::shared_ptr<const ucudnn::runtime::ExecutablePlan> plan;
  const ucudnn::Status planned = builder.plan(plain_, key, std::size_t{64} << 20, ucudnn::BatchSizePolicy::kPowerOfTwo,
                                              ucudnn::CandidateSet::kBoth, &plan);
  builder.set_search_mode(mode);
  ASSERT_TRUE(planned.ok()) << planned.message();

  int rows = 0;
  for (int size = 1; size <= spec.n; size *= 2) {
    for (const auto kind : {ucudnn::CandidateKind::kLegacy, ucudnn::CandidateKind::kEngine}) {
      const auto entry = builder.table().entry(key.with_batch(size), kind);
      ASSERT_TRUE(entry.has_value()) << "micro-batch " << size << " was not measured";
      for (const ucudnn::Measurement& m : entry->rows) {
        SCOPED_TRACE("micro-batch " + std::to_string(size) + " algo " + std::to_string(m.candidate.algorithm) + " " +
                     m.candidate.engine_id);
        EXPECT_GT(m.host_ms, 0.0);
        EXPECT_LT(m.host_ms, 50.0) << "issuing one call cannot take that long";
        EXPECT_GT(m.time_ms, 0.0);
        ++rows;
      }
    }
  }
  EXPECT_GT(rows, 10);
  EXPECT_EQ(plan->split().micro_batch_count(), 1) << "predicted " << plan->split().time_ms << " ms";
}

class EngineCandidates : public UcudnnTest {};

TEST_F(EngineCandidates, HandleSetToEnginesPlansWithThemAndStaysExact) {
  SeededRng rng;
  CUDNN_OK(ucudnnSetCandidates(handle_, UCUDNN_CANDIDATES_ENGINES));
  UcudnnCandidates_t read_back = UCUDNN_CANDIDATES_BOTH;
  CUDNN_OK(ucudnnGetCandidates(handle_, &read_back));
  EXPECT_EQ(read_back, UCUDNN_CANDIDATES_ENGINES);
  EXPECT_EQ(ucudnnSetCandidates(handle_, static_cast<UcudnnCandidates_t>(7)), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ucudnnGetCandidates(handle_, nullptr), CUDNN_STATUS_BAD_PARAM);
  CUDNN_OK(ucudnnSetDefaultWorkspaceLimit(handle_, size_t{8} << 20));

  // A ResNet-like 3x3 layer in each precision people train with.
  for (cudnnDataType_t type : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}) {
    ConvSpec spec = square_conv_2d(32, 64, 64, 28, 3, 1);
    spec.data_type = type;
    spec.math = type == CUDNN_DATA_FLOAT ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
    spec.layout = type == CUDNN_DATA_FLOAT ? Layout::kNchw : Layout::kNhwc;
    ConvProblem p(spec);
    ASSERT_TRUE(p.ok);
    for (int op_index = 0; op_index < 3; ++op_index) {
      const auto op = static_cast<UcudnnConvolutionOp_t>(op_index);
      SCOPED_TRACE(spec.describe() + " op " + std::to_string(op));
      OpCheck check;
      check_op(handle_, plain_, p, op, 1.0f, 0.0f, rng, &check);
      if (HasFatalFailure()) return;
      ASSERT_EQ(check.first_algo, micro_batched_algo(op)) << ucudnnGetLastErrorMessage();
      ASSERT_FALSE(check.plan.runs.empty());
      for (const auto& run : check.plan.runs) {
        EXPECT_NE(ucudnn::kind_of_candidate(run.engine), ucudnn::CandidateKind::kLegacy)
            << "an engines-only plan ran legacy algorithm " << run.algo;
        EXPECT_EQ(run.algo, -1);
      }
      ASSERT_TRUE(check.reference_ran);
      EXPECT_LE(check.error, tolerance(spec, check.same_algorithm));
    }
  }
}

}  // namespace
}  // namespace ucudnn_test
