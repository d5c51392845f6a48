import { describe, expect, it } from 'vitest';
import { INITIAL_UI, uiReducer } from '../../components/state.js';

// The dashboard's UI state as a reducer (no terminal): the filter line.

describe('the filter line', () => {
  it('narrows while open; a change that comes after Esc closed it (a late keystroke of the input) is no filter', () => {
    let s = uiReducer(INITIAL_UI, { type: 'open', overlay: { kind: 'filter' } });
    s = uiReducer(s, { type: 'filterTyped', text: '@gp tr' });
    expect(s.filter).toBe('@gp tr');
    // Esc: cleared, closed
    s = uiReducer(uiReducer(s, { type: 'filter', text: '' }), { type: 'close' });
    // the input's last change, reported after it was closed
    s = uiReducer(s, { type: 'filterTyped', text: '@gp tra' });
    expect(s.filter).toBe('');
    expect(s.overlay).toEqual({ kind: 'none' });
  });
});
