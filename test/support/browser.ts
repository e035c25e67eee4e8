// Headless Chromium for the console's end-to-end tests: Debian's /usr/bin/chromium driven by
// playwright-core (which downloads no browser). In CI a missing browser is a failure (.ci/run
// installs it); elsewhere the tests are skipped with a message saying what to install.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.SLIPWAY_CHROMIUM ?? '/usr/bin/chromium';

/** Undefined when Chromium is there; the reason to skip otherwise (throws in CI). */
export function requireChromium(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const msg = `${CHROMIUM} is missing: apt-get install -y chromium`;
  if (process.env.CI) throw new Error(msg);
  return msg;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where tests leave screenshots for a reviewer: test-output/console/ (gitignored). */
export function screenshotPath(name: string): string {
  const dir = join(process.cwd(), 'test-output', 'console');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}
