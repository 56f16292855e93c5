// The person at the app, for tests of approvals: answers every request waiting in the app through its page's session
// (the login cookie, as the app's own page does; the bearer token alone cannot decide).
import { sessionCookieName, sessionCookieValue } from '../../../src/core/adapters/http/app-server-auth.js';
import type { ApprovalRequest } from '../../../src/shared/approvals.js';

/** Approves (or declines) what waits in the app at `apiUrl`, every 100 ms, until `stop()` says so. */
export async function answerWhatWaits(
  apiUrl: string,
  token: string,
  approve: boolean | (() => boolean),
  stop: () => boolean,
): Promise<void> {
  const cookie = `${sessionCookieName(Number(new URL(apiUrl).port))}=${sessionCookieValue(token)}`;
  while (!stop()) {
    const waiting = (await (await fetch(`${apiUrl}/api/approvals`, { headers: { cookie } })).json()) as ApprovalRequest[];
    for (const w of waiting) {
      const answer = typeof approve === 'function' ? approve() : approve;
      await fetch(`${apiUrl}/api/approvals/${w.id}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', origin: apiUrl },
        body: JSON.stringify({ approve: answer }),
      });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
