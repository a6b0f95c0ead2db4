// Shared helper for the workbench tests (out/test/workbench/**/*.test.js, run by mocha in Node from
// scripts/test-vscode.mjs): starts VS Code's server from .tools/ and Debian's Chromium, opens the workbench on a
// fresh workspace folder holding the sample transcripts, with this extension loaded as the extension under
// development, and offers the few UI moves the tests need: open a file, run a command through the command
// palette (with retries while the extension host starts), read the editor selection, reach the webview frame.
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';

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
  launchBrowser(runDir: string): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }>;
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
  for (const [relative, content] of Object.entries(options.files ?? {})) {
    const target = path.join(workspace, relative);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    browser = await browserModule.launchBrowser(runDir);
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
        await page.keyboard.press('Control+P');
        await quickInputBox.waitFor({ state: 'visible', timeout: 10_000 });
        await quickInputBox.fill(relativePath);
        const row = quickInput.locator('.monaco-list-row', { hasText: name }).first();
        try {
          await row.waitFor({ state: 'visible', timeout: 10_000 });
          await page.keyboard.press('Enter');
          await page.locator('.tabs-container .tab', { hasText: name }).first().waitFor({ timeout: 15_000 });
          return;
        } catch (error) {
          await page.keyboard.press('Escape');
          if (attempt >= 5) {
            throw new Error(`could not open ${relativePath} through Quick Open: ${String(error)}`, { cause: error });
          }
          await sleep(1000);
        }
      }
    };

    const runCommand = async (title: string) => {
      for (let attempt = 1; ; attempt++) {
        await page.keyboard.press('F1');
        await quickInputBox.waitFor({ state: 'visible', timeout: 10_000 });
        await quickInputBox.fill(`>${title}`);
        // The row whose label is exactly the title (not "…in Group" variants listed next to it).
        const label = page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) });
        const row = quickInput.locator('.monaco-list-row', { has: label }).first();
        try {
          await row.waitFor({ state: 'visible', timeout: 3_000 });
          await row.click();
          await quickInput.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
          return;
        } catch (error) {
          // Not listed yet: the extension host may still be starting.
          await page.keyboard.press('Escape');
          if (attempt >= 30) {
            throw new Error(`command "${title}" never appeared in the command palette: ${String(error)}`, { cause: error });
          }
          await sleep(1000);
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

    const webview = () => page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');

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
