#include "core/statistics.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ucudnn {
namespace {

long long to_ns(double seconds) { return static_cast<long long>(seconds * 1e9); }

}  // namespace

Statistics& Statistics::instance() {
  static Statistics* statistics = new Statistics();  // never destroyed: read by the exit hook
  return *statistics;
}

void Statistics::count_execution(ConvOp op, const ExecutedSplit& split, bool replayed) {
  Atomics& a = ops_[static_cast<int>(op)];
  a.convolution_calls.fetch_add(1, std::memory_order_relaxed);
  if (split.micro_batches > 1) a.split_calls.fetch_add(1, std::memory_order_relaxed);
  if (split.channel_pieces) a.channel_piece_calls.fetch_add(1, std::memory_order_relaxed);
  if (split.fp32_sums) a.fp32_sum_calls.fetch_add(1, std::memory_order_relaxed);
  if (split.padded_input) a.padded_input_calls.fetch_add(1, std::memory_order_relaxed);
  if (replayed) a.replayed_calls.fetch_add(1, std::memory_order_relaxed);
}

void Statistics::add_capture(ConvOp op, double seconds) {
  Atomics& a = ops_[static_cast<int>(op)];
  a.captures.fetch_add(1, std::memory_order_relaxed);
  a.capture_ns.fetch_add(to_ns(seconds), std::memory_order_relaxed);
}

void Statistics::count_plain(ConvOp op) {
  Atomics& a = ops_[static_cast<int>(op)];
  a.convolution_calls.fetch_add(1, std::memory_order_relaxed);
  a.plain_calls.fetch_add(1, std::memory_order_relaxed);
}

void Statistics::count_legacy_call() { legacy_calls_.fetch_add(1, std::memory_order_relaxed); }

void Statistics::count_graph_plan(bool intercepted) {
  (intercepted ? graph_intercepted_ : graph_passed_).fetch_add(1, std::memory_order_relaxed);
}

void Statistics::count_graph_plan_kept() { graph_kept_.fetch_add(1, std::memory_order_relaxed); }

void Statistics::count_graph_offer() { graph_offers_.fetch_add(1, std::memory_order_relaxed); }

void Statistics::count_graph_offer_planned() { graph_offers_planned_.fetch_add(1, std::memory_order_relaxed); }

void Statistics::count_graph_execution() { graph_executions_.fetch_add(1, std::memory_order_relaxed); }

void Statistics::count_dlopen_redirect() { dlopen_redirects_.fetch_add(1, std::memory_order_relaxed); }

FrontEndCounters Statistics::read_front_ends() const {
  FrontEndCounters c;
  c.legacy_calls = legacy_calls_.load();
  c.graph_plans_intercepted = graph_intercepted_.load();
  c.graph_plans_passed = graph_passed_.load();
  c.graph_plans_kept = graph_kept_.load();
  c.graph_executions = graph_executions_.load();
  c.dlopen_redirects = dlopen_redirects_.load();
  c.graph_offers = graph_offers_.load();
  c.graph_offers_planned = graph_offers_planned_.load();
  return c;
}

void Statistics::count_query(ConvOp op) {
  ops_[static_cast<int>(op)].algorithm_queries.fetch_add(1, std::memory_order_relaxed);
}

void Statistics::add_benchmarking(ConvOp op, double seconds, long long timings) {
  Atomics& a = ops_[static_cast<int>(op)];
  a.benchmark_ns.fetch_add(to_ns(seconds), std::memory_order_relaxed);
  a.timings.fetch_add(timings, std::memory_order_relaxed);
}

void Statistics::add_solving(ConvOp op, double seconds) {
  ops_[static_cast<int>(op)].solve_ns.fetch_add(to_ns(seconds), std::memory_order_relaxed);
}

void Statistics::add_division(double seconds) {
  divisions_.fetch_add(1, std::memory_order_relaxed);
  division_ns_.fetch_add(to_ns(seconds), std::memory_order_relaxed);
}

void Statistics::add_search_time(ConvOp op, SearchPhase phase, double seconds) {
  ops_[static_cast<int>(op)].search_ns[static_cast<int>(phase)].fetch_add(to_ns(seconds), std::memory_order_relaxed);
}

void Statistics::count_search(ConvOp op, SearchCount what, long long n) {
  ops_[static_cast<int>(op)].search_counts[static_cast<int>(what)].fetch_add(n, std::memory_order_relaxed);
}

SearchCounters Statistics::read_search(ConvOp op) const {
  const Atomics& a = ops_[static_cast<int>(op)];
  SearchCounters c;
  for (std::size_t i = 0; i < c.seconds.size(); ++i) c.seconds[i] = static_cast<double>(a.search_ns[i].load()) * 1e-9;
  for (std::size_t i = 0; i < c.counts.size(); ++i) c.counts[i] = a.search_counts[i].load();
  return c;
}

OpCounters Statistics::read(ConvOp op) const {
  const Atomics& a = ops_[static_cast<int>(op)];
  OpCounters c;
  c.convolution_calls = a.convolution_calls.load();
  c.split_calls = a.split_calls.load();
  c.replayed_calls = a.replayed_calls.load();
  c.channel_piece_calls = a.channel_piece_calls.load();
  c.fp32_sum_calls = a.fp32_sum_calls.load();
  c.padded_input_calls = a.padded_input_calls.load();
  c.captures = a.captures.load();
  c.capture_seconds = static_cast<double>(a.capture_ns.load()) * 1e-9;
  c.plain_calls = a.plain_calls.load();
  c.algorithm_queries = a.algorithm_queries.load();
  c.timings = a.timings.load();
  c.benchmark_seconds = static_cast<double>(a.benchmark_ns.load()) * 1e-9;
  c.solve_seconds = static_cast<double>(a.solve_ns.load()) * 1e-9;
  return c;
}

std::string Statistics::report() const {
  std::ostringstream out;
  out << "ucudnn: op    convolutions      split     pieces  fp32-sums     padded   replayed   captured  capture s      "
         "plain    "
         "queries    timings  benchmark s  solve s\n";
  for (ConvOp op : kConvOps) {
    const OpCounters c = read(op);
    char line[256];
    std::snprintf(
        line, sizeof(line),
        "ucudnn: %-5s %12lld %10lld %10lld %10lld %10lld %10lld %10lld %10.3f %10lld %10lld %10lld %12.3f %8.3f\n",
        short_name(op), c.convolution_calls, c.split_calls, c.channel_piece_calls, c.fp32_sum_calls,
        c.padded_input_calls, c.replayed_calls, c.captures, c.capture_seconds, c.plain_calls, c.algorithm_queries,
        c.timings, c.benchmark_seconds, c.solve_seconds);
    out << line;
  }
  out << "ucudnn: op    search s: setup  heuristics     find  plan build   timing  database | plans built"
         "  timed  cut short  not timed  sizes  sizes skipped  new batches\n";
  for (ConvOp op : kConvOps) {
    const SearchCounters s = read_search(op);
    char line[256];
    std::snprintf(line, sizeof(line),
                  "ucudnn: %-5s %15.3f %11.3f %8.3f %11.3f %8.3f %9.3f | %11lld %6lld %10lld %10lld %6lld %14lld %12lld\n",
                  short_name(op), s.phase(SearchPhase::kSetup), s.phase(SearchPhase::kHeuristics),
                  s.phase(SearchPhase::kFind), s.phase(SearchPhase::kPlanBuild), s.phase(SearchPhase::kTiming),
                  s.phase(SearchPhase::kDatabase), s.count(SearchCount::kPlansBuilt),
                  s.count(SearchCount::kTimedInFull), s.count(SearchCount::kCutShort), s.count(SearchCount::kNotTimed),
                  s.count(SearchCount::kSizesMeasured), s.count(SearchCount::kSizesSkipped),
                  s.count(SearchCount::kNewBatchSizes));
    out << line;
  }
  const FrontEndCounters f = read_front_ends();
  std::string active;
  auto add = [&](bool on, const char* name) {
    if (on) active += (active.empty() ? "" : ", ") + std::string(name);
  };
  add(f.legacy_calls > 0, "legacy API");
  add(f.graph_plans_intercepted + f.graph_plans_passed > 0, "graph API");
  add(f.dlopen_redirects > 0, "dlopen");
  out << "ucudnn: front-ends active: " << (active.empty() ? "none" : active) << "\n";
  out << "ucudnn: graph API: " << f.graph_plans_intercepted << " plans intercepted, " << f.graph_plans_passed
      << " passed through, " << f.graph_executions << " executions; " << f.graph_plans_kept
      << " kept as the program built them (their workspace fits the limit or memory budget)\n";
  if (f.graph_offers > 0) {
    out << "ucudnn: graph API: " << f.graph_offers << " micro-batch offers, " << f.graph_offers_planned
        << " of their plans planned by ucudnn (made only for sizes cuDNN's first configuration does not fit)\n";
  }
  if (divisions() > 0) {
    out << "ucudnn: workspace divisions " << divisions() << ", solved in " << division_seconds() << " s\n";
  }
  return out.str();
}

void Statistics::print_at_exit() {
  if (exit_hook_.exchange(true)) return;
  std::atexit([] { std::fputs(Statistics::instance().report().c_str(), stderr); });
}

}  // namespace ucudnn
