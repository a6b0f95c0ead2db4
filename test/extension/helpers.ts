// Shared helpers for the extension-host tests: the activated extension's API, fresh copies of the sample
// transcript (or small transcripts written by a test) in temporary folders (tests never touch samples/), and
// polling for asynchronous effects. Temporary folders are made by tempFolders.ts and removed when the run ends.
import * as assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Turn } from '../../src/core/model';
import type { CompactionLensApi } from '../../src/extension/extension';
import type { TimelinePanel } from '../../src/extension/timelinePanel';
import type { HostMessage } from '../../src/protocol';
import { tempFolder } from './tempFolders';

export const EXTENSION_ID = 'compaction-lens.compaction-lens';

export async function extensionApi(): Promise<CompactionLensApi> {
  const extension = vscode.extensions.getExtension<CompactionLensApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not loaded`);
  return extension.activate();
}

export function extensionPath(): string {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not loaded`);
  return extension.extensionPath;
}

/** Copies samples/<name> into a new temporary folder (or into `folder`) and returns the copy's URI. */
export function copySample(name = 'incident.jsonl', folder?: string): vscode.Uri {
  const target = folder ?? tempFolder();
  const file = path.join(target, name);
  copyFileSync(path.join(extensionPath(), 'samples', name), file);
  return vscode.Uri.file(file);
}

/** Writes `records` as JSON Lines to <new temporary folder>/<name> and returns the file's URI. */
export function writeTranscript(name: string, records: unknown[]): vscode.Uri {
  const file = path.join(tempFolder(), name);
  writeFileSync(file, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  return vscode.Uri.file(file);
}

/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 15000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function ourDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((diagnostic) => diagnostic.source === 'Compaction Lens');
}

export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** Records every message the host posts to the panel's webview (the real postMessage still runs). */
export function recordPosts(timeline: TimelinePanel): HostMessage[] {
  const posted: HostMessage[] = [];
  const webview = timeline.panel.webview;
  const post = webview.postMessage.bind(webview);
  Object.defineProperty(webview, 'postMessage', {
    configurable: true,
    value: (message: HostMessage) => {
      posted.push(message);
      return post(message);
    },
  });
  return posted;
}

/**
 * Each turn of a document read a message at a time sits on its own message in `file`: its span starts at the
 * message's `{`, and its lines hold `needle(turn)` (where a click on the timeline goes).
 */
export function assertTurnsOnOwnMessages(file: string, turns: readonly Turn[], needle: (turn: Turn) => string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  for (const turn of turns) {
    const own = lines.slice(turn.span.startLine - 1, turn.span.endLine).join('\n');
    assert.ok(own.includes(needle(turn)), `turn ${String(turn.id)} at lines ${turn.span.startLine}–${turn.span.endLine}`);
    assert.equal(lines[turn.span.startLine - 1].trim(), '{');
  }
}
