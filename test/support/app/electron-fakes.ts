// Stand-ins for Electron's BrowserWindow and its webContents, for tests that replace `electron` only at its edges:
// they record what main does to them (options, loaded URL, listeners, events sent to the page).
export class FakeWebContents {
  id = 7;
  listeners = new Map<string, (...a: unknown[]) => void>();
  openHandler: ((d: { url: string }) => { action: string }) | null = null;
  sent: [string, unknown][] = [];
  mainFrame = { processId: 3, routingId: 1, url: '' };
  setWindowOpenHandler(fn: (d: { url: string }) => { action: string }) {
    this.openHandler = fn;
  }
  on(name: string, fn: (...a: unknown[]) => void) {
    this.listeners.set(name, fn);
  }
  send(channel: string, value: unknown) {
    this.sent.push([channel, value]);
  }
}

export class FakeWindow {
  /** Every window created, in order; tests empty it between cases. */
  static created: FakeWindow[] = [];
  webContents = new FakeWebContents();
  loaded = '';
  constructor(readonly options: { webPreferences: Record<string, unknown> }) {
    FakeWindow.created.push(this);
  }
  loadURL(url: string) {
    this.loaded = url;
    this.webContents.mainFrame.url = url;
    return Promise.resolve();
  }
  once() {}
  show() {}
  isDestroyed() {
    return false;
  }
  isMinimized() {
    return false;
  }
}
