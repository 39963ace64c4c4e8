// The operations on a whole file (what `ucudnn db` merges, exports, imports, counts and
// verifies), each one transaction of BenchmarkDatabase (store/database.h); the rows a planner
// looks up and stores one kernel at a time are in database.cpp.
#include <sqlite3.h>

#include "store/database.h"
#include "store/file_state.h"
#include "store/inspect.h"
#include "store/rows.h"
#include "store/schema.h"

namespace ucudnn::store {

Expected<MergeCounts> BenchmarkDatabase::merge_from(BenchmarkDatabase& source) {
  const std::string into = "benchmark database '" + path_ + "'";
  const std::string from = "benchmark database '" + source.path_ + "'";
  if (&source == this || store::same_file(source.file_, file_)) {
    return Error{ErrorCode::kBadParam, from + " is the target itself: nothing to merge"};
  }
  if (read_only_) return Error{ErrorCode::kStorage, into + " is read-only: " + read_only_reason_};
  // Rows stream from the source's read transaction into this one's write transaction, a row at a
  // time (memory does not grow with the source); rows and coverage are read in one read
  // transaction, so a bound read never covers rows that were not. A bad source row anywhere
  // rolls the whole write back: nothing merged.
  MergeCounts counts;
  long long rows_read = 0;
  std::optional<std::string> source_problem;  // where the source failed (prefix), not this file
  auto done = transaction(true, [&]() -> Status {
    source_problem.reset();
    UCUDNN_TRY_ASSIGN(store::RowWriter writer, store::RowWriter::prepare(db_.get()));
    const Status read = source.read_rows([&](store::RowReader& reader) -> Status {
      rows_read = 0;  // a read retried from the start meets its rows again, inserted already
      std::size_t index = 0;
      UCUDNN_TRY(reader.for_each_row([&](const StoredRow& row) -> Status {
        ++rows_read;
        const Status checked = store::check_row(row, index++);
        if (!checked) {
          source_problem = from + ": nothing merged: ";
          return checked;
        }
        return writer.insert(row);
      }));
      std::size_t bound_index = 0;
      return reader.for_each_coverage([&](const store::CoverageRow& bound) -> Status {
        const Status checked = store::check_coverage_row(bound, bound_index++);
        if (!checked) {
          source_problem = from + ": nothing merged: ";
          return checked;
        }
        return writer.raise_coverage(bound);
      });
    });
    if (!read && !source_problem && read.message().rfind(from, 0) == 0) source_problem = "nothing merged: ";
    UCUDNN_TRY(read);
    counts.rows_added = writer.inserted();
    counts.coverage_raised = writer.coverage_raised();
    return Status::success();
  });
  if (!done && source_problem) return done.error().prefixed(*source_problem);
  if (!done) return done.error().prefixed(into + ": merge failed, nothing merged: ");
  counts.rows_present = rows_read - counts.rows_added;
  return counts;
}

Expected<std::vector<StoredRow>> BenchmarkDatabase::all_rows() {
  std::vector<StoredRow> rows;
  auto done = transaction(false, [&]() -> Status {
    rows.clear();
    UCUDNN_TRY_ASSIGN(const int version, store::readable_version(db_.get()));
    if (version == 0) return Status::success();
    UCUDNN_TRY_ASSIGN(rows, store::read_all_rows(db_.get(), version));
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  return rows;
}

Expected<DatabaseStats> BenchmarkDatabase::stats() {
  DatabaseStats stats;
  auto done = transaction(false, [&]() -> Status {
    UCUDNN_TRY_ASSIGN(stats, store::read_stats(db_.get()));
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  return stats;
}

Expected<Verification> BenchmarkDatabase::verify() {
  std::string problem;
  Verification checked;
  auto done = transaction(false, [&]() -> Status {
    checked = Verification{};  // a transaction retried after a lock starts over
    UCUDNN_TRY_ASSIGN(problem, store::verification_problems(db_.get(), &checked));
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  if (!problem.empty())
    return Error{ErrorCode::kStorage, "benchmark database '" + path_ + "' failed verification: " + problem};
  return checked;
}

Expected<long long> BenchmarkDatabase::store_streamed_rows(const RowSource& source, std::size_t measured_up_to) {
  const std::string where = "benchmark database '" + path_ + "'";
  if (read_only_) return Error{ErrorCode::kStorage, where + " is read-only: " + read_only_reason_};
  long long inserted = 0;
  std::optional<std::string> refused;  // how the database refused a row, where it did
  bool source_failed = false;          // the source's own error (a bad line of a table)
  auto done = transaction(true, [&]() -> Status {
    refused.reset();
    UCUDNN_TRY_ASSIGN(store::RowWriter writer, store::RowWriter::prepare(db_.get()));
    std::size_t index = 0;
    Status read = source([&](const StoredRow& row) -> Status {
      Status stored = store::check_row(row, index++);
      if (!stored) {
        refused = ": nothing stored: ";
        return stored;
      }
      stored = writer.insert(row);
      const store::KernelKey kernel{row.identity, row.op, row.layer, row.measurement.micro_batch};
      if (stored) stored = writer.raise_coverage(kernel, row.measurement.candidate.kind, measured_up_to);
      if (!stored) refused = ": store failed: ";
      return stored;
    });
    source_failed = !read.ok() && !refused;
    UCUDNN_TRY(read);
    inserted = writer.inserted();
    return Status::success();
  });
  if (done) return inserted;
  if (source_failed) return done.error();
  return done.error().prefixed(where + refused.value_or(": store failed: "));
}

Status BenchmarkDatabase::read_rows(const std::function<Status(store::RowReader&)>& body) {
  std::optional<std::string> body_error;  // the body's last error, returned as it gave it
  auto done = transaction(false, [&]() -> Status {
    body_error.reset();
    UCUDNN_TRY_ASSIGN(const int version, store::readable_version(db_.get()));
    // Before the reader walks kernels by the unique index, which reads whole entries.
    UCUDNN_TRY(store::stored_values_readable(db_.get(), version));
    store::RowReader reader(db_.get(), version, "benchmark database '" + path_ + "': ");
    Status read = body(reader);
    if (!read) body_error = read.message();
    return read;
  });
  // Any other error (a lock held past the deadline after a retried body included) names this file.
  if (done || (body_error && done.message() == *body_error)) return done;
  return done.error().prefixed("benchmark database '" + path_ + "': ");
}

}  // namespace ucudnn::store
