// Shared helper for the workbench tests (out/test/workbench/**/*.test.js, run by mocha in Node from
// scripts/test-vscode.mjs): starts VS Code's server from .tools/ and Debian's Chromium, opens the workbench on a
// fresh workspace folder holding the sample transcripts, with this extension loaded as the extension under
// development, and offers the few UI moves the tests need: open a file, run a command through the command
// palette (with retries while the extension host starts), read the editor selection, reach the webview frame.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
const SAMPLES = path.join(ROOT, 'samples');

interface VsCodeServer {
  url: string;
  port: number;
  version: string;
  logFile: string;
  stop(): Promise<void>;
}

interface ServerModule {
  startServer(runDir: string, options?: { env?: Record<string, string> }): Promise<VsCodeServer>;
  remoteUri(port: number, absolutePath: string): string;
  workbenchUrl(server: VsCodeServer, folder: string, payload?: [string, string][]): string;
}

interface BrowserModule {
  launchBrowser(
    runDir: string,
    options?: { viewport?: { width: number; height: number } },
  ): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }>;
}

interface ToolsModule {
  ensureTools(): void;
}

// TypeScript turns import() into require() under "module": "commonjs"; these helpers are ES modules, so keep a
// real dynamic import (works on every Node version, with or without require(esm)).
const importEsm = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;

function loadScript<T>(name: string): Promise<T> {
  return importEsm(pathToFileURL(path.join(ROOT, 'scripts', name)).href) as Promise<T>;
}

export interface EditorSelection {
  line: number;
  column: number;
  /** Characters selected, as the status bar reports them ("(12 selected)"); 0 when nothing is. */
  selected: number;
}

export interface Workbench {
  page: Page;
  /** Absolute path of the workspace folder (a fresh copy of the samples plus the requested files). */
  workspace: string;
  runDir: string;
  /** Opens a workspace file in an editor through Quick Open and waits for its tab. */
  openFile(relativePath: string): Promise<void>;
  /** Runs a command by its palette title (e.g. "Compaction Lens: Open Timeline"), retrying until it is listed. */
  runCommand(title: string): Promise<void>;
  /** The content frame of the (single) visible webview. */
  webview(): FrameLocator;
  /** The active editor's selection, read from the status bar ("Ln 12, Col 1 (34 selected)"). */
  editorSelection(): Promise<EditorSelection>;
  /** Stops the browser and the server (process group). Safe to call twice. */
  close(): Promise<void>;
}

export interface WorkbenchOptions {
  /** Extra files to write into the workspace before VS Code starts: relative path -> content (text or bytes). */
  files?: Record<string, string | Uint8Array>;
  /** Copy samples/*.jsonl and samples/*.json into the workspace root (default true). */
  samples?: boolean;
  /** The browser window's size (default 1400×900). */
  viewport?: { width: number; height: number };
  /** Workspace settings (.vscode/settings.json), e.g. { 'compactionLens.timeline.reuse': 'single' }. */
  settings?: Record<string, unknown>;
}

function newRunDir(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const dir = path.join(ROOT, '.test-runs', `${stamp}-${process.pid}-workbench-${Math.random().toString(36).slice(2, 6)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function populateWorkspace(workspace: string, options: WorkbenchOptions): void {
  mkdirSync(workspace, { recursive: true });
  if (options.samples !== false && existsSync(SAMPLES)) {
    for (const name of readdirSync(SAMPLES)) {
      if (name.endsWith('.jsonl') || name.endsWith('.json')) {
        cpSync(path.join(SAMPLES, name), path.join(workspace, name));
      }
    }
  }
  if (options.settings) {
    mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify(options.settings, null, 2));
  }
  for (const [relative, content] of Object.entries(options.files ?? {})) {
    const target = path.join(workspace, relative);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Closes the secondary side bar (VS Code opens Chat there) so the editors get the room; Ctrl+Alt+B toggles it. */
export async function hideSecondarySideBar(page: Page): Promise<void> {
  const bar = page.locator('.part.auxiliarybar');
  if (await bar.isVisible()) {
    await page.keyboard.press('Control+Alt+B');
    await bar.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  }
}

/** Starts server + browser and waits for the workbench. Call close() in an `after` hook. */
export async function startWorkbench(options: WorkbenchOptions = {}): Promise<Workbench> {
  const tools = await loadScript<ToolsModule>('ensure-tools.mjs');
  const serverModule = await loadScript<ServerModule>('vscodeServer.mjs');
  const browserModule = await loadScript<BrowserModule>('browser.mjs');
  tools.ensureTools();

  const runDir = newRunDir();
  const workspace = path.join(runDir, 'workspace');
  populateWorkspace(workspace, options);
  const server = await serverModule.startServer(path.join(runDir, 'server'));
  let browser: Awaited<ReturnType<BrowserModule['launchBrowser']>> | undefined;
  let failed = false;

  const close = async () => {
    await browser?.close();
    await server.stop();
    if (!failed && !process.env.KEEP_TEST_RUNS) {
      rmSync(runDir, { recursive: true, force: true });
    }
  };

  try {
    browser = await browserModule.launchBrowser(runDir, { viewport: options.viewport });
    const { page } = browser;
    const payload: [string, string][] = [
      ['extensionDevelopmentPath', serverModule.remoteUri(server.port, ROOT)],
      ['skipWelcome', 'true'],
    ];
    await page.goto(serverModule.workbenchUrl(server, workspace, payload));
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    // The explorer shows the folder once the remote connection is up.
    await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60_000 });

    await hideSecondarySideBar(page);

    const quickInput = page.locator('.quick-input-widget');
    const quickInputBox = quickInput.locator('input.input');

    const openFile = async (relativePath: string) => {
      const name = path.basename(relativePath);
      for (let attempt = 1; ; attempt++) {
        try {
          await page.keyboard.press('Control+P');
          await quickInputBox.waitFor({ state: 'visible', timeout: 10_000 });
          await quickInputBox.fill(relativePath, { timeout: 5_000 });
          // The row of the file itself, not "Timeline: <name>" (recently opened) listed above it.
          const label = page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`) });
          const row = quickInput.locator('.monaco-list-row', { has: label }).first();
          await row.waitFor({ state: 'visible', timeout: 10_000 });
          await row.click();
          // The tab reads "incident .jsonl" (name and extension apart); "Timeline: incident.jsonl" is not it.
          const tabLabel = new RegExp(`^\\s*${escapeRegExp(name).replace(/\\\./g, '\\s*\\.')}`);
          await page.locator('.editor-group-container.active .tab.active', { hasText: tabLabel }).first().waitFor({ timeout: 15_000 });
          // The editor takes the focus a moment after its tab shows (later still on a fresh, busy workbench). A
          // command palette opened before that closes again when the focus moves, and the command never runs:
          // the cause of the "first Open Timeline shows no webview" failures. So wait for the focus too.
          await page.waitForFunction(
            () => {
              const active = (globalThis as unknown as { document: { activeElement: { closest(s: string): unknown } | null } }).document
                .activeElement;
              return Boolean(active?.closest('.editor-group-container.active .editor-instance'));
            },
            undefined,
            { timeout: 15_000 },
          );
          return;
        } catch (error) {
          // Quick Open may not list a file the explorer has not indexed yet.
          console.warn(`      (opening ${relativePath} through Quick Open, attempt ${attempt}: ${String(error).split('\n')[0]})`);
          await page.keyboard.press('Escape');
          if (attempt >= 5) {
            throw new Error(`could not open ${relativePath} through Quick Open: ${String(error)}`, { cause: error });
          }
          await quickInput.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
        }
      }
    };

    const runCommand = async (title: string) => {
      // The row whose label is exactly the title (not "…in Group" variants listed next to it).
      const label = page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) });
      const row = quickInput.locator('.monaco-list-row', { has: label }).first();
      for (let attempt = 1; ; attempt++) {
        try {
          await page.keyboard.press('F1');
          await quickInputBox.waitFor({ state: 'visible', timeout: 10_000 });
          await quickInputBox.fill(`>${title}`, { timeout: 5_000 });
          await row.waitFor({ state: 'visible', timeout: 3_000 });
          await row.click();
          await quickInput.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
          return;
        } catch (error) {
          // Not listed yet: the extension host may still be starting (its commands come with it). A palette that
          // closed under us (the focus moved) is said out loud: that is what hid the first-open failures.
          if (!(await quickInput.isVisible())) console.warn(`      (the command palette closed before "${title}" could be chosen)`);
          await page.keyboard.press('Escape');
          if (attempt >= 30) {
            throw new Error(`command "${title}" never appeared in the command palette: ${String(error)}`, { cause: error });
          }
          await quickInput.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
        }
      }
    };

    const editorSelection = async (): Promise<EditorSelection> => {
      const item = page.locator('[id="status.editor.selection"]');
      await item.waitFor({ state: 'visible', timeout: 15_000 });
      const text = (await item.innerText()).trim();
      const match = /Ln (\d+), Col (\d+)(?: \((\d+) selected\))?/.exec(text);
      if (!match) {
        throw new Error(`unexpected status bar selection text: ${JSON.stringify(text)}`);
      }
      return { line: Number(match[1]), column: Number(match[2]), selected: Number(match[3] ?? 0) };
    };

    // The visible webview: a hidden one (another timeline's tab behind this one) may linger in the page.
    const webview = () => page.frameLocator('iframe.webview.ready:visible').frameLocator('#active-frame');

    return {
      page,
      workspace,
      runDir,
      openFile,
      runCommand,
      webview,
      editorSelection,
      close: async () => {
        await close();
      },
    };
  } catch (error) {
    failed = true;
    await close();
    throw new Error(`workbench did not start (kept ${runDir}; server log ${server.logFile}): ${String(error)}`, { cause: error });
  }
}

/** What the workbench shows, for a failure message: tabs, notifications, quick input, iframes, webview text. */
export async function describeWorkbench(workbench: Workbench, what: string): Promise<string> {
  // Kept outside the run folder, which is removed when the workbench closes.
  const failures = path.join(ROOT, '.test-runs', 'failures');
  mkdirSync(failures, { recursive: true });
  const shot = path.join(failures, `${Date.now()}-${what.replace(/[^\w.-]+/g, '_')}.png`);
  const { page } = workbench;
  await page.screenshot({ path: shot }).catch(() => undefined);
  const text = (selector: string) =>
    page
      .locator(selector)
      .allInnerTexts()
      .then(
        (t) => t.join(' | ') || '(none)',
        () => '(none)',
      );
  const iframes = await page
    .locator('iframe')
    .evaluateAll((frames) => frames.map((f) => f.className).join(', '))
    .catch(() => '?');
  const webviewText = await workbench
    .webview()
    .locator('body')
    .innerText({ timeout: 2_000 })
    .catch(() => '(no webview content)');
  return (
    `notifications: ${await text('.notifications-toasts')}\ntabs: ${await text('.tabs-container .tab')}\n` +
    `quick input: ${await text('.quick-input-widget:visible')}\niframes: ${iframes}\n` +
    `webview: ${webviewText.slice(0, 2000)}\nscreenshot: ${shot}`
  );
}

/** The Open Timeline button on the title of the active editor group (the editor/title menu). */
export function titleButton(workbench: Workbench): Locator {
  return workbench.page.locator('.editor-group-container.active .editor-actions a.action-label[aria-label^="Open Timeline"]');
}

/** The editor tabs whose label starts with "Timeline: " (our timeline panels). */
export function timelineTabs(workbench: Workbench): Locator {
  return workbench.page.locator('.tabs-container .tab', { hasText: /^\s*Timeline: / });
}

/**
 * Opens `file`, then its timeline through the command palette or the button on the editor's title, and waits
 * (by condition, no retry) until the timeline's rows have their data. The first open of a fresh workbench starts
 * the extension, its token worker and the first webview (VS Code's webview service worker is registered then),
 * so it gets a generous limit; a failure says what the workbench showed.
 */
export async function openTimeline(workbench: Workbench, file: string, through: 'palette' | 'title' = 'palette'): Promise<FrameLocator> {
  const view = workbench.webview();
  const name = path.basename(file);
  try {
    await workbench.openFile(file);
    if (through === 'title') await titleButton(workbench).click({ timeout: 60_000 });
    else await workbench.runCommand('Compaction Lens: Open Timeline');
    await timelineTabs(workbench).filter({ hasText: name }).first().waitFor({ timeout: 120_000 });
    await view.locator('.row[data-status]').first().waitFor({ timeout: 120_000 });
  } catch (error) {
    throw new Error(
      `the timeline of ${file} did not show: ${(error as Error).message}\n${await describeWorkbench(workbench, `open-${name}`)}`,
      {
        cause: error,
      },
    );
  }
  return view;
}

/** The index of the timeline's selected row (waits for one). */
export async function selectedIndex(view: FrameLocator): Promise<number> {
  const selected = view.locator('.row[aria-selected="true"]');
  await selected.first().waitFor({ state: 'attached', timeout: 10_000 });
  return Number(await selected.first().getAttribute('data-index'));
}

/** The editor group that is not the active one and shows a tab named `name` (a record opened beside the timeline). */
export function besideGroup(page: Page, name: string): Locator {
  return page.locator('.editor-group-container:not(.active)', { has: page.locator('.tab', { hasText: name }) });
}

/**
 * Waits until the editor in the group beside shows its cursor on `line` (1-based), read from its line numbers:
 * the timeline keeps the focus, so the status bar shows no editor position.
 */
export async function waitForCursorBeside(page: Page, name: string, line: number): Promise<void> {
  await besideGroup(page, name)
    .locator('.monaco-editor .line-numbers.active-line-number', { hasText: new RegExp(`^\\s*${line}\\s*$`) })
    .first()
    .waitFor({ timeout: 20_000 });
}

/** Makes the editor beside (showing `name`) the active one by clicking its tab; its cursor stays where it is. */
export async function activateEditorBeside(workbench: Workbench, name: string): Promise<void> {
  await besideGroup(workbench.page, name).locator('.tab', { hasText: name }).first().click();
  await workbench.page.locator('.editor-group-container.active .tab.active', { hasText: name }).first().waitFor({ timeout: 10_000 });
}

/** Largest picture kept as taken; a larger one is reduced to 256 colours by pngquant (Debian's), when present. */
const MAX_PICTURE_BYTES = 400 * 1024;

/**
 * Saves a picture of the workbench for the README: the side bars hidden so the timeline gets the width, the
 * pointer away from anything with a tooltip, and the webview's fonts loaded. The side bar is shown again after.
 */
export async function takeScreenshot(workbench: Workbench, view: FrameLocator, target: string): Promise<void> {
  const { page } = workbench;
  await hideSecondarySideBar(page);
  const sideBar = page.locator('.part.sidebar');
  const hadSideBar = await sideBar.isVisible();
  if (hadSideBar) {
    await page.keyboard.press('Control+B');
    await sideBar.waitFor({ state: 'hidden', timeout: 5_000 });
  }
  await page.mouse.move(1, 450);
  // No tooltip left over from the last click (a hover fades after the pointer leaves).
  await page.waitForFunction(
    () => {
      const scope = globalThis as unknown as {
        document: { querySelectorAll(selector: string): ArrayLike<{ getClientRects(): ArrayLike<unknown> }> };
      };
      return Array.from(scope.document.querySelectorAll('.workbench-hover-container, .monaco-hover:not(.hidden)')).every(
        (hover) => hover.getClientRects().length === 0,
      );
    },
    undefined,
    { timeout: 10_000 },
  );
  // Fonts loaded and two frames drawn after the resize, in the webview and around it.
  const settled = () =>
    new Promise((resolve) => {
      const scope = globalThis as unknown as {
        document: { fonts: { ready: Promise<unknown> } };
        requestAnimationFrame(callback: () => void): number;
      };
      void scope.document.fonts.ready.then(() => scope.requestAnimationFrame(() => scope.requestAnimationFrame(() => resolve(true))));
    });
  await view.locator('body').evaluate(settled);
  await page.evaluate(settled);
  mkdirSync(path.dirname(target), { recursive: true });
  await page.screenshot({ path: target });
  if (statSync(target).size > MAX_PICTURE_BYTES) {
    const quantized = spawnSync('pngquant', ['--force', '--skip-if-larger', '--strip', '--output', target, '256', target]);
    if (quantized.error) console.warn(`      (${path.basename(target)} kept as taken: pngquant is not installed)`);
  }
  if (hadSideBar) await page.keyboard.press('Control+B');
  console.log(`      screenshot saved to ${path.relative(ROOT, target)} (${Math.round(statSync(target).size / 1024)} KB)`);
}
