// Settings read back from disk (settings.json headless, electron-store in the desktop app) pass the same schemas as a
// PATCH from the UI, field by field: a bad field (hand-edited, corrupted, written by malware) falls back to its
// default with a warning and never reaches the engine, where a bad fee cap would make every tracker message throw.
import { z } from 'zod';
import { policyPatchSchema, settingsPatchSchema } from '../../../shared/desktop-schemas.js';
import { defaultPolicy } from '../../config.js';
import type { PersistedSettings } from '../../ports.js';

const fieldSchemas = {
  ...settingsPatchSchema.shape,
  signedInAs: z.email().max(320).nullable(),
  approvalRules: z
    .array(
      z.object({
        id: z.uuid(),
        requester: z.object({
          kind: z.enum(['token', 'browser']),
          fingerprint: z.string().regex(/^[0-9a-f]{8}$/),
          label: z.string().max(200),
        }),
        maxPerDayWei: z.string().regex(/^[0-9]{1,78}$/),
        createdAt: z.iso.datetime(),
        spends: z.array(z.object({ at: z.iso.datetime(), wei: z.string().regex(/^[0-9]{1,78}$/) })).max(10_000),
      }),
    )
    .max(100),
} as const;

export interface ValidatedSettings {
  settings: PersistedSettings;
  /** Names (dotted) of fields that were present but invalid and were dropped. */
  dropped: string[];
}

/** Keeps each valid field of `raw`, drops the rest; unknown fields are ignored. Pure. */
export function validatePersistedSettings(raw: unknown): ValidatedSettings {
  const settings: Record<string, unknown> = {};
  const dropped: string[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { settings: {}, dropped: raw === undefined || raw === null ? [] : ['settings'] };
  const input = raw as Record<string, unknown>;
  for (const [name, schema] of Object.entries(fieldSchemas)) {
    if (name === 'policy' || !Object.hasOwn(input, name) || input[name] === undefined) continue;
    const r = (schema as z.ZodType).safeParse(input[name]);
    if (r.success) settings[name] = r.data;
    else dropped.push(name);
  }
  if (Object.hasOwn(input, 'policy') && input.policy !== undefined) {
    const p = input.policy;
    if (!p || typeof p !== 'object' || Array.isArray(p)) dropped.push('policy');
    else {
      const policy: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(policyPatchSchema.shape)) {
        const value = (p as Record<string, unknown>)[name];
        if (value === undefined) continue;
        const r = (schema as z.ZodType).safeParse(value);
        if (r.success) policy[name] = r.data;
        else dropped.push(`policy.${name}`);
      }
      // A cap below the first fee would refuse every transaction: both fall back to their defaults.
      const initial = BigInt((policy.initialFeeWei as string | undefined) ?? defaultPolicy.initialFeeWei);
      const cap = BigInt((policy.maxFeeWei as string | undefined) ?? defaultPolicy.maxFeeWei);
      if (cap < initial) {
        for (const k of ['initialFeeWei', 'maxFeeWei']) {
          if (k in policy) {
            delete policy[k];
            dropped.push(`policy.${k}`);
          }
        }
      }
      settings.policy = policy;
    }
  }
  return { settings: settings as PersistedSettings, dropped };
}

/** The warning for dropped fields, naming where they were read from. */
export function droppedWarning(where: string, dropped: string[]): string {
  return `${where} holds invalid settings (${dropped.join(', ')}); using the defaults for them. Fix them in the app's Settings or delete the file.`;
}
