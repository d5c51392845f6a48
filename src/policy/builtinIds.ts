/** The built-in denies by name (builtin.ts checks them; a settings file may override them by name). */
export const BUILTIN_IDS = ['rm-outside-project', 'git-push-force', 'git-reset-hard', 'network-pipe-shell', 'write-outside-project'] as const;
export type BuiltinId = (typeof BUILTIN_IDS)[number];
