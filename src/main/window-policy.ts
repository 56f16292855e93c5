// Navigation rules of the app window as pure functions: the window shows our page and nothing else.
import { sameOrigin } from './ipc-guard.js';

/** True when a navigation stays on the app's own origin (app://txdesk, or the dev server's). */
export function isAllowedNavigation(targetUrl: string, appUrl: string): boolean {
  const target = URL.parse(targetUrl);
  const app = URL.parse(appUrl);
  if (!target || !app || target.protocol === 'file:' || !target.host) return false;
  return sameOrigin(target, app);
}
