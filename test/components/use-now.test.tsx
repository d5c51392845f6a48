import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { render } from 'ink-testing-library';
import { Text } from 'ink';
import { useNow } from '../../components/hooks/useNow.js';

// The clock behind the elapsed column: a render a second, counted from the last render,
// whatever caused it, so a signal's frame is not followed by a tick's frame a moment later.

beforeEach(() => {
  // React schedules its work with setImmediate, which stays real.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function Probe({ label, renders, active = true }: { label: string; renders: number[]; active?: boolean }) {
  const now = useNow(1000, active);
  renders.push(now);
  return <Text>{label}</Text>;
}

/** Lets React finish what the timers started (its scheduler runs on setImmediate). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

it('ticks a second after the last render, and a render for another reason resets it', async () => {
  const renders: number[] = [];
  const start = Date.now();
  const app = render(<Probe label="a" renders={renders} />);
  await settle();
  expect(renders).toHaveLength(1);

  await vi.advanceTimersByTimeAsync(1000);
  await settle();
  expect(renders).toHaveLength(2);
  expect(renders[1]! - start).toBe(1000);

  // A signal redraws 400 ms into the second: the clock now waits a full second from there.
  await vi.advanceTimersByTimeAsync(400);
  app.rerender(<Probe label="b" renders={renders} />);
  await settle();
  expect(renders).toHaveLength(3);
  await vi.advanceTimersByTimeAsync(600);
  await settle();
  expect(renders).toHaveLength(3);
  await vi.advanceTimersByTimeAsync(400);
  await settle();
  expect(renders).toHaveLength(4);
  expect(renders[3]! - renders[2]!).toBe(1000);
  app.unmount();
});

it('does not tick while inactive', async () => {
  const renders: number[] = [];
  const app = render(<Probe label="a" renders={renders} active={false} />);
  await settle();
  await vi.advanceTimersByTimeAsync(5000);
  await settle();
  expect(renders).toHaveLength(1);
  app.unmount();
});
