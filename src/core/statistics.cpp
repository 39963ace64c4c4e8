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

void Statistics::count_execution(ConvOp op, int micro_batches, bool replayed) {
  Atomics& a = ops_[static_cast<int>(op)];
  a.convolution_calls.fetch_add(1, std::memory_order_relaxed);
  if (micro_batches > 1) a.split_calls.fetch_add(1, std::memory_order_relaxed);
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

OpCounters Statistics::read(ConvOp op) const {
  const Atomics& a = ops_[static_cast<int>(op)];
  OpCounters c;
  c.convolution_calls = a.convolution_calls.load();
  c.split_calls = a.split_calls.load();
  c.replayed_calls = a.replayed_calls.load();
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
  out << "ucudnn: op    convolutions      split   replayed   captured  capture s      plain    queries    timings  "
         "benchmark s  solve s\n";
  for (ConvOp op : {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter}) {
    const OpCounters c = read(op);
    char line[256];
    std::snprintf(line, sizeof(line), "ucudnn: %-5s %12lld %10lld %10lld %10lld %10.3f %10lld %10lld %10lld %12.3f %8.3f\n",
                  short_name(op), c.convolution_calls, c.split_calls, c.replayed_calls, c.captures, c.capture_seconds,
                  c.plain_calls, c.algorithm_queries, c.timings, c.benchmark_seconds, c.solve_seconds);
    out << line;
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
