export function asScriptModule(source: string, filename?: string): string;
