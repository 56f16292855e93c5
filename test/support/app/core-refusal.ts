// What the renderer keeps of a refusal by the core's validating face: the core's own checks run on the arguments, and
// the error comes back as it crosses IPC or HTTP (code, message and the fields it names).
import { checkArgs } from '../../../src/core/services/desktop-api-validated.js';
import { errorInfo, type ErrorInfo } from '../../../src/renderer/src/transport/api-error.js';
import type { CallMethod } from '../../../src/shared/desktop-api.js';

export function coreRefusal(method: CallMethod, args: unknown[]): ErrorInfo {
  try {
    checkArgs(method, args);
  } catch (e) {
    return errorInfo(e);
  }
  throw new Error(`the core accepted the arguments of ${method}`);
}
