/** `source` with esbuild's export copier asking propertyIsEnumerable instead of reading descriptors. */
export function keepBuiltinsLazy(source: string): string;
/** `source` with esbuild's `__toESM` handing out one namespace object per module and mode. */
export function shareNamespaces(source: string): string;
