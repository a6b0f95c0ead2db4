// Settings range checks in a real extension host: every numeric setting and flag is checked (wrong types,
// NaN, infinities, negatives, 1e300 give the default and one line of warning), the manifest's schema states the
// same ranges, every setting that can soften a verdict or widen a scan is restricted in untrusted workspaces,
// a user setting of ratioFloor = 1e300 does not turn a fail-closed checkpoint into a trusted one, and
// maxDecompressedMegabytes reaches TranscriptFile (a .gz past it stops with a problem naming the setting).
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as vscode from 'vscode';
import { DEFAULT_RATIO_FLOOR, DEFAULT_SUMMARY_BUDGETS } from '../../src/core/defaults';
import { DEFAULT_COVERAGE_THRESHOLD } from '../../src/core/evidence';
import {
  checkSettings,
  DEFAULT_MAX_DECOMPRESSED_MEGABYTES,
  DEFAULT_MAX_DECOMPRESSION_RATIO,
  DEFAULT_TRANSCRIPT_GLOBS,
  RANGES,
  type NumberRange,
} from '../../src/extension/settings';
import { DEFAULT_ENCODING } from '../../src/node/tokenCounter';
import { EXTENSION_ID, extensionApi, waitFor, writeTranscript } from './helpers';
import { tempFolder } from './tempFolders';

const MiB = 1024 * 1024;

/** checkSettings on raw values, with the warnings it gave. */
function check(raw: Record<string, unknown>) {
  const warnings: string[] = [];
  const settings = checkSettings(
    (key) => raw[key],
    (message) => warnings.push(message),
  );
  return { settings, warnings };
}

interface SchemaProperty {
  type?: string | string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  properties?: Record<string, SchemaProperty>;
}

function manifest(): {
  capabilities: { untrustedWorkspaces: { supported: unknown; restrictedConfigurations?: string[] } };
  contributes: { configuration: { properties: Record<string, SchemaProperty> } };
} {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is loaded`);
  return extension.packageJSON;
}

describe('settings range checks', () => {
  it('uses the defaults, silently, when nothing is set', () => {
    const { settings, warnings } = check({});
    assert.deepEqual(warnings, []);
    assert.equal(settings.ratioFloor, DEFAULT_RATIO_FLOOR);
    assert.equal(settings.coverageThreshold, DEFAULT_COVERAGE_THRESHOLD);
    assert.equal(settings.encoding, DEFAULT_ENCODING);
    assert.deepEqual(settings.defaultSummaryBudget, DEFAULT_SUMMARY_BUDGETS);
    assert.deepEqual(settings.transcriptGlobs, DEFAULT_TRANSCRIPT_GLOBS);
    assert.equal(settings.analyzeOnOpen, true);
    assert.equal(settings.maxInflatedBytes, DEFAULT_MAX_DECOMPRESSED_MEGABYTES * MiB);
    assert.equal(settings.maxInflateRatio, DEFAULT_MAX_DECOMPRESSION_RATIO);
  });

  it('keeps values inside the ranges', () => {
    const { settings, warnings } = check({
      ratioFloor: 8,
      coverageThreshold: 0.5,
      maxDecompressedMegabytes: 512,
      maxDecompressionRatio: 50,
      defaultSummaryBudget: { codex: 4096, canonical: 1000 },
      analyzeOnOpen: false,
      encoding: 'cl100k_base',
      transcriptGlobs: ['**/*.jsonl'],
    });
    assert.deepEqual(warnings, []);
    assert.equal(settings.ratioFloor, 8);
    assert.equal(settings.coverageThreshold, 0.5);
    assert.equal(settings.maxInflatedBytes, 512 * MiB);
    assert.equal(settings.maxInflateRatio, 50);
    assert.equal(settings.defaultSummaryBudget.codex, 4096);
    assert.equal(settings.defaultSummaryBudget.canonical, 1000);
    assert.equal(settings.analyzeOnOpen, false);
    assert.equal(settings.encoding, 'cl100k_base');
    assert.deepEqual(settings.transcriptGlobs, ['**/*.jsonl']);
  });

  const numeric: [string, (s: ReturnType<typeof check>['settings']) => number, number][] = [
    ['ratioFloor', (s) => s.ratioFloor, DEFAULT_RATIO_FLOOR],
    ['coverageThreshold', (s) => s.coverageThreshold, DEFAULT_COVERAGE_THRESHOLD],
    ['maxDecompressedMegabytes', (s) => s.maxInflatedBytes / MiB, DEFAULT_MAX_DECOMPRESSED_MEGABYTES],
    ['maxDecompressionRatio', (s) => s.maxInflateRatio, DEFAULT_MAX_DECOMPRESSION_RATIO],
  ];
  for (const [key, read, fallback] of numeric) {
    it(`rejects 1e300, NaN, infinities, negatives, zero and non-numbers for ${key}, with a one-line warning each`, () => {
      for (const bad of [
        1e300,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
        -3,
        0,
        1e-300,
        '5',
        null,
        true,
        [5],
        { n: 5 },
      ]) {
        const { settings, warnings } = check({ [key]: bad });
        assert.equal(read(settings), fallback, `${key} = ${String(bad)} gives the default`);
        assert.equal(warnings.length, 1, `one warning for ${key} = ${String(bad)}: ${JSON.stringify(warnings)}`);
        assert.ok(warnings[0].startsWith(`compactionLens.${key}: `), warnings[0]);
        assert.match(warnings[0], new RegExp(`using the default ${String(fallback)}\\.$`));
        assert.ok(!warnings[0].includes('\n'), 'the warning is one line');
      }
    });
  }

  it('says why: outside the range, or not a number', () => {
    assert.deepEqual(check({ ratioFloor: 1e300 }).warnings, ['compactionLens.ratioFloor: 1e+300 is outside 1–100; using the default 5.']);
    assert.deepEqual(check({ ratioFloor: Number.NaN }).warnings, ['compactionLens.ratioFloor: NaN is not a number; using the default 5.']);
    assert.deepEqual(check({ maxDecompressedMegabytes: 1.5 }).warnings, [
      'compactionLens.maxDecompressedMegabytes: 1.5 is not a whole number in 1–65,536; using the default 2048.',
    ]);
  });

  it('checks each per-format summary budget: whole numbers from 1 to 1,000,000', () => {
    const { settings, warnings } = check({
      defaultSummaryBudget: {
        codex: 1e300,
        openhands: -1,
        langchain: 2.5,
        'message-array': 500,
        canonical: Number.NaN,
        'claude-code': '9',
      },
    });
    assert.equal(settings.defaultSummaryBudget.codex, DEFAULT_SUMMARY_BUDGETS.codex);
    assert.equal(settings.defaultSummaryBudget.openhands, DEFAULT_SUMMARY_BUDGETS.openhands);
    assert.equal(settings.defaultSummaryBudget.langchain, DEFAULT_SUMMARY_BUDGETS.langchain);
    assert.equal(settings.defaultSummaryBudget['claude-code'], DEFAULT_SUMMARY_BUDGETS['claude-code']);
    assert.equal(settings.defaultSummaryBudget['message-array'], 500);
    assert.equal(settings.defaultSummaryBudget.canonical, undefined, 'no canonical budget is assumed');
    assert.equal(warnings.length, 5, warnings.join('\n'));
    assert.ok(
      warnings.some((w) => w.startsWith('compactionLens.defaultSummaryBudget.canonical: NaN is not a number; no budget is assumed')),
    );
    const notObject = check({ defaultSummaryBudget: 7 });
    assert.deepEqual(notObject.settings.defaultSummaryBudget, DEFAULT_SUMMARY_BUDGETS);
    assert.equal(notObject.warnings.length, 1);
  });

  it('checks the flag, the encoding and the globs too', () => {
    const { settings, warnings } = check({ analyzeOnOpen: 'yes', encoding: 'utf-8', transcriptGlobs: ['**/*', 3] });
    assert.equal(settings.analyzeOnOpen, true);
    assert.equal(settings.encoding, DEFAULT_ENCODING);
    assert.deepEqual(settings.transcriptGlobs, DEFAULT_TRANSCRIPT_GLOBS);
    assert.equal(warnings.length, 3, warnings.join('\n'));
    for (const warning of warnings) assert.ok(!warning.includes('\n'));
  });

  it('keeps a warning short whatever the value holds', () => {
    const { warnings } = check({ transcriptGlobs: 'x'.repeat(100_000) });
    assert.equal(warnings.length, 1);
    assert.ok(warnings[0].length < 200, warnings[0]);
  });
});

describe('settings in the manifest', () => {
  it('states the ranges the code checks, for every numeric setting', () => {
    const properties = manifest().contributes.configuration.properties;
    const expect = (name: string, schema: SchemaProperty | undefined, range: NumberRange) => {
      assert.ok(schema, `${name} is contributed`);
      assert.equal(schema.minimum, range.minimum, `${name} minimum`);
      assert.equal(schema.maximum, range.maximum, `${name} maximum`);
      assert.equal(schema.type, range.integer ? 'integer' : 'number', `${name} type`);
    };
    expect('ratioFloor', properties['compactionLens.ratioFloor'], RANGES.ratioFloor);
    expect('coverageThreshold', properties['compactionLens.coverageThreshold'], RANGES.coverageThreshold);
    expect('maxDecompressedMegabytes', properties['compactionLens.maxDecompressedMegabytes'], RANGES.maxDecompressedMegabytes);
    expect('maxDecompressionRatio', properties['compactionLens.maxDecompressionRatio'], RANGES.maxDecompressionRatio);
    const budgets = properties['compactionLens.defaultSummaryBudget'].properties ?? {};
    assert.ok(Object.keys(budgets).length >= 6);
    for (const [format, schema] of Object.entries(budgets)) expect(`defaultSummaryBudget.${format}`, schema, RANGES.summaryBudget);
    assert.equal(properties['compactionLens.maxDecompressedMegabytes'].default, DEFAULT_MAX_DECOMPRESSED_MEGABYTES);
    assert.equal(properties['compactionLens.maxDecompressionRatio'].default, DEFAULT_MAX_DECOMPRESSION_RATIO);
    // Every numeric setting is bounded on both sides.
    for (const [name, schema] of Object.entries(properties)) {
      if (schema.type === 'number' || schema.type === 'integer') {
        assert.ok(schema.minimum !== undefined && schema.maximum !== undefined, `${name} has a minimum and a maximum`);
      }
    }
  });

  it('states, for every setting it contributes, the default the code falls back to', () => {
    const properties = manifest().contributes.configuration.properties;
    const { settings: unset } = check({});
    // The code's value for each contributed setting when nothing is set, in the manifest's units.
    const codeDefaults: Record<string, unknown> = {
      'compactionLens.ratioFloor': unset.ratioFloor,
      'compactionLens.encoding': unset.encoding,
      'compactionLens.defaultSummaryBudget': unset.defaultSummaryBudget,
      'compactionLens.coverageThreshold': unset.coverageThreshold,
      'compactionLens.transcriptGlobs': unset.transcriptGlobs,
      'compactionLens.analyzeOnOpen': unset.analyzeOnOpen,
      'compactionLens.maxDecompressedMegabytes': unset.maxInflatedBytes / MiB,
      'compactionLens.maxDecompressionRatio': unset.maxInflateRatio,
      'compactionLens.problems.conversationSeverity': unset.problemSeverities.conversation,
      'compactionLens.problems.toolOutputSeverity': unset.problemSeverities['tool-output'],
      'compactionLens.inlineMarks': unset.inlineMarks,
      'compactionLens.timeline.reuse': unset.timelineReuse,
    };
    assert.deepEqual(Object.keys(properties).sort(), Object.keys(codeDefaults).sort(), 'every contributed setting is checked here');
    for (const [name, value] of Object.entries(codeDefaults)) assert.deepEqual(properties[name].default, value, name);
  });

  it('states the transcript globs the code falls back to, .jsonl.gz among them', () => {
    const globs = manifest().contributes.configuration.properties['compactionLens.transcriptGlobs'].default;
    assert.deepEqual(globs, DEFAULT_TRANSCRIPT_GLOBS);
    assert.ok(DEFAULT_TRANSCRIPT_GLOBS.includes('**/*.jsonl.gz'));
  });

  it('restricts every setting that can soften a verdict or widen a scan in untrusted workspaces', () => {
    const { capabilities, contributes } = manifest();
    assert.equal(capabilities.untrustedWorkspaces.supported, 'limited', 'restrictedConfigurations applies only with "limited"');
    const restricted = new Set(capabilities.untrustedWorkspaces.restrictedConfigurations ?? []);
    for (const name of [
      'compactionLens.ratioFloor',
      'compactionLens.coverageThreshold',
      'compactionLens.defaultSummaryBudget',
      'compactionLens.transcriptGlobs',
      'compactionLens.encoding',
      'compactionLens.analyzeOnOpen',
      'compactionLens.maxDecompressedMegabytes',
      'compactionLens.maxDecompressionRatio',
    ]) {
      assert.ok(restricted.has(name), `${name} is restricted`);
    }
    for (const name of restricted) assert.ok(name in contributes.configuration.properties, `${name} is a contributed setting`);
    // timeline.reuse only arranges tabs: it softens no verdict and widens no scan.
    const unrestricted = new Set(['compactionLens.timeline.reuse']);
    for (const name of Object.keys(contributes.configuration.properties)) {
      if (unrestricted.has(name)) continue;
      assert.ok(
        restricted.has(name),
        `${name}: every setting so far softens a verdict or widens a scan; restrict a new one or say why not`,
      );
    }
  });
});

describe('settings at work in the extension host', function () {
  this.timeout(60_000);
  const config = () => vscode.workspace.getConfiguration('compactionLens');

  /** Ten turns of 100 tokens, all their anchors in a summary of budget 64: over the ceiling at R_low 5. */
  function overCeiling(): vscode.Uri {
    const turns = Array.from({ length: 10 }, (_, id) => ({
      type: 'turn',
      id,
      role: id % 2 ? 'assistant' : 'user',
      content: `step ${id}: touched src/module${id}.ts`,
      tokens: 100,
      anchor: `ANCHOR_${id}`,
    }));
    const checkpoint = {
      type: 'checkpoint',
      summary_id: 'S1',
      summary: `Summary: ${turns.map((turn) => turn.anchor).join(', ')} are done.`,
      summary_budget: 64,
      covered: { from: 0, to: 9 },
    };
    return writeTranscript('ratio-floor.jsonl', [...turns, checkpoint]);
  }

  async function setSetting(key: string, value: number | undefined): Promise<void> {
    await config().update(key, value, vscode.ConfigurationTarget.Global);
    await waitFor(() => config().inspect(key)?.globalValue === value, `${key} = ${value}`);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the store re-reads its settings on the change event
  }
  const setRatioFloor = (value: number | undefined) => setSetting('ratioFloor', value);

  after(async () => {
    await setSetting('ratioFloor', undefined);
    await setSetting('maxDecompressedMegabytes', undefined);
  });

  it('ratioFloor = 1e300 does not lift the ceiling: the checkpoint stays fail-closed at R_low 5', async () => {
    const api = await extensionApi();
    const uri = overCeiling();
    const verdictWith = async (ratioFloor: number | undefined) => {
      await setRatioFloor(ratioFloor);
      api.store.remove(uri);
      const checkpoint = (await api.store.load(uri)).analysis.checkpoints[0];
      return { verdict: checkpoint.verdict, ratioFloor: checkpoint.ratioFloor };
    };
    assert.deepEqual(await verdictWith(undefined), { verdict: 'fail-closed', ratioFloor: 5 });
    // The setting does take effect when it is in range: at 100 the prefix is within the ceiling.
    const atMaximum = await verdictWith(100);
    assert.equal(atMaximum.ratioFloor, 100);
    assert.notEqual(atMaximum.verdict, 'fail-closed');
    assert.deepEqual(await verdictWith(1e300), { verdict: 'fail-closed', ratioFloor: 5 }, '1e300 is rejected');
    api.store.remove(uri);
  });

  it('maxDecompressedMegabytes stops inflating a .gz transcript, with a problem naming the setting', async () => {
    const api = await extensionApi();
    const turns = 30_000; // about 3 MB inflated, a few dozen KB compressed
    const lines = Array.from({ length: turns }, (_, id) =>
      JSON.stringify({
        type: 'turn',
        id,
        role: id % 2 ? 'assistant' : 'user',
        content: `step ${id} of the long session, nothing odd`,
        tokens: 12,
      }),
    );
    const file = path.join(tempFolder(), 'long.jsonl.gz');
    writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
    const uri = vscode.Uri.file(file);
    const read = async () => {
      api.store.remove(uri);
      return (await api.store.load(uri)).transcript;
    };
    await setSetting('maxDecompressedMegabytes', 1);
    const limited = await read();
    assert.ok(limited.turns.length > 0 && limited.turns.length < turns, `read ${limited.turns.length} of ${turns} turns`);
    const entry = api.store.get(uri);
    const stopped = entry?.analysis.problems.find((problem) => problem.message.includes('compactionLens.maxDecompressedMegabytes'));
    assert.ok(stopped, `a problem names the setting: ${JSON.stringify(entry?.analysis.problems.slice(-3))}`);
    assert.ok(!stopped.message.includes('maxInflatedBytes'), 'not the option name the extension user cannot set');
    await setSetting('maxDecompressedMegabytes', undefined);
    assert.equal((await read()).turns.length, turns, 'the default limit reads it all');
    api.store.remove(uri);
  });
});
