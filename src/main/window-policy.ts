// Navigation rules of the app window as pure functions: the window shows our page and nothing else.

/** True when a navigation stays on the loaded page (a reload, or a hash change in the dev server). */
export function isAllowedNavigation(targetUrl: string, appUrl: string): boolean {
  try {
    const target = new URL(targetUrl);
    const app = new URL(appUrl);
    if (target.protocol !== app.protocol) return false;
    if (app.protocol === 'file:') return target.pathname === app.pathname;
    return target.origin === app.origin;
  } catch {
    return false;
  }
}

