// The memory bombs of issue 10 at full size. Each is generated in a temp folder, then opened and analysed
// (TranscriptFile.open + analyze, as the CLI does) in a child process of its own, which reports its time, its
// peak RSS (process.resourceUsage, and /usr/bin/time when there is one) and what the user is told. Every bomb
// must finish with a clear message and bounded memory; the script exits 1 when one does not.
//
//   npx tsc -p . && node scripts/bombs.mjs [--only NAME[,NAME]] [--out DIR] [--timeout S] [--keep]
//
// --out DIR runs another compiled tree (e.g. an older commit's out/) to compare; --timeout kills a child after
// S seconds (default 600); --keep leaves the generated files. Bombs: side-files (200 small .gz side files, each
// inflating to just under 32 MB), gzip-1gb (a 3 MB .gz inflating to 1 GB of junk lines), bad-lines-10m (a
// canonical transcript followed by 10 million unreadable lines), bad-lines-10m-claude (the same after a Claude
// Code session, read by a RebuildingReader), braced-lines-10m-claude (10 million lines shaped like records,
// {"junk": 1 1}, that are not JSON).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(SCRIPT), '..');
const MB = 1024 * 1024;
/** Peak RSS a bomb may reach to count as bounded. */
const RSS_BOUND_MB = 1024;

function argument(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

// ---------------------------------------------------------------------------------------------------------
// The child: open and analyse one file, report as JSON on stdout

async function child(outDir, path) {
  const require = createRequire(join(outDir, 'x.js'));
  const { TranscriptFile } = require('./src/node/transcriptFile.js');
  const { analyze } = require('./src/core/analyze.js');
  const start = process.hrtime.bigint();
  const report = {};
  try {
    const file = await TranscriptFile.open(path);
    const transcript = file.transcript;
    const analysis = analyze(transcript, { countTokens: (text) => Math.ceil(text.length / 4) });
    const { problems } = transcript;
    Object.assign(report, {
      format: file.format,
      turns: transcript.turns.length,
      checkpoints: analysis.checkpoints.length,
      problemObjects: problems.length,
      told: problems.slice(-2).map((p) => `line ${p.line}: ${p.message}`),
    });
  } catch (error) {
    report.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  report.seconds = Number(process.hrtime.bigint() - start) / 1e9;
  report.peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// The bombs

const canonicalHead = () => {
  const turn = (id) => JSON.stringify({ type: 'turn', id, role: 'user', content: `turn ${id} edits src/file${id}.ts` });
  const cp = JSON.stringify({
    type: 'checkpoint',
    summary_id: 'S1',
    summary: 'src/file0.ts and src/file1.ts',
    summary_budget: 100,
    covered: { from: 0, to: 1 },
  });
  return `${turn(0)}\n${turn(1)}\n${cp}\n`;
};

function claudeSession() {
  const S = 'bomb';
  const rec = (r) => JSON.stringify({ sessionId: S, ...r });
  return (
    [
      rec({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'Fix ERR_4107 in ledger.ts' } }),
      rec({
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Fixed ledger.ts.' }], usage: { output_tokens: 5 } },
      }),
      rec({
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'b1',
        parentUuid: null,
        logicalParentUuid: 'a1',
        compactMetadata: { trigger: 'auto', preTokens: 1000 },
      }),
      rec({
        type: 'user',
        uuid: 's1',
        parentUuid: 'b1',
        isCompactSummary: true,
        isVisibleInTranscriptOnly: true,
        message: { role: 'user', content: 'This session is being continued. 1. Primary Request and Intent: fix ERR_4107 in ledger.ts' },
      }),
      rec({ type: 'user', uuid: 'u2', parentUuid: 's1', message: { role: 'user', content: 'thanks' } }),
    ].join('\n') + '\n'
  );
}

/** Writes the chunks of a generator to `path`, through gzip when asked. */
async function writeChunks(path, chunks, gzip = false) {
  const source = Readable.from(chunks);
  if (gzip) await pipeline(source, createGzip({ level: 9 }), createWriteStream(path));
  else await pipeline(source, createWriteStream(path));
}

function* junkLines(totalBytes, prefix = '') {
  if (prefix) yield Buffer.from(prefix);
  const block = Buffer.from(`junk ${'x'.repeat(58)}\n`.repeat(16 * 1024)); // 1 MB of 64-byte lines
  for (let written = 0; written < totalBytes; written += block.length) yield block;
}

function* numberedJunk(lines, prefix, shape = (k) => `junk ${k}`) {
  yield Buffer.from(prefix);
  const perChunk = 100_000;
  for (let i = 0; i < lines; i += perChunk) {
    let text = '';
    for (let k = i; k < Math.min(lines, i + perChunk); k++) text += `${shape(k)}\n`;
    yield Buffer.from(text);
  }
}

const BOMBS = {
  'side-files': {
    what: '200 small .gz side files, each inflating to just under 32 MB (the old per-file cap)',
    async make(dir) {
      const transcript = join(dir, 'bomb.jsonl');
      writeFileSync(transcript, claudeSession());
      const folder = join(dir, 'bomb', 'subagents');
      mkdirSync(folder, { recursive: true });
      const line = `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(64 * 1024) }] } })}\n`;
      const gz = gzipSync(Buffer.alloc(32 * MB - 64 * 1024, line), { level: 9 });
      for (let i = 0; i < 200; i++) writeFileSync(join(folder, `agent-acompact-${String(i).padStart(3, '0')}.jsonl.gz`), gz);
      return { path: transcript, onDisk: `200 × ${(gz.length / 1024).toFixed(0)} KB` };
    },
  },
  'gzip-1gb': {
    what: 'a 3 MB .gz inflating to 1 GB of 64-byte junk lines after a canonical transcript',
    async make(dir) {
      const path = join(dir, 'bomb.jsonl.gz');
      await writeChunks(path, junkLines(1024 * MB, canonicalHead()), true);
      return { path, onDisk: `${(statSync(path).size / MB).toFixed(2)} MB` };
    },
  },
  'bad-lines-10m': {
    what: 'a canonical transcript followed by 10 million unreadable lines',
    async make(dir) {
      const path = join(dir, 'bad.jsonl');
      await writeChunks(path, numberedJunk(10_000_000, canonicalHead()));
      return { path, onDisk: `${(statSync(path).size / MB).toFixed(0)} MB` };
    },
  },
  'bad-lines-10m-claude': {
    what: 'a Claude Code session followed by 10 million unreadable lines (a RebuildingReader)',
    async make(dir) {
      const path = join(dir, 'bad.jsonl');
      await writeChunks(path, numberedJunk(10_000_000, claudeSession()));
      return { path, onDisk: `${(statSync(path).size / MB).toFixed(0)} MB` };
    },
  },
  'braced-lines-10m-claude': {
    what: 'a Claude Code session followed by 10 million lines shaped like records but not JSON ({"junk": 1 2})',
    async make(dir) {
      const path = join(dir, 'bad.jsonl');
      await writeChunks(
        path,
        numberedJunk(10_000_000, claudeSession(), (k) => `{"junk": ${k} ${k}}`),
      );
      return { path, onDisk: `${(statSync(path).size / MB).toFixed(0)} MB` };
    },
  },
};

// ---------------------------------------------------------------------------------------------------------
// The parent: make each bomb, run it in a child, report

function runChild(outDir, path, timeoutSeconds) {
  const timed = existsSync('/usr/bin/time');
  const command = timed ? '/usr/bin/time' : process.execPath;
  const args = [...(timed ? ['-f', 'TIME %M %e', process.execPath] : []), SCRIPT, '--child', outDir, path];
  return new Promise((done) => {
    const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutSeconds * 1000);
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      const time = /TIME (\d+) ([\d.]+)/.exec(stderr);
      let report;
      try {
        report = JSON.parse(stdout.trim().split('\n').pop());
      } catch {
        report = {
          crashed: signal
            ? `killed by ${signal}${signal === 'SIGKILL' ? ` (timeout ${timeoutSeconds} s?)` : ''}`
            : `exit ${code}: ${stderr
                .split('\n')
                .filter((l) => l && !l.startsWith('TIME'))
                .slice(0, 3)
                .join(' | ')}`,
        };
      }
      if (time) Object.assign(report, { timeRssMB: Math.round(Number(time[1]) / 1024), timeSeconds: Number(time[2]) });
      done(report);
    });
  });
}

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3], process.argv[4]);
  const outDir = resolve(argument('--out', join(ROOT, 'out')));
  if (!existsSync(join(outDir, 'src/node/transcriptFile.js'))) {
    console.error(`${outDir}/src/node/transcriptFile.js is missing: run npx tsc -p . first (or give --out DIR).`);
    process.exit(2);
  }
  const only = argument('--only', Object.keys(BOMBS).join(',')).split(',');
  const timeout = Number(argument('--timeout', '600'));
  const keep = process.argv.includes('--keep');
  let failed = false;
  for (const name of only) {
    const bomb = BOMBS[name];
    if (!bomb) {
      console.error(`no bomb named ${name}; there are: ${Object.keys(BOMBS).join(', ')}`);
      process.exit(2);
    }
    const dir = mkdtempSync(join(tmpdir(), `cl-bomb-${name}-`));
    try {
      const made = Date.now();
      const { path, onDisk } = await bomb.make(dir);
      console.log(`\n${name}: ${bomb.what}\n  generated in ${((Date.now() - made) / 1000).toFixed(1)} s (${onDisk} on disk): ${path}`);
      const report = await runChild(outDir, path, timeout);
      const rss = report.timeRssMB ?? report.peakRssMB;
      const bounded = report.crashed === undefined && rss !== undefined && rss <= RSS_BOUND_MB;
      failed ||= !bounded;
      if (report.crashed) console.log(`  CRASHED: ${report.crashed}`);
      else {
        console.log(
          `  ${report.seconds.toFixed(1)} s, peak RSS ${report.peakRssMB} MB (process.resourceUsage)${report.timeRssMB !== undefined ? `, ${report.timeRssMB} MB / ${report.timeSeconds} s (/usr/bin/time)` : ''}`,
        );
        if (report.error) console.log(`  unusable: ${report.error}`);
        else
          console.log(
            `  read as ${report.format}: ${report.turns} turns, ${report.checkpoints} checkpoints, ${report.problemObjects} problem objects; the last ones say:\n${report.told.map((t) => `    ${t}`).join('\n')}`,
          );
      }
      console.log(`  ${bounded ? 'OK' : 'NOT BOUNDED'} (bound ${RSS_BOUND_MB} MB)`);
    } finally {
      if (!keep) rmSync(dir, { recursive: true, force: true });
    }
  }
  process.exit(failed ? 1 : 0);
}

await main();
