// The trial database (see trial_db.h and docs/tuning.md).
#include "driver/trial_db.h"

#include <filesystem>

#include <sqlite3.h>

#include "support/diagnostics.h"

namespace risec::driver {

namespace {

const char* status_name(Trial::Status s) {
  switch (s) {
    case Trial::Status::Measured:
      return "measured";
    case Trial::Status::Invalid:
      return "invalid";
    case Trial::Status::Failed:
      return "failed";
  }
  return "failed";
}

}  // namespace

std::string point_text(const std::vector<elevate::StrategyParam>& params, const TunePoint& p) {
  std::string out;
  for (size_t i = 0; i < params.size() && i < p.size(); ++i)
    out += (i ? "," : "") + params[i].name + "=" + std::to_string(p[i]);
  return out;
}

// ---------------------------------------------------------------------------------
// The database
// ---------------------------------------------------------------------------------

struct TrialDb::Impl {
  sqlite3* db = nullptr;
  std::string path;
  bool read_only = false;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorKind::User, "tuning database '" + path + "': " + what + ": " +
                                     (db ? sqlite3_errmsg(db) : "cannot open"));
  }
  void exec(const char* sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : "error";
      sqlite3_free(msg);
      throw Error(ErrorKind::User, "tuning database '" + path + "': " + m);
    }
  }
  // A prepared statement, finalised on scope exit.
  struct Stmt {
    sqlite3_stmt* s = nullptr;
    ~Stmt() { sqlite3_finalize(s); }
  };
  void prepare(Stmt& st, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &st.s, nullptr) != SQLITE_OK) fail("preparing a query");
  }
  void text(Stmt& st, int i, const std::string& v) {
    sqlite3_bind_text(st.s, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  // A TunedKey's fields as the first six values.
  void key(Stmt& st, const TunedKey& k) {
    int i = 0;
    for (const std::string* v : {&k.program, &k.entry, &k.sizes, &k.target, &k.cpu, &k.version})
      text(st, ++i, *v);
  }
};

TrialDb::TrialDb(const std::string& path, bool read_only) : impl_(std::make_unique<Impl>()) {
  impl_->path = path.empty() ? ":memory:" : path;
  // SQLite says only "disk I/O error" (or "unable to open") for a directory.
  std::error_code ec;
  if (!path.empty() && std::filesystem::is_directory(path, ec))
    throw Error(ErrorKind::Usage,
                "cannot open the tuning database '" + path + "': it is a directory; name a file");
  const int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(impl_->path.c_str(), &impl_->db, flags, nullptr) != SQLITE_OK) {
    std::string msg = impl_->db ? sqlite3_errmsg(impl_->db) : "cannot open";
    sqlite3_close(impl_->db);
    impl_->db = nullptr;
    throw Error(ErrorKind::User, "cannot open the tuning database '" + path + "': " + msg);
  }
  sqlite3_busy_timeout(impl_->db, 10000);
  // A lookup (read_only) writes nothing: a file without the tables holds no record.
  impl_->read_only = read_only;
  if (read_only) return;
  try {
    impl_->exec(
        "CREATE TABLE IF NOT EXISTS studies("
        "  study TEXT PRIMARY KEY, description TEXT,"
        "  created TEXT DEFAULT CURRENT_TIMESTAMP);"
        "CREATE TABLE IF NOT EXISTS trials("
        "  study TEXT NOT NULL REFERENCES studies(study), number INTEGER NOT NULL,"
        "  point TEXT NOT NULL, status TEXT NOT NULL, time_ms REAL, error TEXT,"
        "  created TEXT DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY(study, point));"
        "CREATE TABLE IF NOT EXISTS best("
        "  program TEXT NOT NULL, entry TEXT NOT NULL, sizes TEXT NOT NULL,"
        "  target TEXT NOT NULL, cpu TEXT NOT NULL, version TEXT NOT NULL,"
        "  strategy TEXT NOT NULL, time_ms REAL NOT NULL, source TEXT,"
        "  created TEXT DEFAULT CURRENT_TIMESTAMP,"
        "  PRIMARY KEY(program, entry, sizes, target, cpu, version));");
  } catch (...) {
    sqlite3_close(impl_->db);
    throw;
  }
}

TrialDb::~TrialDb() {
  sqlite3_close(impl_->db);
}

void TrialDb::check_writable() {
  const char* const what = "checking that it can be written";
  // A file SQLite could open only for reading (mode 0444, an immutable file): it
  // falls back to read-only without an error.
  if (sqlite3_db_readonly(impl_->db, "main") == 1)
    throw Error(ErrorKind::User, "tuning database '" + impl_->path + "': " + what +
                                     ": attempt to write a readonly database");
  // Else a write rolled back (a directory where the journal cannot be created).
  if (sqlite3_exec(impl_->db,
                   "SAVEPOINT risec_probe;"
                   "INSERT OR IGNORE INTO studies(study, description) VALUES('', '');"
                   "ROLLBACK TO risec_probe; RELEASE risec_probe;",
                   nullptr, nullptr, nullptr) != SQLITE_OK) {
    const std::string msg = sqlite3_errmsg(impl_->db);
    sqlite3_exec(impl_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw Error(ErrorKind::User, "tuning database '" + impl_->path + "': " + what + ": " + msg);
  }
}

void TrialDb::add_study(const std::string& key, const std::string& description) {
  Impl::Stmt st;
  impl_->prepare(st, "INSERT OR IGNORE INTO studies(study, description) VALUES(?, ?)");
  impl_->text(st, 1, key);
  impl_->text(st, 2, description);
  if (sqlite3_step(st.s) != SQLITE_DONE) impl_->fail("recording the study");
}

std::vector<Trial> TrialDb::load(const std::string& key,
                                 const std::vector<elevate::StrategyParam>& params) {
  Impl::Stmt st;
  impl_->prepare(st,
                 "SELECT number, point, status, time_ms, error FROM trials WHERE study = ? "
                 "ORDER BY number");
  impl_->text(st, 1, key);
  std::vector<Trial> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    Trial t;
    t.number = sqlite3_column_int(st.s, 0);
    std::string point = reinterpret_cast<const char*>(sqlite3_column_text(st.s, 1));
    std::string status = reinterpret_cast<const char*>(sqlite3_column_text(st.s, 2));
    t.time_ms = sqlite3_column_double(st.s, 3);
    if (const unsigned char* e = sqlite3_column_text(st.s, 4))
      t.error = reinterpret_cast<const char*>(e);
    t.status = status == "measured"  ? Trial::Status::Measured
               : status == "invalid" ? Trial::Status::Invalid
                                     : Trial::Status::Failed;
    // The point's values, in the parameters' order (the study key fixes them).
    elevate::ParamValues values = elevate::parse_param_values({point});
    bool ok = values.size() == params.size();
    for (const elevate::StrategyParam& p : params) {
      auto it = values.find(p.name);
      ok = ok && it != values.end();
      if (ok) t.point.push_back(it->second);
    }
    if (!ok) impl_->fail("trial '" + point + "' does not match the template's parameters");
    out.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) impl_->fail("reading the trials");
  return out;
}

void TrialDb::add(const std::string& key, const std::vector<elevate::StrategyParam>& params,
                  const Trial& t) {
  Impl::Stmt st;
  impl_->prepare(st,
                 "INSERT OR REPLACE INTO trials(study, number, point, status, time_ms, error) "
                 "VALUES(?, ?, ?, ?, ?, ?)");
  impl_->text(st, 1, key);
  sqlite3_bind_int(st.s, 2, t.number);
  impl_->text(st, 3, point_text(params, t.point));
  impl_->text(st, 4, status_name(t.status));
  if (t.status == Trial::Status::Measured)
    sqlite3_bind_double(st.s, 5, t.time_ms);
  else
    sqlite3_bind_null(st.s, 5);
  impl_->text(st, 6, t.error);
  if (sqlite3_step(st.s) != SQLITE_DONE) impl_->fail("recording a trial");
}

bool TrialDb::record_best(const TunedKey& key, const TunedRecord& record) {
  Impl::Stmt st;
  impl_->prepare(st,
                 "INSERT INTO best(program, entry, sizes, target, cpu, version, strategy, "
                 "time_ms, source) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT(program, entry, sizes, target, cpu, version) DO UPDATE SET "
                 "strategy = excluded.strategy, time_ms = excluded.time_ms, "
                 "source = excluded.source, created = CURRENT_TIMESTAMP "
                 "WHERE excluded.time_ms < best.time_ms");
  impl_->key(st, key);
  impl_->text(st, 7, record.strategy);
  sqlite3_bind_double(st.s, 8, record.time_ms);
  impl_->text(st, 9, record.source);
  if (sqlite3_step(st.s) != SQLITE_DONE) impl_->fail("recording the best strategy");
  return sqlite3_changes(impl_->db) > 0;
}

std::vector<std::string> TrialDb::recorded_sizes(const TunedKey& key) {
  std::vector<std::string> out;
  if (impl_->read_only) {
    Impl::Stmt t;
    impl_->prepare(t, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'best'");
    if (sqlite3_step(t.s) != SQLITE_ROW) return out;
  }
  Impl::Stmt st;
  impl_->prepare(st,
                 "SELECT DISTINCT sizes FROM best WHERE program = ? AND entry = ? AND sizes != ? "
                 "AND target = ? AND cpu = ? AND version = ? ORDER BY sizes");
  impl_->key(st, key);
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW)
    out.push_back(reinterpret_cast<const char*>(sqlite3_column_text(st.s, 0)));
  if (rc != SQLITE_DONE) impl_->fail("reading the recorded sizes");
  return out;
}

std::optional<TunedRecord> TrialDb::lookup_best(const TunedKey& key) {
  Impl::Stmt st;
  if (impl_->read_only) {
    // Opened for a lookup only: a database without the `best` table (an empty file,
    // one of an older risec) has no record.
    Impl::Stmt t;
    impl_->prepare(t, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'best'");
    if (sqlite3_step(t.s) != SQLITE_ROW) return std::nullopt;
  }
  impl_->prepare(st,
                 "SELECT strategy, time_ms, source FROM best WHERE program = ? AND entry = ? "
                 "AND sizes = ? AND target = ? AND cpu = ? AND version = ?");
  impl_->key(st, key);
  const int rc = sqlite3_step(st.s);
  if (rc == SQLITE_DONE) return std::nullopt;
  if (rc != SQLITE_ROW) impl_->fail("reading the best strategy");
  TunedRecord r;
  r.strategy = reinterpret_cast<const char*>(sqlite3_column_text(st.s, 0));
  r.time_ms = sqlite3_column_double(st.s, 1);
  if (const unsigned char* s = sqlite3_column_text(st.s, 2))
    r.source = reinterpret_cast<const char*>(s);
  return r;
}

}  // namespace risec::driver
