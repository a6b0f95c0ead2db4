// `npm run fuzz`: 10⁵ mutants per reader, seeded from the project's fixtures and the shared corpus (read in place),
// each read and analysed by the compiled modules in out/ (mutations and driver: test/unit/fuzz/fuzzCore.ts). Counts
// crashes (exceptions out of a reader or analyze), hangs (mutants over the time budget; one still running at the
// hard limit is stopped), history changes (a checkpoint whose statuses, verdict or safe pointer set differ from
// what its prefix alone gives) and errors analyze contained. Prints a table per reader and a reproduction command
// per failure (a mutant stopped as a hang is timed again alone, in a fresh worker, to tell a hang of its own from one
// of the run); exits 1 on any crash or history change. Worker threads share the work (one reader at a time).
//
// Usage: node scripts/fuzz.mjs [--seed N] [--count N] [--reader R[,R…]] [--budget MS] [--kill MS] [--workers N]
//                              [--corpus DIR] [--quick]
//                              [--shrink-groups]   (shrink the first failure of each kind at the end)
//        node scripts/fuzz.mjs --reader R --seed N --only I [--dump FILE] [--shrink]   (one mutant: show, save, shrink)
//        node scripts/fuzz.mjs --reader R --file TRANSCRIPT [--shrink] [--dump FILE]   (the same checks on a file)
// (needs `tsc -p .` first: `npm run fuzz` does it)
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const core = require(join(ROOT, 'out/test/unit/fuzz/fuzzCore.js'));
const { fixtureSeeds, corpusSeeds } = require(join(ROOT, 'out/test/unit/fuzz/seeds.js'));

function loadSeeds(corpus) {
  return [...fixtureSeeds(ROOT), ...corpusSeeds(corpus)];
}

function parseArgs(argv) {
  const args = {
    seed: 1,
    count: 100000,
    readers: [...core.READERS],
    budgetMs: 2000,
    killMs: undefined,
    workers: Math.max(1, Math.min(availableParallelism(), 8)),
    corpus: join(ROOT, '..', 'shared', 'corpus'),
    quick: false,
    only: undefined,
    file: undefined,
    dump: undefined,
    shrink: false,
    shrinkGroups: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[++i];
    };
    const number = () => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a whole number`);
      return n;
    };
    switch (flag) {
      case '--seed':
        args.seed = number();
        break;
      case '--count':
        args.count = number();
        break;
      case '--reader':
        args.readers = value().split(',');
        break;
      case '--budget':
        args.budgetMs = number();
        break;
      case '--kill':
        args.killMs = number();
        break;
      case '--workers':
        args.workers = Math.max(1, number());
        break;
      case '--corpus':
        args.corpus = resolve(value());
        break;
      case '--quick':
        args.quick = true;
        break;
      case '--only':
        args.only = number();
        break;
      case '--file':
        args.file = resolve(value());
        break;
      case '--dump':
        args.dump = resolve(value());
        break;
      case '--shrink':
        args.shrink = true;
        break;
      case '--shrink-groups':
        args.shrinkGroups = true;
        break;
      case '--help':
        console.log(
          'node scripts/fuzz.mjs [--seed N] [--count N] [--reader R[,R…]] [--budget MS] [--kill MS] [--workers N] [--corpus DIR] [--quick] [--shrink-groups]\n' +
            'node scripts/fuzz.mjs --reader R --seed N --only I [--dump FILE] [--shrink]\n' +
            'node scripts/fuzz.mjs --reader R --file TRANSCRIPT [--shrink] [--dump FILE]   (the checks on a file of your own)',
        );
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${flag} (see --help)`);
    }
  }
  for (const reader of args.readers)
    if (!core.READERS.includes(reader)) throw new Error(`unknown reader ${reader}; readers: ${core.READERS.join(', ')}`);
  args.killMs ??= Math.max(20000, args.budgetMs * 10);
  return args;
}

function fmtMs(ms) {
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

const n = (x) => x.toLocaleString('en-US');

/** One mutant, in this thread: what it is, what happened, optionally saved and shrunk. */
function showOne(args, seeds) {
  const reader = args.readers[0];
  const m =
    args.file !== undefined
      ? {
          reader,
          index: -1,
          seedName: args.file,
          fileName: basename(args.file).replace(/\.gz$/, ''),
          bytes: args.file.endsWith('.gz') ? core.gunzipPartial(readFileSync(args.file)) : readFileSync(args.file),
          ops: [],
        }
      : core.makeMutant(seeds, reader, args.seed, args.only, args.quick ? 'quick' : 'full');
  const o = core.runMutant(m);
  if (args.file !== undefined) console.log(`${args.file} read as ${reader}: ${n(m.bytes.length)} bytes`);
  else
    console.log(
      `mutant ${args.only} of ${reader} (seed ${args.seed}): from ${m.seedName}, ops ${m.ops.join(', ') || '(none)'}, ${n(m.bytes.length)} bytes`,
    );
  console.log(`  ${fmtMs(o.ms)}, ${o.turns} turns, ${o.checkpoints} checkpoints, ${o.jsonLines ? 'JSON Lines' : 'not JSON Lines'}`);
  if (o.crash) console.log(`  CRASH in ${o.crash.stage}: ${o.crash.stack ?? o.crash.message}`);
  for (const c of o.contained) console.log(`  contained: ${c}`);
  for (const h of o.history) console.log(`  HISTORY ${h.checkpoint} (lines ${h.line}–${h.endLine}): ${h.what.join(', ')}: ${h.detail}`);
  let out = m;
  if (args.shrink) {
    const kind = o.crash ? 'crash' : o.history.length > 0 ? 'history' : o.contained.length > 0 ? 'contained' : undefined;
    if (kind === undefined) console.log('  nothing to shrink: it does not fail');
    else {
      out = core.shrink(m, kind);
      const lines = out.bytes.toString('utf8').split('\n');
      console.log(`  shrunk (${kind}) to ${n(out.bytes.length)} bytes, ${lines.length} lines:`);
      for (const line of lines) console.log(`    ${line.length > 400 ? `${line.slice(0, 400)}… (${n(line.length)} chars)` : line}`);
      const again = core.runMutant(out);
      if (again.crash) console.log(`  → ${again.crash.stage}: ${again.crash.message}`);
      for (const h of again.history) console.log(`  → ${h.checkpoint}: ${h.what.join(', ')}: ${h.detail}`);
      for (const c of again.contained) console.log(`  → contained: ${c}`);
    }
  }
  if (args.dump) {
    writeFileSync(args.dump, out.bytes);
    for (const [i, side] of (out.sideFiles ?? []).entries()) writeFileSync(`${args.dump}.side${i}.jsonl`, side.text);
    console.log(`  written to ${args.dump}${out.sideFiles?.length ? ` (+ ${out.sideFiles.length} side file(s) as .sideN.jsonl)` : ''}`);
  }
  return o.crash || o.history.length > 0 ? 1 : 0;
}

/**
 * Mutant `index` of `reader` run alone in a worker of its own: how long it took, or undefined when it was still
 * running `killMs` after it started (the worker's start and its seeds' load not counted; the worker is then stopped).
 */
async function timeAlone(spawn, reader, index, killMs) {
  const { worker, beat } = spawn();
  try {
    return await new Promise((resolve) => {
      const watch = setInterval(() => {
        if (beat[1] !== 0 && Date.now() - beat[1] >= killMs) {
          clearInterval(watch);
          resolve(undefined);
        }
      }, 50);
      worker.once('message', (tally) => {
        clearInterval(watch);
        resolve(tally.slowest.ms);
      });
      worker.postMessage({ reader, from: index, to: index + 1 });
    });
  } finally {
    await worker.terminate();
  }
}

/** All mutants of one reader across the workers, with the watchdog. */
function runReader(args, reader, workers, spawn) {
  const CHUNK = 200;
  const queue = [];
  for (let from = 0; from < args.count; from += CHUNK) queue.push({ from, to: Math.min(args.count, from + CHUNK) });
  const total = core.emptyTally(reader);
  const stopped = [];
  const started = Date.now();
  let lastReport = started;
  return new Promise((resolveRun) => {
    const busy = new Map(); // slot -> chunk
    const feed = (slot) => {
      const chunk = queue.shift();
      if (!chunk) {
        if (busy.size === 0) finish();
        return;
      }
      busy.set(slot, chunk);
      workers[slot].worker.postMessage({ reader, ...chunk });
    };
    const onMessage = (slot) => (tally) => {
      busy.delete(slot);
      core.mergeTally(total, tally);
      if (Date.now() - lastReport > 15000) {
        lastReport = Date.now();
        process.stdout.write(`  ${reader}: ${n(total.mutants)} of ${n(args.count)} (${fmtMs(Date.now() - started)})\n`);
      }
      feed(slot);
    };
    const attach = (slot) => workers[slot].worker.on('message', onMessage(slot));
    const watchdog = setInterval(() => {
      for (const [slot, chunk] of busy) {
        const beat = workers[slot].beat;
        if (beat[1] === 0 || Date.now() - beat[1] < args.killMs) continue;
        const index = beat[0];
        workers[slot].worker.terminate();
        busy.delete(slot);
        const m = core.makeMutant(workers.seeds, reader, args.seed, index, args.quick ? 'quick' : 'full');
        stopped.push({ index, seedName: m.seedName, ops: m.ops });
        const hang = core.emptyTally(reader);
        hang.mutants = 1;
        hang.hangs = 1;
        hang.ms = args.killMs;
        hang.slowest = { ms: args.killMs, index, seedName: m.seedName };
        core.mergeTally(total, hang);
        // redo the rest of the chunk (and what ran before the hang: a worker reports a chunk only when done)
        if (index > chunk.from) queue.unshift({ from: chunk.from, to: index });
        if (index + 1 < chunk.to) queue.unshift({ from: index + 1, to: chunk.to });
        workers[slot] = spawn();
        attach(slot);
        feed(slot);
      }
    }, 250);
    const finish = () => {
      clearInterval(watchdog);
      for (const w of workers) w.worker.removeAllListeners('message');
      total.ms = Date.now() - started;
      resolveRun({ tally: total, stopped });
    };
    workers.forEach((_, slot) => attach(slot));
    workers.forEach((_, slot) => feed(slot));
  });
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`fuzz: ${error.message}`);
    process.exit(2);
  }
  const fixtures = fixtureSeeds(ROOT);
  const corpus = corpusSeeds(args.corpus);
  const seeds = [...fixtures, ...corpus];
  if (args.only !== undefined || args.file !== undefined) process.exit(showOne(args, seeds));

  console.log(
    `fuzz: seed ${args.seed}, ${n(args.count)} mutants per reader, budget ${fmtMs(args.budgetMs)} a mutant (stopped at ${fmtMs(args.killMs)}), ${args.workers} worker thread(s), node ${process.version}`,
  );
  console.log(
    `seeds: ${fixtures.length} fixtures${corpus.length > 0 ? `, ${corpus.length} from the corpus (${args.corpus}, read in place)` : ''}`,
  );
  if (corpus.length === 0) console.log(`  corpus seeds skipped: ${args.corpus} is absent`);

  const spawn = () => {
    const heartbeat = new SharedArrayBuffer(16);
    const worker = new Worker(fileURLToPath(import.meta.url), {
      workerData: { corpus: args.corpus, seed: args.seed, budgetMs: args.budgetMs, profile: args.quick ? 'quick' : 'full', heartbeat },
    });
    worker.on('error', (error) => {
      console.error(`fuzz: a worker failed: ${error.stack ?? error}`);
      process.exit(2);
    });
    return { worker, beat: new Float64Array(heartbeat) };
  };
  const workers = Array.from({ length: args.workers }, spawn);
  workers.seeds = seeds;

  const started = Date.now();
  const results = [];
  for (const reader of args.readers) {
    const result = await runReader(args, reader, workers, spawn);
    const t = result.tally;
    console.log(
      `${reader}: ${n(t.mutants)} mutants, ${t.crashes} crashes, ${t.hangs} hangs, ${t.history} history changes, ${t.contained} contained, slowest ${fmtMs(t.slowest.ms)}, ${fmtMs(t.ms)}`,
    );
    results.push(result);
  }
  for (const w of workers) await w.worker.terminate();
  const wall = Date.now() - started;

  const rows = [
    ['reader', 'mutants', 'crashes', 'hangs', 'history changes', 'contained', 'checked for history', 'slowest mutant', 'wall time'],
  ];
  for (const { tally: t } of results) {
    rows.push([
      t.reader,
      n(t.mutants),
      n(t.crashes),
      n(t.hangs),
      n(t.history),
      n(t.contained),
      n(t.withCheckpoints),
      `${fmtMs(t.slowest.ms)} (#${t.slowest.index})`,
      fmtMs(t.ms),
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  console.log('');
  for (const row of rows) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  console.log(
    `\ntotal wall time ${fmtMs(wall)}; hang = over ${fmtMs(args.budgetMs)}; "checked for history" = JSON Lines mutants with a checkpoint`,
  );

  let failed = false;
  for (const { tally: t, stopped } of results) {
    const groups = Object.entries(t.groups).sort((a, b) => b[1].count - a[1].count);
    groups.forEach(([signature, { count, first: f }], i) => {
      console.log(`\n${t.reader}: ${count} × ${signature.length > 300 ? `${signature.slice(0, 300)}…` : signature}`);
      console.log(
        `  e.g. #${f.index} from ${f.seedName} [${f.ops.join(', ')}]: ${f.message.length > 400 ? `${f.message.slice(0, 400)}…` : f.message}`,
      );
      if (args.shrinkGroups && i < 8) {
        const m = core.makeMutant(seeds, t.reader, args.seed, f.index, args.quick ? 'quick' : 'full');
        const small = core.shrink(m, f.kind, 1500);
        const text = small.bytes.toString('utf8');
        console.log(`  shrunk to ${n(small.bytes.length)} bytes:`);
        for (const line of text.split('\n'))
          console.log(`    ${line.length > 300 ? `${line.slice(0, 300)}… (${n(line.length)} chars)` : line}`);
      }
      console.log(
        `  node scripts/fuzz.mjs --reader ${t.reader} --seed ${args.seed} --only ${f.index} --shrink --dump /tmp/mutant-${t.reader}-${f.index}.jsonl`,
      );
    });
    for (const s of stopped) {
      console.log(
        `\n${t.reader}: #${s.index} from ${s.seedName} [${s.ops.join(', ')}] was still running after ${fmtMs(args.killMs)} and was stopped`,
      );
      // Timed again alone, in a fresh worker: a stop that does not come back is the run's (a worker's caches from
      // earlier mutants, or the machine), not the mutant's.
      const alone = await timeAlone(spawn, t.reader, s.index, args.killMs);
      console.log(
        alone === undefined
          ? `  alone in a fresh worker: still running after ${fmtMs(args.killMs)}, so the mutant hangs`
          : `  alone in a fresh worker: ${fmtMs(alone)}, so the stop did not come from the mutant alone`,
      );
      console.log(
        `  node scripts/fuzz.mjs --reader ${t.reader} --seed ${args.seed} --only ${s.index} --dump /tmp/mutant-${t.reader}-${s.index}.jsonl`,
      );
    }
    if (t.crashes > 0 || t.history > 0) failed = true;
  }
  console.log(`\n${failed ? 'FAILED: crashes or history changes' : 'ok: no crash and no history change'}`);
  process.exit(failed ? 1 : 0);
}

if (!isMainThread) {
  // A worker: runs ranges of mutants, writing the current mutant and its start time where the main thread's
  // watchdog reads them.
  const { corpus, seed, budgetMs, profile, heartbeat } = workerData;
  const beat = new Float64Array(heartbeat);
  const seeds = loadSeeds(corpus);
  parentPort.on('message', ({ reader, from, to }) => {
    const tally = core.fuzzRange(seeds, reader, seed, from, to, {
      budgetMs,
      profile,
      onStart: (index) => {
        beat[0] = index;
        beat[1] = Date.now();
      },
    });
    beat[1] = 0;
    parentPort.postMessage(tally);
  });
} else {
  await main();
}
