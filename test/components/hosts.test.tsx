import { afterEach, describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { FakeModel, loopRow, moduleRow } from '../helpers/fakeModel.js';
import { KEYS, renderApp, type Rendered } from '../helpers/renderApp.js';
import { hostKey, remoteKey } from '../../src/hosts/rows.js';
import type { DeckRow } from '../../src/deck/deck.js';
import type { Notice } from '../../src/deck/model.js';

// The table with other hosts (src/hosts/), drawn from a model the test sets: the HOST
// column, a host's own row, stale rows, the filter by host, the header's counts per host,
// and which keys act on a row of another host.

class HostsFake extends FakeModel {
  readonly notices = new EventEmitter();
  constructor(rows: DeckRow[], readonly hosts: readonly string[]) {
    super(rows);
  }
  subscribeNotices = (l: (n: Notice) => void): (() => void) => {
    this.notices.on('n', l);
    return () => this.notices.off('n', l);
  };
}

const remote = (host: string, name: string, patch: Partial<DeckRow> = {}): DeckRow => {
  const dir = `/home/u/AiTasks/${name}`;
  return { key: remoteKey(host, dir), name, lifecycle: 'planning', here: false, ownerAlive: true, host, ...patch };
};

const ROWS = (): DeckRow[] => [
  moduleRow('login', { loop: loopRow('/ws/AiTasks/login') }),
  remote('gpu', 'train', { loop: loopRow('/home/u/AiTasks/train', { backend: 'tmux', ownerHost: 'gpu' }) }),
  remote('gpu', 'eval', { loop: loopRow('/home/u/AiTasks/eval', { backend: 'pty', ownerHost: 'gpu' }) }),
  remote('gpu', 'idle'),
  { key: hostKey('box'), name: 'box', lifecycle: 'unknown', here: false, ownerAlive: false, host: 'box', hostIssue: { kind: 'unreachable', message: 'ssh: connect to host box port 22: Connection refused' } },
  remote('box', 'build', { loop: loopRow('/home/u/AiTasks/build', { backend: 'tmux' }), staleFor: '3m' }),
];

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

/** The table line of a row: `› name  host  state…`. */
const line = (frame: string, name: string): string => frame.split('\n').find((l) => new RegExp(`^[› ] (↗ )?${name} `).test(l)) ?? '';

describe('the dashboard over several hosts', () => {
  it('has a HOST column, a host\'s own row with its error, and stale rows with their age', async () => {
    app = renderApp({ model: new HostsFake(ROWS(), ['gpu', 'box']), columns: 120, rows: 30 });
    const f = await app.waitForFrame((x) => x.includes('HOST'), 'the HOST column');
    expect(line(f, 'login')).toMatch(/^› login +local +▶ running/);
    expect(line(f, 'train')).toMatch(/^  train +gpu +▶ running/);
    expect(line(f, 'box')).toMatch(/^  box +box +✗ no answer +ssh: connect/);
    expect(line(f, 'build')).toMatch(/^  build +box +~ stale 3m/);
    // the header: the totals (the modules, box's own row none of them, its loop stale), then
    // each host's counts (every group, its idle module too), a host in trouble by its trouble
    expect(f.split('\n')[0]).toMatch(/· 5 modules {2}▶ 3 running {2}~ 1 stale {2}· 1 idle {2}│ local ▶1 gpu ▶2 ·1 box ✗ no answer/);
  });

  it('has no HOST column with this machine alone', async () => {
    app = renderApp({ model: new FakeModel([moduleRow('login')]), columns: 120 });
    const f = await app.waitForFrame((x) => x.includes('MODULE'), 'the table');
    expect(f).not.toContain('HOST');
    expect(f.split('\n')[0]).not.toContain('│');
  });

  it('keeps the HOST column short in a side pane, and names only a host in trouble in the header', async () => {
    const long = ROWS().map((r) => (r.host === 'gpu' ? { ...r, host: 'gpu-box-west-3' } : r));
    app = renderApp({ model: new HostsFake(long, ['gpu-box-west-3', 'box']), columns: 48, rows: 30 });
    const f = await app.waitForFrame((x) => x.includes('HOST'), 'the HOST column');
    expect(line(f, 'train')).toMatch(/^  train +gpu… +▶ /);
    expect(f.split('\n')[0]).toMatch(/│ box✗/);
    expect(f.split('\n')[0]).not.toContain('gpu');
    for (const l of f.split('\n')) expect([...l].length).toBeLessThanOrEqual(48);
  });

  it('filters by host with @NAME, and by name and host together', async () => {
    app = renderApp({ model: new HostsFake(ROWS(), ['gpu', 'box']), columns: 120, rows: 30 });
    await app.waitForFrame((x) => x.includes('HOST'), 'the table');
    await app.type('/');
    await app.type('@gp');
    let f = await app.waitForFrame((x) => line(x, 'train') !== '' && line(x, 'login') === '', 'only gpu\'s rows');
    expect(['eval', 'idle'].every((n) => line(f, n) !== '')).toBe(true);
    expect(line(f, 'build')).toBe('');
    await app.type(' tra');
    f = await app.waitForFrame((x) => line(x, 'eval') === '' && x.includes('/ @gp tra'), 'gpu\'s train alone, all of it typed');
    expect(line(f, 'train')).not.toBe('');
    await app.type(KEYS.escape);
    // cleared before the next '/': an Esc and a key in one read would be one Alt key
    await app.waitForFrame((x) => !x.includes('filter "') && line(x, 'login') !== '', 'the filter cleared');
    await app.type('/');
    await app.waitForFrame((x) => x.includes("@host for a host's"), 'the filter line');
    await app.type('@local');
    f = await app.waitForFrame((x) => x.includes('filter "@local"'), 'the whole filter');
    expect(line(f, 'train')).toBe('');
    expect(line(f, 'login')).not.toBe('');
  });

  it('acts on a remote loop: Enter attaches to one in tmux; a host\'s row, a stale loop and a pty loop there say why not', async () => {
    const model = new HostsFake(ROWS(), ['gpu', 'box']);
    const attached: string[] = [];
    app = renderApp({ model, columns: 120, rows: 30, onAttach: (k) => attached.push(k) });
    await app.waitForFrame((x) => x.includes('HOST'), 'the table');
    await app.type('j', KEYS.enter); // train: tmux on gpu
    expect(attached).toEqual([remoteKey('gpu', '/home/u/AiTasks/train')]);
    await app.type('j', KEYS.enter); // eval: pty on gpu
    await app.waitForFrame((x) => x.includes('attach: its agent runs in a pseudo-terminal of the autodeck on gpu'), 'attach refused for pty');
    await app.type('j', 'j', 's'); // box's own row
    await app.waitForFrame((x) => x.includes('start: this row is a host'), 'start refused on a host row');
    await app.type('j', 'x'); // build: stale
    await app.waitForFrame((x) => x.includes('stop: box does not answer'), 'stop refused on a stale loop');
    await app.type('k', 'k', 's'); // idle on gpu: the start dialog
    await app.waitForFrame((x) => x.includes('Start a loop') || x.includes('maxIterations'), 'the start dialog');
    await app.type(KEYS.enter);
    expect(model.calls).toEqual([{ action: 'start', key: remoteKey('gpu', '/home/u/AiTasks/idle'), arg: { maxIterations: 20, timeoutMinutes: 30 } }]);
    // what the host answered comes later, as a notice
    model.notices.emit('n', { text: 'not started on gpu: fill .target.md first', tone: 'error' });
    await app.waitForFrame((x) => x.includes('✗ not started on gpu: fill .target.md first'), 'the notice');
  });
});
