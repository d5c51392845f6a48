import { describe, expect, it } from 'vitest';
import { bannerBytes, bannerText, keepRegion, touchesBanner } from '../../src/attach/banner.js';
import { detachKeyName } from '../../src/attach/keys.js';

describe('the way back, on the last row while attached', () => {
  it('names the key first, so a narrow terminal cuts the session name, never the key', () => {
    expect(bannerText('auto-fix-login-1', detachKeyName('\x11'))).toBe('Ctrl-Q: back to autodeck · attached to auto-fix-login-1');
    expect(detachKeyName('\x02')).toBe('Ctrl-B');
    const bytes = bannerBytes(bannerText('auto-a-very-long-session-name-000001', 'Ctrl-Q'), 10, 30, { x: 3, y: 4 });
    // region above the line, the line in reverse one column short of the edge, the cursor back
    expect(bytes).toBe('\x1b[1;9r\x1b[10;1H\x1b[7mCtrl-Q: back to autodeck · a…\x1b[27m\x1b[5;4H');
  });

  it('is drawn again after what erases it, and only then', () => {
    for (const erase of ['\x1b[2J', '\x1b[J', '\x1b[0J', '\x1b[3J', '\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1bc']) expect(touchesBanner(`a${erase}b`), JSON.stringify(erase)).toBe(true);
    for (const harmless of ['\x1b[K', '\x1b[1J', 'plain', '\x1b[5;1H', '\x1b[r']) expect(touchesBanner(harmless), JSON.stringify(harmless)).toBe(false);
  });

  it("keeps the agent's scroll region resets off the line, in the same sequence", () => {
    expect(keepRegion('a\x1b[rb', 25)).toBe('a\x1b[1;24rb');
    expect(keepRegion('\x1b[;r', 25)).toBe('\x1b[1;24r');
    expect(keepRegion('\x1b[3;25r', 25)).toBe('\x1b[3;24r');
    expect(keepRegion('\x1b[2;20r', 25)).toBe('\x1b[2;20r'); // the agent's own region, inside its rows: as it is
    expect(keepRegion('\x1bcX', 25)).toBe('\x1bc\x1b[1;24rX');
    expect(keepRegion('\x1b[?1049h', 25)).toBe('\x1b[?1049h\x1b7\x1b[1;24r\x1b8');
    expect(keepRegion('no escapes here', 25)).toBe('no escapes here');
  });
});
