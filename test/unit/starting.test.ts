import { describe, expect, it } from 'vitest';
import { atWork, hasStartPrompt } from '../../src/supervisor/starting.js';

describe('an agent started with a prompt is starting until it is seen at work', () => {
  it('a command that ends with a prompt', () => {
    expect(hasStartPrompt(['claude', '/autodeck-auto /w/AiTasks/m'])).toBe(true);
    expect(hasStartPrompt(['claude', '--settings', '{}', '--permission-mode', 'default', '/autodeck-auto /w/AiTasks/m'])).toBe(true);
    expect(hasStartPrompt(['claude'])).toBe(false);
    expect(hasStartPrompt(['claude', '--settings', '{"hooks":{}}'])).toBe(false);
    expect(hasStartPrompt(['claude', '--model', 'opus'])).toBe(false);
    expect(hasStartPrompt(['claude', '--continue'])).toBe(false);
  });

  it('at work: a screen that is neither idle nor unreadable, or the agent saying busy or waiting', () => {
    expect(atWork('busy', undefined)).toBe(true);
    expect(atWork('permission_prompt', undefined)).toBe(true);
    expect(atWork('idle', 'busy')).toBe(true);
    expect(atWork('idle', undefined)).toBe(false);
    expect(atWork('unknown', 'idle')).toBe(false);
  });
});
