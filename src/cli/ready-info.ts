// Reading the loosely typed readyInfo() objects of the started modules for the human summaries.

export function text(value: unknown, fallback = '?'): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' ? String(value) : fallback;
}

export function listOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];
}
