#include "optimize/wd_optimizer.h"

#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "core/units.h"

namespace ucudnn::optimize {
namespace {

struct ProblemDeleter {
  void operator()(glp_prob* problem) const { glp_delete_prob(problem); }
};
using Problem = std::unique_ptr<glp_prob, ProblemDeleter>;

std::size_t least_workspace(const std::vector<MicroBatchSplit>& front) {
  std::size_t least = front.front().workspace_bytes;
  for (const auto& plan : front) least = std::min(least, plan.workspace_bytes);
  return least;
}

// What makes the program unsolvable, found before GLPK sees it so that the message can say why;
// nothing when it can be solved.
std::optional<std::string> invalid_reason(const std::vector<WdKernel>& kernels,
                                          std::size_t total_workspace) {
  std::size_t needed = 0;
  for (const auto& kernel : kernels) {
    if (kernel.front.empty()) {
      return kernel.name + ": no micro-batch configuration covers its batch";
    }
    if (kernel.count < 1) {
      return kernel.name + ": runs " + std::to_string(kernel.count) +
             " times per iteration; expected at least once";
    }
    needed += least_workspace(kernel.front);
  }
  if (total_workspace < needed) {
    return "total workspace of " + format_byte_size(total_workspace) +
           " is infeasible: the kernels need at least " + format_byte_size(needed);
  }
  return std::nullopt;
}

const char* describe_intopt_failure(int code) {
  switch (code) {
    case GLP_EBOUND: return "invalid bounds";
    case GLP_EROOT: return "no optimal basis of the relaxation";
    case GLP_ENOPFS: return "no primal feasible solution";
    case GLP_ENODFS: return "no dual feasible solution";
    case GLP_EFAIL: return "solver failure";
    case GLP_EMIPGAP: return "stopped at the MIP gap tolerance";
    case GLP_ETMLIM: return "time limit exceeded";
    case GLP_ESTOP: return "stopped by the application";
    default: return "unknown error";
  }
}

// The budget row in MiB, not bytes. GLPK's branch and bound has tolerances made for numbers near
// 1: with byte counts (~1e10) as coefficients it reported worse choices as optimal in about 2% of
// small random programs. Dividing by 2^20 is exact in binary floating point (byte counts are
// exact in a double), so the program in MiB is the same program.
double in_mib(std::size_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

std::string format_seconds(double seconds) {
  std::ostringstream text;
  text << seconds << " s";
  return text.str();
}

// The program: one row per kernel, then the budget row (exclusions come later, as needed).
Problem build_program(const std::vector<WdKernel>& kernels, std::size_t total_workspace) {
  Problem problem(glp_create_prob());
  glp_prob* lp = problem.get();
  glp_set_obj_dir(lp, GLP_MIN);

  // Rows 1..K: each kernel picks exactly one configuration. Row K + 1: the budget.
  const int kernel_count = static_cast<int>(kernels.size());
  const int budget_row = kernel_count + 1;
  glp_add_rows(lp, budget_row);
  for (int k = 1; k <= kernel_count; ++k) glp_set_row_bnds(lp, k, GLP_FX, 1.0, 1.0);
  // Chosen workspaces add up to whole bytes: half a byte of slack changes no feasible set and
  // keeps exact fits clear of rounding.
  glp_set_row_bnds(lp, budget_row, GLP_UP, 0.0, in_mib(total_workspace) + in_mib(1) / 2);

  int variables = 0;
  for (const auto& kernel : kernels) variables += static_cast<int>(kernel.front.size());
  glp_add_cols(lp, variables);

  // The constraint matrix in GLPK's 1-based triplet form: at most two entries per column.
  std::vector<int> ia(1), ja(1);
  std::vector<double> ar(1);
  auto add_entry = [&](int row, int col, double value) {
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(value);
  };
  int column = 0;
  for (int k = 0; k < kernel_count; ++k) {
    for (const auto& plan : kernels[k].front) {
      ++column;
      glp_set_col_kind(lp, column, GLP_BV);
      glp_set_obj_coef(lp, column, kernels[k].count * plan.time_ms);
      add_entry(k + 1, column, 1.0);
      if (plan.workspace_bytes != 0) {
        add_entry(budget_row, column, in_mib(plan.workspace_bytes));
      }
    }
  }
  glp_load_matrix(lp, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  return problem;
}

// What a solve found: GLPK's last relative gap, and whether the time limit stopped it.
struct SolveOutcome {
  bool stopped_at_limit = false;
  double gap = 0.0;
};

// GLPK's branch and bound calls back at every step; the last gap it reports is the one kept.
void track_gap(glp_tree* tree, void* info) {
  if (glp_ios_reason(tree) == GLP_IBINGO || glp_ios_reason(tree) == GLP_ISELECT) {
    static_cast<SolveOutcome*>(info)->gap = glp_ios_mip_gap(tree);
  }
}

// A time limit reached before any choice is kTimeLimit; GLPK's own failures are kSolver.
std::optional<Error> solve(glp_prob* lp, double time_limit_seconds, SolveOutcome* outcome) {
  glp_term_out(GLP_OFF);  // a library prints nothing
  glp_iocp parameters;
  glp_init_iocp(&parameters);
  parameters.presolve = GLP_ON;  // solves the relaxation itself; no glp_simplex call first
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.tm_lim = static_cast<int>(std::clamp(time_limit_seconds * 1000.0, 1.0, 2e9));
  parameters.cb_func = track_gap;
  parameters.cb_info = outcome;
  const int code = glp_intopt(lp, &parameters);
  const char* limit_name = "the time limit (UCUDNN_WD_TIME_LIMIT, ucudnn plan --time-limit)";
  if (code == GLP_ETMLIM) {
    if (glp_mip_status(lp) != GLP_FEAS && glp_mip_status(lp) != GLP_OPT) {
      return Error::time_limit("workspace division: no choice found within " + format_seconds(time_limit_seconds) +
                               ", " + limit_name);
    }
    outcome->stopped_at_limit = glp_mip_status(lp) != GLP_OPT;
    return std::nullopt;
  }
  if (code != 0) {
    return Error::solver(std::string("workspace division: GLPK failed: ") + describe_intopt_failure(code));
  }
  if (glp_mip_status(lp) != GLP_OPT) return Error::solver("workspace division: GLPK found no optimal solution");
  return std::nullopt;
}

// Per kernel, the 1-based column of its chosen configuration.
std::vector<int> chosen_columns(glp_prob* lp, const std::vector<WdKernel>& kernels) {
  std::vector<int> chosen;
  int column = 0;
  for (const auto& kernel : kernels) {
    chosen.push_back(0);
    for (std::size_t c = 0; c < kernel.front.size(); ++c) {
      ++column;
      if (glp_mip_col_val(lp, column) > 0.5) chosen.back() = column;
    }
  }
  return chosen;
}

// Forbids exactly this combination: at most K - 1 of its K columns may be chosen again.
void exclude(glp_prob* lp, const std::vector<int>& columns) {
  const int row = glp_add_rows(lp, 1);
  const int size = static_cast<int>(columns.size());
  glp_set_row_bnds(lp, row, GLP_UP, 0.0, size - 1.0);
  std::vector<int> index(1);
  index.insert(index.end(), columns.begin(), columns.end());
  const std::vector<double> ones(columns.size() + 1, 1.0);
  glp_set_mat_row(lp, row, size, index.data(), ones.data());
}

// How often a combination over the budget may be excluded before giving up; each one is within
// GLPK's tolerance of the budget, and there are few such near misses.
constexpr int kMaxExclusions = 64;

}  // namespace

Expected<WdSolution> optimize_wd(const std::vector<WdKernel>& kernels, std::size_t total_workspace,
                                 double time_limit_seconds) {
  const auto start = std::chrono::steady_clock::now();
  if (auto reason = invalid_reason(kernels, total_workspace)) return Error::invalid(*reason);

  WdSolution solution;
  if (kernels.empty()) return solution;  // nothing to choose; GLPK rejects an empty program
  for (const auto& kernel : kernels) solution.variables += static_cast<int>(kernel.front.size());

  Problem problem = build_program(kernels, total_workspace);
  // GLPK checks the budget row within a tolerance relative to the budget (bytes at gigabytes),
  // so it may choose a combination a few bytes over it. The totals are checked here in exact
  // integers; such a combination is excluded and the program solved again.
  for (int attempt = 0;; ++attempt) {
    // Every solve of the loop draws on the one limit.
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    SolveOutcome outcome;
    if (auto failure = solve(problem.get(), std::max(time_limit_seconds - spent, 0.001), &outcome)) {
      return *failure;
    }
    solution.optimal = !outcome.stopped_at_limit;
    solution.gap = outcome.stopped_at_limit ? outcome.gap : 0.0;
    const std::vector<int> columns = chosen_columns(problem.get(), kernels);

    // Recompute the totals from the fronts, not from GLPK's rounded objective.
    solution.choice.clear();
    solution.time_ms = 0.0;
    solution.workspace_bytes = 0;
    int first_column = 1;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      if (columns[k] == 0) {
        return Error::solver("workspace division: GLPK chose nothing for " + kernels[k].name);
      }
      const MicroBatchSplit& plan = kernels[k].front[columns[k] - first_column];
      solution.choice.push_back(columns[k] - first_column);
      solution.time_ms += kernels[k].count * plan.time_ms;
      solution.workspace_bytes += plan.workspace_bytes;
      first_column += static_cast<int>(kernels[k].front.size());
    }
    if (solution.workspace_bytes <= total_workspace) break;
    if (attempt == kMaxExclusions) {
      return Error::solver("workspace division: GLPK keeps choosing more than the budget of " +
                           format_byte_size(total_workspace));
    }
    exclude(problem.get(), columns);
  }
  solution.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return solution;
}

}  // namespace ucudnn::optimize
