// Numbers that several parts of txdesk must agree on, each defined once: the core, the CLI, the data service and the
// renderer's forms and help texts import them from here, so a change is one edit.

/** Nodes (geth 10 %, anvil/reth/erigon similar) refuse replacements bumped less than this; we never go lower. */
export const MIN_BUMP_PERCENT = 12.5;
/** The replacement bump a setting may ask for at most. */
export const MAX_BUMP_PERCENT = 1000;
/** The app's localhost server (`txdesk serve`, and the desktop app when Settings > localApi is on). */
export const DEFAULT_APP_PORT = 3000;
/** The data service (`txdesk service`). */
export const DEFAULT_SERVICE_PORT = 4000;
/** The data service's URL when nothing else is configured. */
export const DEFAULT_SERVICE_URL = `http://127.0.0.1:${DEFAULT_SERVICE_PORT}`;
/** The dev chain's JSON-RPC port (`txdesk devchain`), anvil's own default. */
export const DEFAULT_DEVCHAIN_PORT = 8545;
/** Longest overlap of a webhook's old secret after a rotation: the service's limit and the CLI's help text. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 60 * 60;
