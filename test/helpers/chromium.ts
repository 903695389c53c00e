/**
 * A real headless Chromium for tests, driven through playwright-core: the
 * system's browser (Debian's `chromium`), never one downloaded. Each launch
 * has a fresh profile (playwright makes a temporary user data dir and removes
 * it on close) and every network feature that would call out is off; the tests
 * run offline. A test file starts one browser in beforeAll (useChromium) and
 * opens a context per test.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const INSTALL_HINT = 'install it with `apt-get install -y chromium`';

/** Headless, offline, no first-run or background work; no sandbox (tests may run as root). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The chromium binary on PATH (Debian's is /usr/bin/chromium), or null when there is none. */
export function chromiumPath(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const path = join(dir, 'chromium');
    if (executable(path)) return path;
  }
  return null;
}

/**
 * Whether the browser tests run here. Outside CI a missing chromium skips them
 * with a message saying how to install it; in CI (CI=true) it is an error, so a
 * CI run can never pass by skipping them.
 */
export function browserTestsEnabled(): boolean {
  if (chromiumPath() !== null) return true;
  if (process.env.CI === 'true') throw new Error(`chromium is not installed but CI=true: ${INSTALL_HINT}`);
  console.warn(`skipping the browser tests: chromium is not installed; ${INSTALL_HINT}`);
  return false;
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === null) throw new Error(`chromium is not installed: ${INSTALL_HINT}`);
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS, timeout: 60_000 });
}

/**
 * One browser for the calling test file: launched in beforeAll (when the tests
 * are enabled here) and closed in afterAll. `browser()` is valid inside tests.
 */
export function useChromium(): { enabled: boolean; browser: () => Browser } {
  const enabled = browserTestsEnabled();
  let started: Browser | undefined;
  beforeAll(async () => {
    if (enabled) started = await launchChromium();
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    enabled,
    browser: () => {
      if (started === undefined) throw new Error('chromium is not running');
      return started;
    },
  };
}
