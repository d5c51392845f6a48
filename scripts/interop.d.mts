/** `source` with esbuild's export copier asking propertyIsEnumerable instead of reading descriptors. */
export function keepBuiltinsLazy(source: string): string;
