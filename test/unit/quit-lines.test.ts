import { describe, expect, it } from 'vitest';
import { quitLines } from '../../components/quit.js';

describe('the quit dialog', () => {
  it('says pty loops are resumed by the next autodeck and tmux loops run on', () => {
    expect(quitLines({ pty: 2, tmux: 1 })).toEqual([
      '2 pty loops: suspended now, resumed at the next launch of autodeck.',
      '1 tmux loop: keeps running; the next autodeck re-attaches.',
    ]);
  });
  it("promises the demo's loops no next launch: its workspace is a new one each time", () => {
    expect(quitLines({ pty: 3, tmux: 0 }, true)).toEqual(['3 demo loops: stopped now; autodeck demo starts afresh each time.']);
    expect(quitLines({ pty: 0, tmux: 1 }, true)).toEqual(['1 demo loop in tmux: runs on to its end, then goes.']);
    expect(quitLines({ pty: 0, tmux: 0 }, true)).toEqual([]);
  });
});
