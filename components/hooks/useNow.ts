import { useEffect, useState } from 'react';

/** The time, updated every `intervalMs` while `active`; elapsed columns tick with it. */
export function useNow(intervalMs = 1000, active = true): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!active) return;
    // Aligned to the wall-clock second, so every elapsed cell changes together.
    let timer: NodeJS.Timeout;
    const schedule = (): void => {
      timer = setTimeout(() => {
        setNow(Date.now());
        schedule();
      }, intervalMs - (Date.now() % intervalMs) + 5);
    };
    schedule();
    return () => clearTimeout(timer);
  }, [intervalMs, active]);
  return now;
}
