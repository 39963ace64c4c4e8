// Schema version 3 of the benchmark database through its public interface: legacy algorithms and
// engine configurations are stored, covered and looked up separately, each row with its host
// time; a version-1 or version-2 file (built with that version's own DDL,
// tests/cpu/version_1_database.h and version_2_database.h) is upgraded in one transaction losing
// nothing, or rolled back to a valid older version; read-only, it is read as it is; a file of a
// newer version is refused untouched.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_layer.h"
#include "database_test_support.h"
#include "measurement_rows.h"
#include "sqlite_rows.h"
#include "store/database.h"
#include "test_helpers.h"
#include "version_1_database.h"
#include "version_2_database.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
using store::StoredRow;
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// An engine's row, nondeterministic: a column the schema must keep.
Measurement engine(int micro_batch, const std::string& id, double time_ms, std::size_t workspace = 0) {
  Measurement m = testing::engine_row(micro_batch, id, time_ms, workspace);
  m.deterministic = false;
  return m;
}

BenchmarkDatabase::Options rollback_journal(bool read_only = false) {
  BenchmarkDatabase::Options options;
  options.journal = JournalMode::kDelete;
  options.read_only = read_only;
  return options;
}

// ---- reading the file as SQLite sees it, independently of the code under test -----------------

std::vector<std::vector<std::string>> query(const std::string& path, const std::string& sql) {
  return sqlite_rows(path, sql);
}

std::string schema_version(const std::string& path) {
  const auto rows = query(path, "SELECT value FROM meta WHERE key = 'schema_version'");
  return rows.size() == 1 ? rows[0][0] : "?";
}

// Runs `sql` on the file with SQLite alone, behind the code under test's back.
void execute(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  const int rc = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  ASSERT_EQ(rc, SQLITE_OK) << sql;
}

// Makes the last step of any upgrade (recording the new version) fail.
constexpr const char* kFreezeMeta =
    "CREATE TRIGGER frozen BEFORE UPDATE ON meta BEGIN SELECT RAISE(ABORT, 'meta is frozen'); END";

std::vector<std::string> column_names(const std::string& path, const std::string& pragma, const std::string& object) {
  std::vector<std::string> names;
  for (const auto& row : query(path, "SELECT name FROM " + pragma + "('" + object + "')")) names.push_back(row[0]);
  return names;
}

// What makes two schemas the same for the code: every table's columns, the primary key of
// coverage and the columns of the unique index.
std::vector<std::vector<std::string>> structure(const std::string& path) {
  return {
      column_names(path, "pragma_table_info", "measurements"), column_names(path, "pragma_table_info", "coverage"),
      column_names(path, "pragma_index_info", "measurements_key"), [&] {
        std::vector<std::string> key;
        for (const auto& row : query(path, "SELECT name FROM pragma_table_info('coverage') WHERE pk > 0 ORDER BY pk")) {
          key.push_back(row[0]);
        }
        return key;
      }()};
}

// ---- a version-1 file -----------------------------------------------------------------------

// Three kernels of legacy rows: complete for any limit, up to 64 MiB, and one covered without
// rows (every candidate needed more workspace than the bound).
struct Version1File {
  std::vector<Version1Row> rows;
  std::vector<Version1Coverage> coverage;
};

Version1File version_1_content() {
  Version1File file;
  const std::int64_t bounds[] = {std::numeric_limits<std::int64_t>::max(), std::int64_t{64} << 20, 1024};
  for (int k = 0; k < 3; ++k) {
    const ConvKey key = layer_key(k, 4);
    if (k < 2) {
      for (int algo = 0; algo < 4; ++algo) {
        file.rows.push_back(Version1Row{"fwd", key.layer_signature(), 4, algo, algo % 2, algo != 3, 1.0 + algo + k,
                                        std::int64_t{algo} << 20});
      }
    }
    file.coverage.push_back(Version1Coverage{"fwd", key.layer_signature(), 4, bounds[k]});
  }
  return file;
}

std::string write_version_1(const TempDir& dir, const std::string& name) {
  const std::string path = (dir.path() / name).string();
  const Version1File content = version_1_content();
  EXPECT_TRUE(testing::write_version_1_database(path, test_gpu(), content.rows, content.coverage));
  EXPECT_EQ(schema_version(path), "1");
  return path;
}

// Every stored row as text, in the key's order; `engine` is the expression for the engine column.
std::vector<std::vector<std::string>> stored_rows(const std::string& path, const std::string& engine = "''") {
  return query(path,
               "SELECT gpu_name, op, layer, micro_batch, algo, math_type, deterministic, time_ms, "
               "workspace_bytes, measured_at, " +
                   engine + " FROM measurements ORDER BY layer, micro_batch, algo");
}

// Legacy lookups of the version-1 content give back every row and bound.
void expect_version_1_lookups(BenchmarkDatabase& db) {
  const Version1File content = version_1_content();
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE("kernel " + std::to_string(k));
    auto found = db.lookup(test_gpu(), layer_key(k, 4), CandidateKind::kLegacy);
    ASSERT_TRUE(found.ok()) << found.message();
    ASSERT_TRUE(found->has_value());
    const std::size_t bound = k == 0 ? SIZE_MAX : static_cast<std::size_t>(content.coverage[k].measured_up_to);
    EXPECT_EQ((*found)->measured_up_to, bound);
    EXPECT_EQ((*found)->rows.size(), k < 2 ? 4u : 0u);
    for (const Measurement& m : (*found)->rows) {
      EXPECT_EQ(m.candidate.kind, CandidateKind::kLegacy);
      EXPECT_DOUBLE_EQ(m.time_ms, 1.0 + m.candidate.algorithm + k);
      EXPECT_EQ(m.candidate.math_type, m.candidate.algorithm % 2);
      EXPECT_EQ(m.deterministic, m.candidate.algorithm != 3);
    }
    auto engines = db.lookup(test_gpu(), layer_key(k, 4), CandidateKind::kEngine);
    ASSERT_TRUE(engines.ok()) << engines.message();
    EXPECT_FALSE(engines->has_value()) << "a version-1 file has no engine coverage";
  }
}

TEST(DatabaseSchema, Version1FileOpenedWritableIsUpgradedLosingNothing) {
  TempDir dir;
  const std::string path = write_version_1(dir, "v1.db");
  const auto before = stored_rows(path);
  const auto coverage_before =
      query(path, "SELECT gpu_name, op, layer, micro_batch, measured_up_to FROM coverage ORDER BY layer");
  ASSERT_EQ(before.size(), 8u);

  {
    auto db = BenchmarkDatabase::open(path, rollback_journal());
    ASSERT_TRUE(db.ok()) << db.message();
    EXPECT_FALSE((*db)->read_only());
    EXPECT_EQ(schema_version(path), "3");
    EXPECT_EQ(stored_rows(path, "engine"), before) << "every row kept, each with an empty engine";
    EXPECT_EQ(query(path, "SELECT gpu_name, op, layer, micro_batch, measured_up_to FROM coverage ORDER BY layer"),
              coverage_before);
    EXPECT_EQ(query(path, "SELECT DISTINCT candidates FROM coverage"), (std::vector<std::vector<std::string>>{{"0"}}))
        << "old coverage is the legacy kind's";
    EXPECT_TRUE(query(path, "SELECT name FROM sqlite_master WHERE name = 'coverage_version_1'").empty());
    EXPECT_TRUE((*db)->verify().ok()) << (*db)->verify().message();
    expect_version_1_lookups(**db);
    auto rows = (*db)->all_rows();
    ASSERT_TRUE(rows.ok()) << rows.message();
    EXPECT_EQ(rows->size(), before.size());
  }
  // The upgraded file has the very structure of a new one.
  const std::string fresh = (dir.path() / "new.db").string();
  ASSERT_TRUE(BenchmarkDatabase::open(fresh, rollback_journal()).ok());
  EXPECT_EQ(structure(path), structure(fresh));
  EXPECT_EQ(schema_version(fresh), "3");

  // Opened again it is a version-3 file like any other: engine rows join the legacy ones.
  auto again = BenchmarkDatabase::open(path, rollback_journal());
  ASSERT_TRUE(again.ok()) << again.message();
  expect_version_1_lookups(**again);
  ASSERT_TRUE((*again)
                  ->store(test_gpu(), layer_key(0, 4), CandidateKind::kEngine, 8 * kMiB, {engine(4, "eng3:k1=0", 0.5)})
                  .ok());
  const auto engines = (*again)->lookup(test_gpu(), layer_key(0, 4), CandidateKind::kEngine);
  ASSERT_TRUE(engines.ok() && engines->has_value()) << engines.message();
  EXPECT_EQ((*engines)->rows.size(), 1u);
  EXPECT_EQ((*engines)->measured_up_to, 8 * kMiB);
  EXPECT_EQ((*(*again)->lookup(test_gpu(), layer_key(0, 4), CandidateKind::kLegacy))->rows.size(), 4u);
  EXPECT_EQ(schema_version(path), "3");
}

TEST(DatabaseSchema, AnUpgradeThatFailsIsRolledBackAndTheFileStaysVersion1) {
  TempDir dir;
  const std::string path = write_version_1(dir, "v1.db");
  // The last step of the upgrade (recording version 2) fails: everything before it must go too.
  ASSERT_NO_FATAL_FAILURE(execute(path, kFreezeMeta));
  const std::string bytes = read_bytes(path);
  const auto rows = stored_rows(path);
  const auto structure_before = structure(path);

  auto refused = BenchmarkDatabase::open(path, rollback_journal());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("cannot upgrade it from schema version 1 to 3"), std::string::npos)
      << refused.message();
  EXPECT_NE(refused.message().find("meta is frozen"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find(path), std::string::npos) << refused.message();
  EXPECT_EQ(refused.message().find('\n'), std::string::npos) << "one line";
  EXPECT_EQ(read_bytes(path), bytes) << "rolled back to the byte";
  EXPECT_EQ(schema_version(path), "1");
  EXPECT_EQ(stored_rows(path), rows);
  EXPECT_EQ(structure(path), structure_before);
  EXPECT_EQ(query(path, "PRAGMA integrity_check"), (std::vector<std::vector<std::string>>{{"ok"}}));

  // Still a valid version 1: read as it is, and upgraded once the obstacle is gone.
  {
    auto looking = BenchmarkDatabase::open(path, rollback_journal(true));
    ASSERT_TRUE(looking.ok()) << looking.message();
    expect_version_1_lookups(**looking);
  }
  ASSERT_NO_FATAL_FAILURE(execute(path, "DROP TRIGGER frozen"));
  auto upgraded = BenchmarkDatabase::open(path, rollback_journal());
  ASSERT_TRUE(upgraded.ok()) << upgraded.message();
  EXPECT_EQ(schema_version(path), "3");
  EXPECT_EQ(stored_rows(path, "engine"), rows);
}

// Checks of a version-1 file opened read-only, in this process or a child; returns a code.
int look_at_version_1(const std::string& path, bool ask_read_only) {
  auto db = BenchmarkDatabase::open(path, rollback_journal(ask_read_only));
  if (!db) {
    std::fprintf(stderr, "open: %s\n", db.message().c_str());
    return 11;
  }
  if (!(*db)->read_only()) return 12;
  for (int k = 0; k < 2; ++k) {
    auto found = (*db)->lookup(test_gpu(), layer_key(k, 4), CandidateKind::kLegacy);
    if (!found || !found.value() || found.value()->rows.size() != 4) return 13;
    auto engines = (*db)->lookup(test_gpu(), layer_key(k, 4), CandidateKind::kEngine);
    if (!engines || engines.value()) return 14;
  }
  auto rows = (*db)->all_rows();
  if (!rows || rows->size() != 8 || rows->front().measurement.candidate.kind != CandidateKind::kLegacy) return 15;
  auto stats = (*db)->stats();
  if (!stats || stats->rows != 8 || stats->engine_rows != 0) return 16;
  if (auto verified = (*db)->verify(); !verified) {
    std::fprintf(stderr, "verify: %s\n", verified.message().c_str());
    return 17;
  }
  if ((*db)->store(test_gpu(), layer_key(5, 4), CandidateKind::kLegacy, SIZE_MAX, {legacy_row(4, 0, 1.0)})) return 18;
  return 0;
}

// The choice for a version-1 file that is not upgraded: it is read with version 1's queries.
TEST(DatabaseSchema, ReadOnlyVersion1FileServesLegacyLookupsAndStaysVersion1) {
  TempDir dir;
  const std::string path = write_version_1(dir, "v1.db");
  const std::string bytes = read_bytes(path);

  // Asked read-only (as the db export, stats and verify commands open it): never upgraded.
  EXPECT_EQ(look_at_version_1(path, true), 0)
      << "11 open, 12 not read-only, 13 legacy lookup, 14 engine lookup, 15 all_rows, 16 stats, 17 verify, 18 store";
  EXPECT_EQ(read_bytes(path), bytes);

  // A file this process cannot write.
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  const int status = testing::exit_status_as_unprivileged([&] { return look_at_version_1(path, false); }, dir.path());
  EXPECT_EQ(status, 0) << "10 setuid, 11 open, 12 not read-only, 13 legacy lookup, 14 engine lookup, "
                                       "15 all_rows, 16 stats, 17 verify, 18 store";
  EXPECT_EQ(read_bytes(path), bytes);
  EXPECT_EQ(schema_version(path), "1");
}

TEST(DatabaseSchema, FileOfANewerVersionIsRefusedUntouched) {
  TempDir dir;
  const std::string path = (dir.path() / "v4.db").string();
  ASSERT_TRUE(BenchmarkDatabase::open(path, rollback_journal()).ok());
  ASSERT_NO_FATAL_FAILURE(execute(path, "UPDATE meta SET value = '4' WHERE key = 'schema_version'"));
  const std::string bytes = read_bytes(path);
  for (const bool read_only : {false, true}) {
    auto refused = BenchmarkDatabase::open(path, rollback_journal(read_only));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("schema version 4 is newer than this ucudnn's 3"), std::string::npos)
        << refused.message();
    EXPECT_EQ(read_bytes(path), bytes);
  }
}

// ---- a version-2 file: rows without host times -------------------------------------------------


// One kernel with two legacy rows and two engine rows, each kind covered.
std::string write_version_2(const TempDir& dir, const std::string& name) {
  const std::string path = (dir.path() / name).string();
  const std::string layer = layer_key(0, 4).layer_signature();
  const std::vector<Version2Row> rows = {
      {{"fwd", layer, 4, 0, 0, 1, 2.0, 0}, ""},
      {{"fwd", layer, 4, 1, 1, 1, 1.5, std::int64_t{1} << 20}, ""},
      {{"fwd", layer, 4, -1, 0, 0, 0.5, 4096}, "eng12:k3=1,k17=0"},
      {{"fwd", layer, 4, -1, 0, 0, 0.25, 0}, "eng0"},
  };
  const std::vector<Version2Coverage> coverage = {{{"fwd", layer, 4, std::numeric_limits<std::int64_t>::max()}, 0},
                                                  {{"fwd", layer, 4, std::int64_t{64} << 20}, 1}};
  EXPECT_TRUE(testing::write_version_2_database(path, test_gpu(), rows, coverage));
  EXPECT_EQ(schema_version(path), "2");
  return path;
}

// The version-2 content through lookups: every row, each with host time 0 (not measured).
void expect_version_2_lookups(BenchmarkDatabase& db) {
  auto legacy_rows = db.lookup(test_gpu(), layer_key(0, 4), CandidateKind::kLegacy);
  ASSERT_TRUE(legacy_rows.ok() && legacy_rows->has_value()) << legacy_rows.message();
  EXPECT_EQ((*legacy_rows)->measured_up_to, SIZE_MAX);
  ASSERT_EQ((*legacy_rows)->rows.size(), 2u);
  auto engines = db.lookup(test_gpu(), layer_key(0, 4), CandidateKind::kEngine);
  ASSERT_TRUE(engines.ok() && engines->has_value()) << engines.message();
  EXPECT_EQ((*engines)->measured_up_to, 64 * kMiB);
  ASSERT_EQ((*engines)->rows.size(), 2u);
  for (const auto* found : {&legacy_rows, &engines}) {
    for (const Measurement& m : (**found)->rows) {
      EXPECT_EQ(m.host_ms, 0.0) << m.candidate.engine_id;
      EXPECT_EQ(m.cost_ms(), m.time_ms) << "planned on the GPU's time, as before";
    }
  }
}

TEST(DatabaseSchema, Version2FileOpenedWritableIsUpgradedLosingNothing) {
  TempDir dir;
  const std::string path = write_version_2(dir, "v2.db");
  const auto before = stored_rows(path, "engine");
  const auto coverage_before = query(path, "SELECT * FROM coverage ORDER BY candidates");
  {
    auto db = BenchmarkDatabase::open(path, rollback_journal());
    ASSERT_TRUE(db.ok()) << db.message();
    EXPECT_EQ(schema_version(path), "3");
    EXPECT_EQ(stored_rows(path, "engine"), before) << "every row kept";
    EXPECT_EQ(query(path, "SELECT DISTINCT host_ms FROM measurements"),
              (std::vector<std::vector<std::string>>{{"0.0"}}));
    EXPECT_EQ(query(path, "SELECT * FROM coverage ORDER BY candidates"), coverage_before);
    EXPECT_TRUE((*db)->verify().ok()) << (*db)->verify().message();
    expect_version_2_lookups(**db);
  }
  const std::string fresh = (dir.path() / "new.db").string();
  ASSERT_TRUE(BenchmarkDatabase::open(fresh, rollback_journal()).ok());
  EXPECT_EQ(structure(path), structure(fresh));

  // A row with its host time joins them, and reads back with it.
  auto again = BenchmarkDatabase::open(path, rollback_journal());
  ASSERT_TRUE(again.ok()) << again.message();
  Measurement timed = legacy_row(8, 1, 0.01);
  timed.host_ms = 0.03;
  ASSERT_TRUE((*again)->store(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy, SIZE_MAX, {timed}).ok());
  const auto found = (*again)->lookup(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy);
  ASSERT_TRUE(found.ok() && found->has_value()) << found.message();
  ASSERT_EQ((*found)->rows.size(), 1u);
  EXPECT_DOUBLE_EQ((*found)->rows[0].host_ms, 0.03);
  EXPECT_DOUBLE_EQ((*found)->rows[0].cost_ms(), 0.03) << "the host's time is the longer";
  auto all = (*again)->all_rows();
  ASSERT_TRUE(all.ok()) << all.message();
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ(std::count_if(all->begin(), all->end(), [](const StoredRow& r) { return r.measurement.host_ms == 0.03; }),
            1);
}

TEST(DatabaseSchema, AVersion2UpgradeThatFailsIsRolledBackAndTheFileStaysVersion2) {
  TempDir dir;
  const std::string path = write_version_2(dir, "v2.db");
  ASSERT_NO_FATAL_FAILURE(execute(path, kFreezeMeta));
  const std::string bytes = read_bytes(path);
  auto refused = BenchmarkDatabase::open(path, rollback_journal());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("cannot upgrade it from schema version 2 to 3 (it stays a valid version 2)"),
            std::string::npos)
      << refused.message();
  EXPECT_EQ(read_bytes(path), bytes) << "rolled back to the byte";
  auto looking = BenchmarkDatabase::open(path, rollback_journal(true));
  ASSERT_TRUE(looking.ok()) << looking.message();
  expect_version_2_lookups(**looking);
}

TEST(DatabaseSchema, ReadOnlyVersion2FileIsReadAsItIs) {
  TempDir dir;
  const std::string path = write_version_2(dir, "v2.db");
  const std::string bytes = read_bytes(path);
  auto db = BenchmarkDatabase::open(path, rollback_journal(true));
  ASSERT_TRUE(db.ok()) << db.message();
  EXPECT_TRUE((*db)->read_only());
  expect_version_2_lookups(**db);
  auto all = (*db)->all_rows();
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_EQ(all->size(), 4u);
  EXPECT_TRUE((*db)->verify().ok()) << (*db)->verify().message();
  EXPECT_EQ(read_bytes(path), bytes);
  EXPECT_EQ(schema_version(path), "2");
}

TEST(DatabaseSchema, RowsWithoutAValidHostTimeAreRefusedWhole) {
  TempDir dir;
  auto db = BenchmarkDatabase::open((dir.path() / "bad.db").string(), rollback_journal());
  ASSERT_TRUE(db.ok()) << db.message();
  for (const double host : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    Measurement bad = legacy_row(4, 1, 0.5);
    bad.host_ms = host;
    const Status stored =
        (*db)->store(test_gpu(), layer_key(0, 4), CandidateKind::kLegacy, SIZE_MAX, {legacy_row(4, 0, 1.0), bad});
    ASSERT_FALSE(stored.ok());
    EXPECT_NE(stored.message().find("host time"), std::string::npos) << stored.message();
    auto found = (*db)->lookup(test_gpu(), layer_key(0, 4), CandidateKind::kLegacy);
    ASSERT_TRUE(found.ok()) << found.message();
    EXPECT_FALSE(found->has_value()) << "nothing stored";
  }
}

// ---- version 2: the kinds of candidate ------------------------------------------------------

TEST(DatabaseSchema, EngineAndLegacyRowsAreStoredAndCoveredSeparately) {
  TempDir dir;
  auto db = BenchmarkDatabase::open((dir.path() / "kinds.db").string(), rollback_journal());
  ASSERT_TRUE(db.ok()) << db.message();
  const ConvKey key = layer_key(0, 8);
  ASSERT_TRUE((*db)
                  ->store(test_gpu(), key, CandidateKind::kLegacy, 64 * kMiB,
                          {legacy_row(8, 0, 2.0), legacy_row(8, 1, 1.5, kMiB)})
                  .ok());
  auto engines = (*db)->lookup(test_gpu(), key, CandidateKind::kEngine);
  ASSERT_TRUE(engines.ok()) << engines.message();
  EXPECT_FALSE(engines->has_value()) << "legacy rows do not cover engines";

  ASSERT_TRUE((*db)
                  ->store(test_gpu(), key, CandidateKind::kEngine, kMiB,
                          {engine(8, "eng12:k3=1,k17=0", 1.0), engine(8, "eng12:k3=0,k17=0", 0.75, 2048)})
                  .ok());
  auto legacy_rows = (*db)->lookup(test_gpu(), key, CandidateKind::kLegacy);
  ASSERT_TRUE(legacy_rows.ok() && legacy_rows->has_value()) << legacy_rows.message();
  EXPECT_EQ((*legacy_rows)->measured_up_to, 64 * kMiB);
  ASSERT_EQ((*legacy_rows)->rows.size(), 2u);
  for (const Measurement& m : (*legacy_rows)->rows) EXPECT_EQ(m.candidate.kind, CandidateKind::kLegacy);
  engines = (*db)->lookup(test_gpu(), key, CandidateKind::kEngine);
  ASSERT_TRUE(engines.ok() && engines->has_value()) << engines.message();
  EXPECT_EQ((*engines)->measured_up_to, kMiB);
  std::set<std::string> ids;
  for (const Measurement& m : (*engines)->rows) {
    EXPECT_EQ(m.candidate.algorithm, -1);
    EXPECT_FALSE(m.deterministic);
    ids.insert(m.candidate.engine_id);
  }
  EXPECT_EQ(ids, (std::set<std::string>{"eng12:k3=1,k17=0", "eng12:k3=0,k17=0"}))
      << "one engine at two knob choices is two rows";

  // Each bound is raised on its own; stored rows are never replaced.
  ASSERT_TRUE(
      (*db)->store(test_gpu(), key, CandidateKind::kEngine, SIZE_MAX, {engine(8, "eng12:k3=1,k17=0", 9.0)}).ok());
  EXPECT_EQ((*(*db)->lookup(test_gpu(), key, CandidateKind::kEngine))->measured_up_to, SIZE_MAX);
  EXPECT_EQ((*(*db)->lookup(test_gpu(), key, CandidateKind::kLegacy))->measured_up_to, 64 * kMiB);
  const auto kept = (*db)->lookup(test_gpu(), key, CandidateKind::kEngine);
  ASSERT_TRUE(kept.ok() && kept->has_value()) << kept.message();
  for (const Measurement& m : (*kept)->rows) EXPECT_LT(m.time_ms, 9.0) << m.candidate.engine_id << " was replaced";
  // Engine rows alone make no legacy coverage, whatever their bound.
  const ConvKey engines_only = layer_key(1, 8);
  ASSERT_TRUE((*db)->store(test_gpu(), engines_only, CandidateKind::kEngine, SIZE_MAX, {engine(8, "eng0", 1.0)}).ok());
  EXPECT_FALSE((*(*db)->lookup(test_gpu(), engines_only, CandidateKind::kLegacy)).has_value());

  const auto stats = (*db)->stats();
  ASSERT_TRUE(stats.ok()) << stats.message();
  EXPECT_EQ(stats->rows, 5);
  EXPECT_EQ(stats->engine_rows, 3);
  const auto all = (*db)->all_rows();
  ASSERT_TRUE(all.ok()) << all.message();
  std::multiset<std::string> all_ids;
  for (const StoredRow& row : *all) all_ids.insert(row.measurement.candidate.engine_id);
  EXPECT_EQ(all_ids, (std::multiset<std::string>{"", "", "eng0", "eng12:k3=0,k17=0", "eng12:k3=1,k17=0"}));
  EXPECT_TRUE((*db)->verify().ok());
}

TEST(DatabaseSchema, ARowOfTheWrongKindOrShapeIsRefusedAndNothingIsStored) {
  TempDir dir;
  auto db = BenchmarkDatabase::open((dir.path() / "refuse.db").string(), rollback_journal());
  ASSERT_TRUE(db.ok()) << db.message();
  const ConvKey key = layer_key(0, 4);
  const struct {
    CandidateKind kind;
    std::vector<Measurement> rows;
    std::string detail;
  } cases[] = {
      {CandidateKind::kLegacy,
       {legacy_row(4, 0, 1.0), engine(4, "eng1", 1.0)},
       "row 2 (engine eng1 at micro-batch 4) is an engine candidate, not a legacy one"},
      {CandidateKind::kEngine,
       {legacy_row(4, 2, 1.0)},
       "row 1 (algo 2 math_type 0 at micro-batch 4) is a legacy candidate, not an engine one"},
      {CandidateKind::kEngine,
       {[] {
         Measurement m = engine(4, "eng1", 1.0);
         m.candidate.algorithm = 0;
         return m;
       }()},
       "algo -1, not 0"},
      {CandidateKind::kEngine, {engine(4, "engine1", 1.0)}, "engine configuration 'engine1'"},
      {CandidateKind::kEngine, {engine(4, "eng01:k2=1", 1.0)}, "not canonical ('eng1:k2=1')"},
      {CandidateKind::kLegacy, {legacy_row(4, -1, 1.0)}, "a legacy row needs an algorithm >= 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.detail);
    const Status stored = (*db)->store(test_gpu(), key, c.kind, SIZE_MAX, c.rows);
    ASSERT_FALSE(stored.ok());
    EXPECT_NE(stored.message().find(c.detail), std::string::npos) << stored.message();
    EXPECT_NE(stored.message().find("nothing stored"), std::string::npos) << stored.message();
    EXPECT_EQ(stored.message().find('\n'), std::string::npos);
  }
  // Through store_rows (imports) too.
  StoredRow bad{test_gpu(), ConvOp::kForward, key.layer_signature(), engine(4, "eng1:", 1.0), "2026-01-01T00:00:00Z"};
  StoredRow good = bad;
  good.measurement = legacy_row(4, 0, 1.0);
  const auto imported = (*db)->store_rows({good, bad});
  ASSERT_FALSE(imported.ok());
  EXPECT_NE(imported.message().find("row 2 (engine eng1: at micro-batch 4)"), std::string::npos) << imported.message();
  EXPECT_EQ((*db)->stats()->rows, 0) << "nothing stored";
  for (const CandidateKind kind : {CandidateKind::kLegacy, CandidateKind::kEngine}) {
    EXPECT_FALSE((*(*db)->lookup(test_gpu(), key, kind)).has_value()) << "no coverage raised either";
  }
}

TEST(DatabaseSchema, StoreRowsRaisesTheCoverageOfEachKindItsRowsName) {
  TempDir dir;
  auto db = BenchmarkDatabase::open((dir.path() / "import.db").string(), rollback_journal());
  ASSERT_TRUE(db.ok()) << db.message();
  const ConvKey both = layer_key(0, 4), engines_only = layer_key(1, 4);
  const auto row = [](const ConvKey& key, Measurement m) {
    return StoredRow{test_gpu(), key.op, key.layer_signature(), std::move(m), "2026-01-01T00:00:00Z"};
  };
  const auto added =
      (*db)->store_rows({row(both, legacy_row(4, 0, 1.0)), row(both, engine(4, "eng2", 1.0)),
                         row(both, engine(4, "eng2:k1=1", 1.0)), row(engines_only, engine(4, "eng2", 1.0))},
                        16 * kMiB);
  ASSERT_TRUE(added.ok()) << added.message();
  EXPECT_EQ(*added, 4);
  EXPECT_EQ((*(*db)->lookup(test_gpu(), both, CandidateKind::kLegacy))->rows.size(), 1u);
  EXPECT_EQ((*(*db)->lookup(test_gpu(), both, CandidateKind::kLegacy))->measured_up_to, 16 * kMiB);
  EXPECT_EQ((*(*db)->lookup(test_gpu(), both, CandidateKind::kEngine))->rows.size(), 2u);
  EXPECT_EQ((*(*db)->lookup(test_gpu(), both, CandidateKind::kEngine))->measured_up_to, 16 * kMiB);
  EXPECT_EQ((*(*db)->lookup(test_gpu(), engines_only, CandidateKind::kEngine))->rows.size(), 1u);
  EXPECT_FALSE((*(*db)->lookup(test_gpu(), engines_only, CandidateKind::kLegacy)).has_value());
}

// A version-2 file whose unique key lacks the engine would drop every engine row after the first
// of a kernel as a duplicate: verify says so.
TEST(DatabaseSchema, VerifyNamesAKeyWithoutTheEngine) {
  TempDir dir;
  const std::string path = (dir.path() / "key.db").string();
  ASSERT_TRUE(BenchmarkDatabase::open(path, rollback_journal()).ok());
  ASSERT_NO_FATAL_FAILURE(execute(path,
                                  "DROP INDEX measurements_key; CREATE UNIQUE INDEX measurements_key ON "
                                  "measurements(gpu_name, compute_capability, sm_count, cudnn_version, "
                                  "cuda_runtime_version, op, layer, micro_batch, algo, math_type)"));
  EXPECT_FALSE(BenchmarkDatabase::open(path, rollback_journal(true)).ok()) << "only verify opens it";
  auto options = rollback_journal(true);
  options.check_schema = false;  // as `db verify` opens it
  auto db = BenchmarkDatabase::open(path, options);
  ASSERT_TRUE(db.ok()) << db.message();
  const auto verified = (*db)->verify();
  ASSERT_FALSE(verified.ok());
  EXPECT_NE(verified.message().find("measurements_key does not hold the column engine"), std::string::npos)
      << verified.message();
}

}  // namespace
}  // namespace ucudnn::testing
