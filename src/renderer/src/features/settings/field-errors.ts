// Errors that point at their field, in plain words: the settings forms check each field before saving, and a refusal
// from the core is shown beside the fields its issues name (their paths, as data) and as a sentence for the rest.
import type { ErrorInfo } from '../../transport/api-error.js';
import { MAX_BUMP_PERCENT, MIN_BUMP_PERCENT } from '../../../../shared/defaults.js';

/** Field name -> the sentence to show beside it. */
export type FieldErrors = Readonly<Record<string, string>>;

/** What each field must be, said once; used for the core's refusals of the same field. */
export const fieldRules: Readonly<Record<string, string>> = {
  nodeUrl: 'Enter the node’s address as an http://, https://, ws:// or wss:// URL, e.g. https://rpc.example.org.',
  serviceUrl: 'Enter the data service’s address as an http:// or https:// URL, e.g. https://api.example.org.',
  platform: 'Use lowercase letters, digits and dashes only, at most 40, e.g. ethereum.',
  network: 'Use lowercase letters, digits and dashes only, at most 40, e.g. mainnet or sepolia.',
  clientId: 'Paste the client ID exactly as `txdesk account:describe` prints it (at most 200 characters).',
  initialFee: 'The first fee is a positive number of gwei, e.g. 1 or 1.5.',
  maxFee: 'The fee cap is a number of gwei at least as high as the first fee, e.g. 50.',
  bumpPercent: `The bump is between ${MIN_BUMP_PERCENT} and ${MAX_BUMP_PERCENT} percent; nodes refuse replacements below ${MIN_BUMP_PERCENT}.`,
  maxReplacements: 'Replacements per nonce is a whole number from 0 to 100.',
  timeoutSeconds: 'The pending timeout is between 1 and 600 seconds.',
  confirmations: 'Confirmations is a whole number from 1 to 1000.',
};

/** The core's policy fields, named as the form names them. */
const coreToForm: Readonly<Record<string, string>> = {
  'policy.initialFeeWei': 'initialFee',
  'policy.maxFeeWei': 'maxFee',
  'policy.bumpPercent': 'bumpPercent',
  'policy.maxReplacements': 'maxReplacements',
  'policy.timeoutMs': 'timeoutSeconds',
  'policy.confirmations': 'confirmations',
};

/**
 * A refusal from the core as field errors where an issue names a field this form has (`fields`, by the error's field
 * paths), else as a form-level sentence with any validator pattern taken out.
 */
export function apiErrorToFields(error: ErrorInfo, fields: readonly string[]): { fields: FieldErrors; form: string | null } {
  const shown: Record<string, string> = {};
  const rest: string[] = [];
  for (const issue of error.fields ?? []) {
    const field = coreToForm[issue.path] ?? issue.path;
    if (fields.includes(field)) shown[field] = fieldRules[field] ?? plain(issue.problem ? `${issue.problem}.` : issue.sentence);
    else rest.push(issue.sentence);
  }
  if (!error.fields) rest.push(error.message);
  return { fields: shown, form: rest.length > 0 ? plain(rest.join(' ')) : null };
}

/** Drops validator jargon: regex literals and "Invalid string:" prefixes. */
export function plain(message: string): string {
  return message
    .replace(/\s*must match pattern \/.*?\/[a-z]*/g, ' is not in the expected form')
    .replace(/\/\^.*?\$\/[a-z]*/g, 'the expected form')
    .replace(/Invalid (string|input|option|url|URL):\s*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const slug = /^[a-z0-9-]{1,40}$/;

function isUrl(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** The network form's fields, checked the way the core checks them. */
export function checkNetwork(form: { nodeUrl: string; serviceUrl: string; platform: string; network: string }): FieldErrors {
  const e: Record<string, string> = {};
  if (!isUrl(form.nodeUrl.trim(), ['http:', 'https:', 'ws:', 'wss:'])) e.nodeUrl = fieldRules.nodeUrl!;
  if (!isUrl(form.serviceUrl.trim(), ['http:', 'https:'])) e.serviceUrl = fieldRules.serviceUrl!;
  if (!slug.test(form.platform.trim())) e.platform = fieldRules.platform!;
  if (!slug.test(form.network.trim())) e.network = fieldRules.network!;
  return e;
}
