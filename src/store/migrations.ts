/**
 * Schema versions, applied in order; `PRAGMA user_version` counts how many ran.
 * Never edit a migration that has shipped: add the next one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the task_auto table of the auto loop's protocol, with autodeck's additions, runs and events.
  `
  CREATE TABLE task_auto (
    session_name TEXT PRIMARY KEY,
    task_dir TEXT NOT NULL UNIQUE,
    status TEXT DEFAULT 'running',
    max_iterations INTEGER DEFAULT 20,
    timeout_minutes REAL DEFAULT 30,
    iteration_count INTEGER DEFAULT 0,
    recovery_count_step INTEGER DEFAULT 0,
    recovery_count_total INTEGER DEFAULT 0,
    last_capture_hash TEXT DEFAULT '',
    stall_count INTEGER DEFAULT 0,
    quota_wait_since TEXT DEFAULT '',
    started_at TEXT,
    last_signal_at TEXT,
    restart_count INTEGER DEFAULT 0,
    quota_wait_ms INTEGER DEFAULT 0,
    step TEXT DEFAULT '', result TEXT DEFAULT '', next TEXT DEFAULT '', checkpoint TEXT DEFAULT '',
    stop_reason TEXT DEFAULT '',
    backend TEXT DEFAULT 'pty',
    owner_pid INTEGER, owner_host TEXT, owner_heartbeat_at TEXT,
    -- what a new owner needs to take the loop over
    task_name TEXT DEFAULT '',
    root TEXT DEFAULT '',
    agent_argv TEXT DEFAULT '[]',
    settings_json TEXT DEFAULT '{}',
    agent_pid INTEGER,
    forced INTEGER DEFAULT 0,
    -- every restart of the loop; restart_count only counts those without progress
    restarts_total INTEGER DEFAULT 0
  );
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_name TEXT NOT NULL,
    task_dir TEXT NOT NULL,
    task_name TEXT DEFAULT '',
    started_at TEXT,
    ended_at TEXT NOT NULL,
    iterations INTEGER DEFAULT 0,
    max_iterations INTEGER,
    timeout_minutes REAL,
    outcome TEXT NOT NULL,
    stop_reason TEXT DEFAULT '',
    forced INTEGER DEFAULT 0,
    recoveries INTEGER DEFAULT 0,
    restarts INTEGER DEFAULT 0,
    quota_wait_ms INTEGER DEFAULT 0,
    active_ms INTEGER DEFAULT 0
  );
  CREATE INDEX runs_task_dir ON runs (task_dir, ended_at);
  CREATE INDEX runs_ended_at ON runs (ended_at);
  CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    session_name TEXT DEFAULT '',
    task_dir TEXT DEFAULT '',
    kind TEXT NOT NULL,
    detail TEXT DEFAULT '{}'
  );
  CREATE INDEX events_task_dir ON events (task_dir, id);
  `,
  // 2: Stop-hook mode: the hook's own counters per loop, and the agent's state
  // as its hooks report it, which the supervisor reads before the screen.
  `
  CREATE TABLE hook_progress (
    task_dir TEXT PRIMARY KEY,
    session_name TEXT NOT NULL,
    iteration INTEGER DEFAULT 0,
    completed INTEGER DEFAULT -1,
    stale_iterations INTEGER DEFAULT 0,
    blocks INTEGER DEFAULT 0,
    updated_at TEXT
  );
  CREATE TABLE agent_state (
    session_name TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    event TEXT DEFAULT '',
    detail TEXT DEFAULT '{}',
    at TEXT NOT NULL
  );
  `,
  // 3: a bounded event log. Repeats of one event (an agent rewriting the same invalid
  // signal) are one row with a count; old rows are pruned, and what was dropped is counted.
  `
  ALTER TABLE events ADD COLUMN repeats INTEGER DEFAULT 1;
  ALTER TABLE events ADD COLUMN last_at TEXT;
  CREATE TABLE events_pruned (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    rows INTEGER NOT NULL DEFAULT 0,
    newest_dropped_at TEXT,
    pruned_at TEXT
  );
  `,
  // 4: what a loop spent, from its agent's transcript (src/spend/); NULL: no transcript read.
  `
  ALTER TABLE task_auto ADD COLUMN tokens INTEGER;
  ALTER TABLE task_auto ADD COLUMN cost_usd REAL;
  ALTER TABLE runs ADD COLUMN tokens INTEGER;
  ALTER TABLE runs ADD COLUMN cost_usd REAL;
  `,
  // 5: spend per iteration, compactions and the context's fill (src/spend/). A row of
  // iteration_spend is one iteration of one loop (task_dir + the loop's started_at, as the
  // run that follows records them); `partial`: the loop ended before a signal closed it.
  `
  ALTER TABLE task_auto ADD COLUMN compactions INTEGER;
  ALTER TABLE task_auto ADD COLUMN context_tokens INTEGER;
  ALTER TABLE task_auto ADD COLUMN context_window INTEGER;
  ALTER TABLE runs ADD COLUMN compactions INTEGER;
  CREATE TABLE iteration_spend (
    task_dir TEXT NOT NULL,
    loop_started_at TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    session_name TEXT DEFAULT '',
    ended_at TEXT NOT NULL,
    tokens INTEGER,
    cost_usd REAL,
    compactions INTEGER,
    partial INTEGER DEFAULT 0,
    PRIMARY KEY (task_dir, loop_started_at, iteration)
  );
  `,
  // 6: a loop that waits on a person: why and the question, as JSON; '' none.
  `
  ALTER TABLE task_auto ADD COLUMN waiting_for TEXT DEFAULT '';
  `,
  // 7: the reset time (ISO, wall clock) a quota wait's agent named, kept with the wait so an
  // adopter waits for it instead of probing at once; '' none named (or no wait).
  `
  ALTER TABLE task_auto ADD COLUMN quota_reset_at TEXT DEFAULT '';
  `,
];
