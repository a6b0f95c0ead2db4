// Entry point of the `compaction-lens` CLI: parse arguments, run `check` (each file, printed as text, JSON or
// SARIF), `eval` (labels against one checkpoint), `find` (where a fact went), `export` (the corrected
// checkpoints, to a new file) or `bundle` (dropped turns as Markdown for the agent), set the exit status. Any
// unexpected failure is reported in one line, never as a stack trace. Messages that name files or quote them show control characters escaped.
import { readCommandLine, USAGE } from './args';
import { type BundleOutput, runBundle } from './bundleCommand';
import { checkFiles, exitStatus, fileReports } from './checkFiles';
import { runEval } from './evalCommand';
import { runExport } from './exportCommand';
import { runFind } from './findCommand';
import { tuneGarbageCollection } from './gcSettings';
import { delayTierUp } from './tierUpSettings';
import { progressPrinter } from './progressLine';
import { jsonTurnSpill, writeJsonReport } from './jsonReport';
import { sarifReport } from './sarifReport';
import { terminalText } from './terminalText';
import { textReport } from './textReport';
import { onInterrupt } from './interrupt';
import { disposeLiveSpills } from './turnSpill';

declare const PACKAGE_VERSION: string | undefined;

async function main(argv: string[]): Promise<number> {
  tuneGarbageCollection();
  delayTierUp();
  const parsed = readCommandLine(argv, Boolean(process.stdout.isTTY));
  switch (parsed.kind) {
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
      process.stdout.write(`${typeof PACKAGE_VERSION === 'string' ? PACKAGE_VERSION : 'dev'}\n`);
      return 0;
    case 'error':
      process.stderr.write(`compaction-lens: ${terminalText(parsed.message)}\n`);
      return 2;
    case 'check': {
      const { options } = parsed;
      if (options.json) {
        // Each file's report is written as it comes, and let go: one analysis is held at a time.
        let status = 0;
        // Each turn's JSON is kept on disk as it is judged (a TurnSpill), not in the analysis, until it is written;
        // an interrupted run deletes it before it exits, with the status a shell gives a process stopped by it.
        onInterrupt(disposeLiveSpills);
        const reports = fileReports(options.files, options, progressPrinter(process.stderr), {
          spill: () => jsonTurnSpill((why) => process.stderr.write(`compaction-lens: ${terminalText(why)}\n`)),
        });
        await writeJsonReport(reports, process.stdout, (report) => (status = Math.max(status, exitStatus([report])))).catch(
          (error: NodeJS.ErrnoException) => {
            if (error?.code !== 'EPIPE') throw error; // else the reader stopped reading (| head): stop quietly
          },
        );
        return status;
      }
      // These reports show no turn's evidence or reason: the analyses keep only the checkpoints' figures.
      const reports = await checkFiles(options.files, options, progressPrinter(process.stderr), 'figures');
      process.stdout.write(`${options.sarif ? sarifReport(reports) : textReport(reports, options.color)}\n`);
      return exitStatus(reports);
    }
    case 'bundle': {
      // To a file or a pipe, the bundle is written as it is made. On a terminal it is written at the end, after
      // the progress line on the same screen is done.
      const held: string[] = [];
      const output: BundleOutput = process.stdout.isTTY
        ? {
            write: (text) => {
              held.push(text);
              return true;
            },
            drained: () => Promise.resolve(),
          }
        : { write: (text) => process.stdout.destroyed || process.stdout.write(text), drained: () => drained(process.stdout) };
      const outcome = await runBundle(parsed.options, output, progressPrinter(process.stderr));
      if (outcome.kind === 'error') {
        process.stderr.write(`compaction-lens: ${terminalText(outcome.message)}\n`);
        return 2;
      }
      for (const text of held) process.stdout.write(text);
      process.stderr.write(`compaction-lens: ${outcome.note}\n`);
      return 0;
    }
    case 'export': {
      const outcome = await runExport(parsed.options, progressPrinter(process.stderr));
      if (outcome.kind === 'error') {
        process.stderr.write(`compaction-lens: ${terminalText(outcome.message)}\n`);
        return 2;
      }
      process.stdout.write(`${outcome.output}\n`);
      return 0;
    }
    case 'find': {
      const outcome = await runFind(parsed.options, progressPrinter(process.stderr));
      if (outcome.kind === 'error') {
        process.stderr.write(`compaction-lens: ${terminalText(outcome.message)}\n`);
        return 2;
      }
      process.stdout.write(`${outcome.output}\n`);
      return outcome.status;
    }
    case 'eval': {
      const outcome = await runEval(parsed.options);
      if (outcome.kind === 'error') {
        process.stderr.write(`compaction-lens: ${terminalText(outcome.message)}\n`);
        return 2;
      }
      process.stdout.write(`${outcome.output}\n`);
      return outcome.status;
    }
  }
}

/** Resolves once `stream` has written out what waited (drain), or can write nothing more (closed or failed). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}

// A reader that stops reading (`| head`) closes the pipe: the rest of the output is dropped quietly, and the exit
// status is still what was found, rather than an unhandled error's stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') return;
  disposeLiveSpills();
  process.stderr.write(`compaction-lens: cannot write the output: ${terminalText(error.message)}\n`);
  process.exit(2);
});

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`compaction-lens: internal error: ${terminalText(error instanceof Error ? error.message : String(error))}\n`);
    process.exitCode = 2;
  },
);
