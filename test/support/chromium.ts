import { chromium, type Browser } from 'playwright-core';
import type { SystemTool } from './system-tools.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The browser the real-browser suites drive (Debian's chromium, or CHROMIUM_PATH). */
export const CHROMIUM_TOOL: SystemTool = { command: CHROMIUM, install: 'apt-get install -y chromium, or set CHROMIUM_PATH' };

/** Headless chromium, off every network but the service's own address. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    ],
  });
}
