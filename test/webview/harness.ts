// Runs the real webview bundle in Debian's Chromium (playwright-core): builds webview/main.ts with esbuild,
// serves the page renderWebviewHtml produces from 127.0.0.1 with a nonce'd fake acquireVsCodeApi whose
// messages go to a FakeHost in Node, and collects CSP violations, console errors and requested URLs.

import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { renderWebviewHtml } from '../../src/view/webviewHtml';
import type { Problem } from '../../src/core/model';
import type { HostMessage, ViewState, WebviewMessage } from '../../src/protocol';
import { FakeHost, type FixtureDataset } from './fixture';

const repoRoot = resolve(__dirname, '..', '..', '..');
export const CHROMIUM = '/usr/bin/chromium';

// TypeScript turns import() into require() under "module": "commonjs"; scripts/browser.mjs is an ES module.
const importEsm = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;

/** The Chromium flags the real-VS-Code tests use (scripts/browser.mjs), so both launch the same browser. */
async function chromiumArgs(): Promise<string[]> {
  const browser = (await importEsm(pathToFileURL(resolve(__dirname, '../../../scripts/browser.mjs')).href)) as { CHROMIUM_ARGS: string[] };
  return browser.CHROMIUM_ARGS;
}

/** Theme variables as VS Code sets them (a few of each), so colours and contrast can be checked. */
export const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      '--vscode-font-family': 'system-ui, "DejaVu Sans", sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': '"DejaVu Sans Mono", monospace',
      '--vscode-foreground': '#cccccc',
      '--vscode-descriptionForeground': '#9d9d9d',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-sideBar-background': '#181818',
      '--vscode-panel-border': '#2b2b2b',
      '--vscode-focusBorder': '#0078d4',
      '--vscode-testing-iconPassed': '#73c991',
      '--vscode-errorForeground': '#f85149',
      '--vscode-editorWarning-foreground': '#cca700',
      '--vscode-charts-blue': '#3794ff',
      '--vscode-charts-purple': '#b180d7',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-yellow': '#cca700',
      '--vscode-list-activeSelectionBackground': '#04395e',
      '--vscode-list-activeSelectionForeground': '#ffffff',
      '--vscode-list-inactiveSelectionBackground': '#37373d',
      '--vscode-list-hoverBackground': '#2a2d2e',
      '--vscode-badge-background': '#616161',
      '--vscode-badge-foreground': '#f8f8f8',
      '--vscode-input-background': '#313131',
      '--vscode-textCodeBlock-background': '#2b2b2b',
      '--vscode-editor-findMatchHighlightBackground': 'rgba(234, 92, 0, 0.33)',
      '--vscode-button-background': '#0078d4',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-secondaryBackground': '#313131',
      '--vscode-button-secondaryForeground': '#cccccc',
      '--vscode-dropdown-background': '#313131',
      '--vscode-dropdown-foreground': '#cccccc',
      '--vscode-dropdown-border': '#3c3c3c',
      '--vscode-inputValidation-errorBackground': '#5a1d1d',
      '--vscode-inputValidation-errorBorder': '#be1100',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    vars: {
      '--vscode-font-family': 'system-ui, "DejaVu Sans", sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': '"DejaVu Sans Mono", monospace',
      '--vscode-foreground': '#3b3b3b',
      '--vscode-descriptionForeground': '#717171',
      '--vscode-editor-background': '#ffffff',
      '--vscode-sideBar-background': '#f8f8f8',
      '--vscode-panel-border': '#e5e5e5',
      '--vscode-focusBorder': '#005fb8',
      '--vscode-testing-iconPassed': '#388a34',
      '--vscode-errorForeground': '#e51400',
      '--vscode-editorWarning-foreground': '#bf8803',
      '--vscode-charts-blue': '#1a85ff',
      '--vscode-charts-purple': '#652d90',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-yellow': '#bf8803',
      '--vscode-list-activeSelectionBackground': '#e8e8e8',
      '--vscode-list-activeSelectionForeground': '#000000',
      '--vscode-list-inactiveSelectionBackground': '#e4e6f1',
      '--vscode-list-hoverBackground': '#f2f2f2',
      '--vscode-badge-background': '#cccccc',
      '--vscode-badge-foreground': '#3b3b3b',
      '--vscode-input-background': '#ffffff',
      '--vscode-textCodeBlock-background': '#f2f2f2',
      '--vscode-editor-findMatchHighlightBackground': 'rgba(234, 92, 0, 0.25)',
      '--vscode-button-background': '#005fb8',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-secondaryBackground': '#e5e5e5',
      '--vscode-button-secondaryForeground': '#3b3b3b',
      '--vscode-dropdown-background': '#ffffff',
      '--vscode-dropdown-foreground': '#3b3b3b',
      '--vscode-dropdown-border': '#cecece',
      '--vscode-inputValidation-errorBackground': '#f2dede',
      '--vscode-inputValidation-errorBorder': '#be1100',
    },
  },
  'high-contrast': {
    bodyClass: 'vscode-high-contrast',
    vars: {
      '--vscode-font-family': 'system-ui, "DejaVu Sans", sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': '"DejaVu Sans Mono", monospace',
      '--vscode-foreground': '#ffffff',
      '--vscode-descriptionForeground': '#ffffff',
      '--vscode-editor-background': '#000000',
      '--vscode-contrastBorder': '#6fc3df',
      '--vscode-contrastActiveBorder': '#f38518',
      '--vscode-panel-border': '#6fc3df',
      '--vscode-focusBorder': '#f38518',
      '--vscode-testing-iconPassed': '#73c991',
      '--vscode-errorForeground': '#f48771',
      '--vscode-editorWarning-foreground': '#ffd370',
      '--vscode-charts-blue': '#3794ff',
      '--vscode-charts-purple': '#b180d7',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-yellow': '#ffd370',
      '--vscode-list-focusOutline': '#f38518',
      '--vscode-list-hoverBackground': 'transparent',
      '--vscode-badge-background': '#000000',
      '--vscode-badge-foreground': '#ffffff',
      '--vscode-input-background': '#000000',
      '--vscode-textCodeBlock-background': '#000000',
      '--vscode-editor-findMatchHighlightBorder': '#f38518',
      '--vscode-button-background': '#000000',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-border': '#6fc3df',
      '--vscode-dropdown-background': '#000000',
      '--vscode-dropdown-foreground': '#ffffff',
      '--vscode-dropdown-border': '#6fc3df',
    },
  },
} as const;

export type ThemeName = keyof typeof THEMES;

export interface OpenOptions {
  theme?: ThemeName;
  /** What the fake vscode.getState() returns at start. */
  initialState?: ViewState;
  /** Given to the host's init as `restore`. */
  restore?: ViewState;
  viewport?: { width: number; height: number };
  /** The problems the host's init carries (the analysis's unless given). */
  problems?: Problem[];
  /** What to wait for before returning (default: a drawn row). */
  waitFor?: string;
  /** A script run in the page before its own (the bench's timers, a test's watch on the DOM). */
  initScript?: string;
  /** Whether init carries the rows the timeline starts on, as the panel's does (default true). */
  firstRows?: boolean;
}

export interface OpenedPage {
  page: Page;
  host: FakeHost;
  /** Problems seen by the page: CSP violations, console errors, uncaught exceptions. */
  problems(): Promise<string[]>;
}

/** One browser, one server and one bundle for a test file. */
export class WebviewHarness {
  private browser: Browser | undefined;
  private server: Server | undefined;
  private buildDir = '';
  private origin = '';
  /** Every path the page asked the server for. */
  readonly requestedPaths: string[] = [];
  private contexts: BrowserContext[] = [];

  async start(): Promise<void> {
    this.buildDir = mkdtempSync(join(tmpdir(), 'cl-webview-'));
    await esbuild.build({
      entryPoints: [join(repoRoot, 'webview', 'main.ts')],
      bundle: true,
      outfile: join(this.buildDir, 'webview.js'),
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      logLevel: 'silent',
    });
    this.server = createServer((request, response) => this.serve(request.url ?? '/', response));
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: await chromiumArgs(),
    });
  }

  async stop(): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    await this.browser?.close();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
    if (this.buildDir) rmSync(this.buildDir, { recursive: true, force: true });
  }

  /** Opens the webview page on `dataset`, waits until the first rows are drawn. */
  async open(dataset: FixtureDataset, options: OpenOptions = {}): Promise<OpenedPage> {
    const context = await this.browser!.newContext({ viewport: options.viewport ?? { width: 1280, height: 820 } });
    this.contexts.push(context);
    const page = await context.newPage();
    const seen: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') seen.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
    await page.addInitScript(
      '(() => { window.__cspViolations = []; document.addEventListener("securitypolicyviolation", (e) => ' +
        'window.__cspViolations.push(e.violatedDirective + " blocked " + e.blockedURI + " " + (e.sample || "") + " at " + ' +
        'e.sourceFile + ":" + e.lineNumber + ":" + e.columnNumber)); })()',
    );
    if (options.initScript) await page.addInitScript(options.initScript);
    const respond = (message: HostMessage): void => {
      page.evaluate('window.postMessage(' + JSON.stringify(message) + ', "*")').catch(() => undefined);
    };
    const host = new FakeHost(dataset, respond);
    host.restore = options.restore;
    host.sendsFirstRows = options.firstRows ?? true;
    if (options.problems) host.problems = options.problems;
    await page.exposeFunction('__clToHost', (json: string) => host.handle(JSON.parse(json) as WebviewMessage));
    const query = new URLSearchParams({ theme: options.theme ?? 'dark' });
    if (options.initialState) query.set('state', JSON.stringify(options.initialState));
    await page.goto(`${this.origin}/?${query}`);
    await page.waitForSelector(options.waitFor ?? '.row[data-status]');
    return {
      page,
      host,
      problems: async () => [...seen, ...((await page.evaluate('window.__cspViolations')) as string[])],
    };
  }

  private serve(url: string, response: import('node:http').ServerResponse): void {
    const parsed = new URL(url, 'http://127.0.0.1');
    this.requestedPaths.push(parsed.pathname);
    const send = (type: string, body: string | Buffer): void => {
      response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    if (parsed.pathname === '/') {
      send('text/html; charset=utf-8', this.page(parsed.searchParams));
    } else if (parsed.pathname === '/dist/webview.js' || parsed.pathname === '/dist/webview.css') {
      const file = join(this.buildDir, parsed.pathname.slice('/dist/'.length));
      send(parsed.pathname.endsWith('.js') ? 'text/javascript' : 'text/css', readFileSync(file));
    } else if (parsed.pathname.startsWith('/theme-')) {
      const name = parsed.pathname.slice('/theme-'.length, -'.css'.length) as ThemeName;
      const theme = THEMES[name] ?? THEMES.dark;
      const vars = Object.entries(theme.vars)
        .map(([key, value]) => `  ${key}: ${value};`)
        .join('\n');
      send('text/css', `html {\n${vars}\n}\n`);
    } else if (parsed.pathname === '/favicon.ico') {
      response.writeHead(204);
      response.end();
    } else {
      response.writeHead(404);
      response.end();
    }
  }

  /** The panel HTML, plus what VS Code adds around it: theme variables, a body class and acquireVsCodeApi. */
  private page(params: URLSearchParams): string {
    const nonce = 'TestNonce' + Math.random().toString(36).slice(2);
    const theme = (params.get('theme') ?? 'dark') as ThemeName;
    const html = renderWebviewHtml({
      cspSource: this.origin,
      nonce,
      scriptUri: `${this.origin}/dist/webview.js`,
      styleUri: `${this.origin}/dist/webview.css`,
      title: 'Compaction timeline',
    });
    const state = params.get('state');
    const fakeApi = `<script nonce="${nonce}">
(() => {
  document.body.classList.add(${JSON.stringify(THEMES[theme].bodyClass)});
  window.__posted = [];
  window.__setStateCalls = [];
  window.__state = ${state ? JSON.stringify(JSON.parse(state)).replace(/</g, '\\u003c') : 'undefined'};
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi called twice');
    acquired = true;
    return {
      postMessage(message) { window.__posted.push(message); window.__clToHost(JSON.stringify(message)); },
      getState() { return window.__state; },
      setState(value) { window.__state = value; window.__setStateCalls.push(value); return value; },
    };
  };
})();
</script>
`;
    const themeLink = `<link rel="stylesheet" href="${this.origin}/theme-${theme}.css">\n`;
    if (!html.includes('<link rel="stylesheet"') || !html.includes(`<script nonce="${nonce}"`)) {
      throw new Error('renderWebviewHtml output changed shape: update the test harness');
    }
    return html
      .replace('<link rel="stylesheet"', `${themeLink}<link rel="stylesheet"`)
      .replace(`<script nonce="${nonce}"`, `${fakeApi}<script nonce="${nonce}"`);
  }
}

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

/** Polls `probe` until it gives something other than undefined or false, or fails after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** The page had no CSP violation, console error or page error. */
export async function assertClean(opened: OpenedPage): Promise<void> {
  assert.deepEqual(await opened.problems(), [], 'no CSP violation, console error or page error');
}
