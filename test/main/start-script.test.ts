// `npm start` decides between Electron and the browser mode without building or starting anything (--dry-run).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function decide(env: NodeJS.ProcessEnv, ...args: string[]): string {
  const r = spawnSync(process.execPath, ['scripts/start.js', '--dry-run', ...args], { env, encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

const withoutDisplay = () => {
  const env = { ...process.env };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  return env;
};

describe('npm start mode choice', () => {
  it.runIf(process.platform === 'linux')('falls back to the browser without a display, saying why in one line', () => {
    expect(decide(withoutDisplay())).toBe('serve: there is no display (DISPLAY is not set)');
  });

  it('falls back when asked to', () => {
    expect(decide(process.env, '--serve')).toBe('serve: asked for the browser mode (--serve)');
  });

  it('with a display, runs Electron only when its runtime is installed and runs', () => {
    const out = decide({ ...process.env, DISPLAY: ':0' });
    expect(out).toMatch(/^(electron|serve: the Electron runtime (is not installed|does not run on this machine).*)$/);
    expect(out.split('\n')).toHaveLength(1);
  });
});
