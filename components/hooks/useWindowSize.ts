import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

export interface WindowSize {
  columns: number;
  rows: number;
}

/** The terminal's size, read once at the root and on every resize. */
export function useWindowSize(): WindowSize {
  const { stdout } = useStdout();
  const read = (): WindowSize => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = (): void => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
