import type { CommandSpec, FlagSpec } from './spec.js';

/**
 * Every command of the CLI, in the order the overview lists them. Each declares its
 * words, its own flags, the settings it reads, one example and how to load it; parsing
 * (src/cli/parse.ts), help (src/cli/help.ts) and dispatch (src/cli.ts) all read this table.
 */

const json = (what: string): FlagSpec => ({ name: 'json', type: 'boolean', description: what });
const TASK_DIR = { usage: 'TASK_DIR', min: 1, max: 1 } as const;
const NONE = { usage: '', min: 0, max: 0 } as const;

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'demo', group: 'start',
    summary: 'real loops on a throwaway workspace, with a simulated agent',
    args: NONE,
    about: 'Builds a workspace of seven task modules in the temp folder and runs real loops on them, ' +
      'a simulated agent standing in for Claude Code: a clean run, a crash, a prompt, a usage limit, ' +
      'a blocker, a budget hit. In the dashboard when there is a terminal (about 90 s), else headless like run. ' +
      'Nothing outside that workspace is touched.',
    flags: [
      { name: 'fast', type: 'boolean', description: 'a step every 0.6 s: every loop ends within seconds' },
      { name: 'speed', type: 'string', value: 'SECONDS', default: '3 in the dashboard, 0.6 headless', description: 'seconds per step of the simulated agent (more than 0, at most 60)' },
      json('headless: one JSON event per line on stdout (NDJSON)'),
    ],
    settings: ['backend', 'detachKey', 'notify'],
    example: { command: 'autodeck demo --speed 1', says: 'the demo, three times as fast' },
    load: async () => (await import('../commands/demo.js')).demo,
  },
  {
    name: 'init', group: 'start',
    summary: 'prepare a project for Claude Code loops (hooks, skill, .gitignore)',
    args: NONE,
    about: 'In the project (its git top level, or a folder with a project\'s files), adds the loop\'s transient ' +
      'files to .gitignore, registers autodeck\'s hooks in .claude/settings.json (the loop hooks do nothing in sessions ' +
      'autodeck did not start; the permission hook lets autodeck answer their permission requests) and installs the /autodeck-auto skill. The settings file is edited in place, its ' +
      'formatting and comments kept. It prints each change; running it again changes only what is missing or out ' +
      'of date; --undo takes back exactly what it changed. Outside a project it refuses, unless --user.',
    flags: [
      { name: 'user', type: 'boolean', description: 'your user settings (~/.claude) instead: the hooks and the skill for every project' },
      { name: 'undo', type: 'boolean', description: 'take back what init changed here (with --user: in ~/.claude), and nothing else' },
      { name: 'force', type: 'boolean', description: 'replace an /autodeck-auto skill you edited' },
    ],
    settings: [],
    example: { command: 'cd ~/src/my-project && autodeck init', says: 'prepare my-project; autodeck init --undo takes it back' },
    load: async () => (await import('../commands/init.js')).init,
  },
  {
    name: 'doctor', group: 'start',
    summary: 'is Claude Code inside the tested range; does the database open',
    args: NONE,
    about: 'Finds the agent program as a loop would, runs `claude --version` and says whether that release is ' +
      'inside the range autodeck is tested with, and what will not work outside it; opens the state database ' +
      'read-only and says whether it is sound. Changes nothing. Exit 0 when all is well, 1 when something needs you.',
    flags: [json('the checks as one JSON object')],
    settings: ['agent', 'agentProfile', 'db', 'claudePermissionMode'],
    example: { command: 'autodeck doctor', says: 'is this machine ready for a loop?' },
    exits: '0 all is well, 1 something needs you, 2 usage or settings error',
    load: async () => (await import('../commands/doctor.js')).doctor,
  },
  {
    name: 'new', group: 'start',
    summary: 'a new task module (a draft) under the first root',
    args: { usage: 'NAME', min: 1, max: 1 },
    about: 'Creates ROOT/NAME with a .target.md to fill in; a loop may start once it says what to do.',
    flags: [
      { name: 'title', type: 'string', value: 'TITLE', default: 'NAME', description: "the module's title" },
    ],
    settings: ['roots'],
    example: { command: 'autodeck new fix-login --title "Fix the login form"', says: 'creates AiTasks/fix-login' },
    load: async () => (await import('../commands/new.js')).newModule,
  },
  {
    name: 'run', group: 'loops',
    summary: 'supervise loops headless, in the foreground, until they end',
    args: { usage: 'TASK_DIR...', min: 1, max: Infinity },
    about: 'Starts a loop on each task module (or adopts one whose owner is gone) and prints its events until ' +
      'every loop has ended. Ctrl-C asks the loops to stop after their step; a second Ctrl-C kills them.',
    flags: [
      json('one JSON event per line on stdout (NDJSON)'),
      { name: 'refuse-failed', type: 'boolean', description: 'do not start on a module whose last loop failed (exit 3)' },
      { name: 'detach', type: 'boolean', description: 'return once the loops have started, supervised by a process of their own in the background (how a dashboard starts a loop on another host)' },
    ],
    settings: ['maxIterations', 'timeoutMinutes', 'agent', 'backend', 'maxCostUsd', 'verify', 'worktree'],
    moreSettings: true,
    example: { command: 'autodeck run AiTasks/fix-login --max-iterations 10', says: 'one loop, at most 10 iterations' },
    exits: '0 every loop complete, 1 a loop ended another way, 2 usage or settings error, ' +
      '3 already running (or the last loop failed, with --refuse-failed), 130 interrupted',
    load: async () => (await import('../commands/run.js')).run,
  },
  {
    name: 'serve', group: 'loops',
    summary: 'a headless supervisor with the loopback REST API',
    args: NONE,
    about: 'Adopts every loop whose owner is gone, prints events like run, and serves the REST API on ' +
      '127.0.0.1 (a bearer token in the state folder) until SIGINT, SIGTERM or SIGHUP; then the loops are ' +
      'left for the next launch.',
    flags: [json('one JSON event per line on stdout (NDJSON), as run --json prints them')],
    settings: ['apiPort', 'db', 'backend'],
    moreSettings: true,
    example: { command: 'autodeck serve --api-port 7420', says: 'the API on http://127.0.0.1:7420' },
    load: async () => (await import('../commands/serve.js')).serve,
  },
  {
    name: 'stop', group: 'loops',
    summary: 'ask a loop to stop (after its step, or at once with --force)',
    args: TASK_DIR,
    about: "Writes the module's stop file; the loop's owner (a dashboard, run or serve) ends the loop.",
    flags: [
      { name: 'force', type: 'boolean', description: 'kill the agent now instead of after its step' },
    ],
    settings: ['db'],
    example: { command: 'autodeck stop AiTasks/fix-login', says: 'the loop ends after its current step' },
    exits: '0 stop asked, 1 no loop runs there',
    load: async () => (await import('../commands/stop.js')).stop,
  },
  {
    name: 'status', group: 'look',
    summary: 'every active loop and the last finished runs',
    args: NONE,
    flags: [
      json('the same as JSON: {"loops": [...], "recent": [...]}'),
      { name: 'iterations', type: 'boolean', description: 'tokens, cost and compactions of each iteration too' },
      { name: 'format', type: 'string', value: 'FORMAT', default: 'text', description: 'text, json, or tmux: a short segment for status-right (?1 ✗1 ▶3)' },
      { name: 'events-since', type: 'string', value: 'ID', description: 'JSON, for a dashboard reading this host over ssh: the events after ID, this autodeck\'s version and clock' },
      { name: 'modules', type: 'boolean', description: 'JSON, for a dashboard reading this host over ssh: the task modules under the roots' },
      { name: 'claude', type: 'boolean', description: 'JSON, for a dashboard reading this host over ssh: Claude Code\'s own sessions here' },
      { name: 'claude-since', type: 'string', value: 'TOKEN', description: 'with --claude: unchanged since the look that gave TOKEN, say so instead of asking Claude Code' },
    ],
    about: 'With --host, the loops of other hosts too, read over ssh (docs/hosts.md), each with its "host"; ' +
      'a host that cannot be read is said in "hosts" and on stderr, and does not change the exit code.',
    settings: ['db', 'hosts', 'local', 'sshCommand'],
    example: { command: "tmux set -g status-right '#(autodeck status --format tmux)'", says: 'loop counts in the tmux status line' },
    load: async () => (await import('../commands/statusCommand.js')).statusCommand,
  },
  {
    name: 'log', group: 'look',
    summary: 'the event log, oldest first',
    args: { usage: '[TASK_DIR]', min: 0, max: 1 },
    flags: [
      { name: 'last', type: 'string', value: 'N', default: '50', description: 'how many events' },
      json('one event per line as JSON'),
    ],
    settings: ['db'],
    example: { command: 'autodeck log AiTasks/fix-login --last 20', says: "the module's last 20 events" },
    load: async () => (await import('../commands/log.js')).log,
  },
  {
    name: 'history', group: 'look',
    summary: 'finished runs with outcome, times, spend and score',
    args: { usage: '[TASK_DIR]', min: 0, max: 1 },
    about: 'For one module, it ends with the limits to suggest for its next loop.',
    flags: [
      { name: 'last', type: 'string', value: 'N', default: '20', description: 'how many runs' },
      json('the runs as JSON'),
      { name: 'iterations', type: 'boolean', description: 'tokens, cost and compactions of each iteration too' },
    ],
    settings: ['db'],
    example: { command: 'autodeck history AiTasks/fix-login', says: 'its runs, and limits for the next' },
    load: async () => (await import('../commands/history.js')).historyCommand,
  },
  {
    name: 'worktrees', group: 'look',
    summary: "the loops' git worktrees and what each holds",
    args: NONE,
    about: 'Lists the worktrees autodeck made for loops (branches autodeck/...) in the repositories of the roots, ' +
      'of the current folder and of the loops it knows: uncommitted changes, commits their base lacks, merged. ' +
      'With --prune it removes those that hold nothing and no loop uses; it never removes work or deletes a branch.',
    flags: [
      { name: 'prune', type: 'boolean', description: 'remove the worktrees that hold nothing (git worktree remove)' },
      json('the worktrees as JSON'),
    ],
    settings: ['roots', 'db'],
    example: { command: 'autodeck worktrees --prune', says: 'remove the empty ones, list what is kept and why' },
    load: async () => (await import('../commands/worktrees.js')).worktrees,
  },
  {
    name: 'lookup', group: 'look',
    summary: 'which session runs a task module',
    args: TASK_DIR,
    flags: [json('{"session_name": ..., "status": ...}')],
    settings: ['db'],
    example: { command: 'autodeck lookup AiTasks/fix-login', says: 'prints "auto-fix-login-... running"' },
    exits: '0 found, 1 no loop for that module',
    load: async () => (await import('../commands/lookup.js')).lookup,
  },
  {
    name: 'adopt', group: 'loops',
    summary: "govern one of Claude Code's background sessions like a loop",
    args: { usage: 'ID', min: 1, max: 1 },
    about: 'ID is the short id claude agents lists (or the full session id). In the foreground, as run: at most ' +
      'max-iterations turns, the timeout, the budget, the approval policy, and after a usage limit one resume ' +
      'once the reset has passed. Ctrl-C lets go of the session (it runs on). See docs/claude-sessions.md.',
    flags: [
      json('one JSON event per line on stdout (NDJSON)'),
      { name: 'detach', type: 'boolean', description: 'governed by a process of its own in the background; returns once adopted' },
    ],
    settings: ['maxIterations', 'timeoutMinutes', 'maxTokens', 'maxCostUsd', 'quotaProbeMinutes'],
    example: { command: 'autodeck adopt 84ac2ba2 --max-iterations 5', says: 'at most 5 more turns' },
    exits: '0 Claude Code says the session is done, 1 it ended another way, 2 usage error, 3 adopted already, 130 let go',
    load: async () => (await import('../commands/adopt.js')).adopt,
  },
  {
    name: 'claude', group: 'loops',
    summary: "Claude Code's own sessions: list, stop, send, answer, logs, attach",
    args: { usage: '[ACTION] [ID] [PROMPT]', min: 0, max: 3 },
    about: 'Without ACTION, the list of Claude Code\'s sessions here (background and interactive). ID is the short id ' +
      'claude agents lists, or the full session id. stop: claude stop. rm: claude rm of an ended one. send ID -- PROMPT: ' +
      'the prompt as an idle session\'s next turn, under its own id (a busy one is refused). answer ID: the permission ' +
      'request or question autodeck\'s hook holds (--allow, --deny [--message WHY], --text ANSWER). logs: its recent ' +
      'screen as text. attach: claude attach in this terminal. A dashboard on another machine does these over ssh. ' +
      'See docs/claude-sessions.md.',
    flags: [
      json('the list as JSON: {"claudeSessions": [...]}'),
      { name: 'allow', type: 'boolean', description: 'answer: allow the permission request' },
      { name: 'deny', type: 'boolean', description: 'answer: refuse it (the model is told why)' },
      { name: 'message', type: 'string', value: 'WHY', description: 'answer --deny: what the model is told' },
      { name: 'text', type: 'string', value: 'ANSWER', description: "answer: a question's answer (an option's label, or your own words)" },
    ],
    settings: ['agent', 'db'],
    example: { command: 'autodeck claude send 84ac2ba2 -- "now add the tests"', says: 'its next turn, in the same session' },
    exits: '0 done, 1 no such session or Claude Code failed, 2 usage error or refused, 3 not now (busy, not running, no open request)',
    load: async () => (await import('../commands/claude.js')).claude,
  },
  {
    name: 'hook', group: 'agents',
    summary: "Claude Code's hooks (autodeck init registers them)",
    args: { usage: 'stop|state|permission', min: 1, max: 1 },
    about: 'Claude Code runs these with an event on stdin: stop answers a Stop event (go on, or let the ' +
      'session end), state records what the agent is doing; they do nothing outside a session autodeck ' +
      'started. permission holds a permission request or question of a session autodeck did not start ' +
      'until the approval policy or a person answers it through autodeck. None fails the agent.',
    flags: [
      { name: 'injected', type: 'boolean', description: 'the copy autodeck gives a session it starts' },
    ],
    settings: [],
    example: { command: 'autodeck init', says: 'registers them in .claude/settings.json' },
    exits: 'always 0 (an error is recorded as an event, never returned to Claude Code)',
    load: async () => (await import('../commands/hook.js')).hook,
  },
  {
    name: 'sim', group: 'agents',
    summary: 'the simulated agent (what demo and the tests run)',
    args: { usage: 'TASK_DIR', min: 1, max: 1 },
    about: 'Follows the scenario in TASK_DIR/.sim.json: signals, crashes, prompts, usage limits. ' +
      "Flags after TASK_DIR are an agent's own (--resume ID) and are ignored.",
    flags: [],
    settings: [],
    example: { command: "autodeck run AiTasks/x --agent 'autodeck sim {taskDir}'", says: 'a loop with it' },
    load: async () => (await import('../commands/sim.js')).sim,
  },
];

export const GROUP_TITLES = {
  start: 'Start here',
  loops: 'Run loops',
  look: 'Look',
  agents: 'Called by agents',
} as const;

export function commandNamed(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
