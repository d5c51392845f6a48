/** CommonJS source of a stand-in for built-in `name`: one getter per export loading the real module. */
export function lazyBuiltinShim(name: string): string;
export function lazyBuiltins(names: string[]): { name: string; setup(build: unknown): void };
