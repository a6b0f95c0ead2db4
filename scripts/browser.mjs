// Launches Debian's Chromium (/usr/bin/chromium) through playwright-core for the real-VS-Code tests: headless,
// with a persistent context in a fresh profile folder (Playwright refuses --user-data-dir in args). We never run
// `playwright install`: the browser comes from apt, see ../shared/notes/real-vscode-offline.md.

import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH } from './ensure-tools.mjs';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches Chromium with a fresh profile under `runDir`. Returns { context, page, close() }.
 * Options: viewport (default 1400x900).
 */
export async function launchBrowser(runDir, options = {}) {
  mkdirSync(runDir, { recursive: true });
  const profile = mkdtempSync(path.join(runDir, 'chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  let closed = false;
  const close = async () => {
    if (closed) {
      return;
    }
    closed = true;
    await context.close().catch(() => undefined);
  };
  return { context, page, close };
}
