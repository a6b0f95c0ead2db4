// Reads and validates a coverage label file (the format of the shared corpus's labels/README.md): which
// checkpoint (boundary_line), which transcript (file), and one hand-made label per turn. Every problem is a
// LabelsError whose message names the file and the field, for the user to fix.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export type LabelValue = 'covered' | 'missing' | 'no-content';
export const LABEL_VALUES: readonly LabelValue[] = ['covered', 'missing', 'no-content'];

export interface Label {
  /** Position in the file's `labels` array, for messages ("labels[3]"). */
  position: number;
  /** 1-based file line of the turn's first record: how a label is matched to a turn. */
  line: number;
  label: LabelValue;
  why?: string;
  turnIndex?: number;
  role?: string;
  kind?: string;
}

export interface LabelSet {
  /** The label file, as given. */
  path: string;
  /** The transcript named by the labels, relative to the corpus folder (the label folder's parent). */
  file?: string;
  /** 1-based line of the compaction record the labels judge. */
  boundaryLine: number;
  labels: Label[];
}

export class LabelsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelsError';
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPositiveInteger = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1;
const shown = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));

function optionalString(path: string, where: string, object: Json, key: string): string | undefined {
  const value = object[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new LabelsError(`${path}: ${where}${key} must be a string, got ${shown(value)}`);
  return value;
}

function readLabel(path: string, entry: unknown, position: number): Label {
  const where = `labels[${position}]`;
  if (!isObject(entry)) throw new LabelsError(`${path}: ${where} must be an object, got ${shown(entry)}`);
  if (!isPositiveInteger(entry.line)) {
    throw new LabelsError(`${path}: ${where}.line must be the 1-based file line of the turn's first record, got ${shown(entry.line)}`);
  }
  if (!LABEL_VALUES.includes(entry.label as LabelValue)) {
    throw new LabelsError(
      `${path}: ${where}.label must be one of ${LABEL_VALUES.map((v) => `"${v}"`).join(', ')}, got ${shown(entry.label)}`,
    );
  }
  const turnIndex = entry.turn_index;
  if (turnIndex !== undefined && !(Number.isInteger(turnIndex) && (turnIndex as number) >= 0)) {
    throw new LabelsError(`${path}: ${where}.turn_index must be a whole number ≥ 0, got ${shown(turnIndex)}`);
  }
  return {
    position,
    line: entry.line,
    label: entry.label as LabelValue,
    why: optionalString(path, `${where}.`, entry, 'why'),
    turnIndex: turnIndex as number | undefined,
    role: optionalString(path, `${where}.`, entry, 'role'),
    kind: optionalString(path, `${where}.`, entry, 'kind'),
  };
}

/** Validates a parsed label document. `path` is only used in messages. */
export function parseLabels(path: string, document: unknown): LabelSet {
  if (!isObject(document))
    throw new LabelsError(`${path}: a label file is one JSON object with "boundary_line" and "labels", got ${shown(document)}`);
  const file = optionalString(path, '', document, 'file');
  if (file === '') throw new LabelsError(`${path}: file must name the transcript (relative to the corpus folder), got ""`);
  if (!isPositiveInteger(document.boundary_line)) {
    throw new LabelsError(
      `${path}: boundary_line must be the 1-based file line of the compaction record, got ${shown(document.boundary_line)}`,
    );
  }
  if (!Array.isArray(document.labels))
    throw new LabelsError(`${path}: labels must be an array of labelled turns, got ${shown(document.labels)}`);
  if (document.labels.length === 0) throw new LabelsError(`${path}: labels is empty: there is nothing to measure`);
  const labels = document.labels.map((entry, position) => readLabel(path, entry, position));
  const byLine = new Map<number, Label>();
  for (const label of labels) {
    const earlier = byLine.get(label.line);
    if (earlier !== undefined) {
      throw new LabelsError(`${path}: labels[${label.position}].line ${label.line} is already labelled by labels[${earlier.position}]`);
    }
    byLine.set(label.line, label);
  }
  return { path, file, boundaryLine: document.boundary_line, labels };
}

/** Reads and validates a label file. */
export async function readLabels(path: string): Promise<LabelSet> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LabelsError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot be read (${(error as Error).message})`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new LabelsError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  return parseLabels(path, document);
}

/**
 * The transcript the labels judge: `file` resolved against the corpus folder, which is the parent of the
 * label file's folder (corpus/labels/x.json names "claude-code/…", relative to corpus/).
 */
export function transcriptOf(labels: LabelSet): string {
  if (labels.file === undefined) {
    throw new LabelsError(`${labels.path}: has no "file" naming its transcript; give the TRANSCRIPT on the command line`);
  }
  return resolve(dirname(dirname(resolve(labels.path))), labels.file);
}
