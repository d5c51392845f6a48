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
    ],
    settings: ['backend', 'detachKey', 'notify'],
    example: { command: 'autodeck demo --speed 1', says: 'the demo, three times as fast' },
    load: async () => (await import('../commands/demo.js')).demo,
  },
  {
    name: 'init', group: 'start',
    summary: 'prepare a project for Claude Code loops (hooks, skill, .gitignore)',
    args: NONE,
    about: 'In the project (the git top level), adds the loop\'s transient files to .gitignore, registers ' +
      'autodeck\'s hooks in .claude/settings.json (the hooks do nothing in sessions autodeck did not start) ' +
      'and installs the /autodeck-auto skill. It prints each change; running it again changes only what is ' +
      'missing or out of date.',
    flags: [
      { name: 'force', type: 'boolean', description: 'replace an /autodeck-auto skill you edited' },
    ],
    settings: [],
    example: { command: 'cd ~/src/my-project && autodeck init', says: 'prepare my-project' },
    load: async () => (await import('../commands/init.js')).init,
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
    ],
    settings: ['maxIterations', 'timeoutMinutes', 'agent', 'backend', 'maxCostUsd'],
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
      { name: 'format', type: 'string', value: 'FORMAT', default: 'text', description: 'text, json, or tmux: a short segment for status-right (▶3 ?1 ✗1)' },
    ],
    settings: ['db'],
    example: { command: "tmux set -g status-right '#(autodeck status --format tmux)'", says: 'loop counts in the tmux status line' },
    load: async () => (await import('../commands/status.js')).status,
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
    load: async () => (await import('../commands/history.js')).history,
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
    name: 'hook', group: 'agents',
    summary: "Claude Code's hooks (autodeck init registers them)",
    args: { usage: 'stop|state', min: 1, max: 1 },
    about: 'Claude Code runs these with an event on stdin: stop answers a Stop event (go on, or let the ' +
      'session end), state records what the agent is doing. They do nothing outside a session autodeck ' +
      'started, and never fail the agent.',
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
