/** The source with every character beyond ASCII written as a \uXXXX escape (see ascii.mjs). */
export function escapeNonAscii(source: string): string;
