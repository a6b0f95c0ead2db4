// `compaction-lens export FILE [--out PATH] [--force]`: analyses the transcript and writes its corrected
// checkpoints to a new file (node/correctedExport.ts; docs/corrected-checkpoint.md), then says what it wrote,
// one line per checkpoint. Every failure is a message for the user (exit 2) and nothing is written.
import { describeCorrection } from '../core/correctedCheckpoint';
import { CorrectedExportError, exportCorrectedCheckpoint } from '../node/correctedExport';
import type { ExportCommandOptions } from './args';
import { checkFiles } from './checkFiles';
import { terminalText } from './terminalText';

export type ExportOutcome = { kind: 'written'; output: string } | { kind: 'error'; message: string };

export async function runExport(options: ExportCommandOptions): Promise<ExportOutcome> {
  const [report] = await checkFiles([options.file], options);
  if (report.analysis === undefined) {
    const details = report.details && report.details.length > 0 ? ` (${report.details.join('; ')})` : '';
    return { kind: 'error', message: `${report.error ?? `${options.file}: could not be analysed`}${details}` };
  }
  try {
    const written = await exportCorrectedCheckpoint(options.file, report.analysis, {
      outputPath: options.out,
      overwrite: options.force,
      inflateLimits: {
        maxInflatedBytes: options.maxInflatedBytes,
        maxInflateRatio: options.maxInflateRatio,
        limitNames: { maxInflatedBytes: '--max-inflated-mb', maxInflateRatio: '--max-inflate-ratio' },
      },
    });
    const what = written.kind === 'sidecar' ? 'the sidecar document' : 'the corrected canonical transcript';
    const lines = [`Wrote ${written.outputPath} (${what}) from ${options.file}:`];
    if (written.document.checkpoints.length === 0) lines.push('  no compaction checkpoint in the transcript: nothing to correct');
    for (const checkpoint of written.document.checkpoints) lines.push(`  ${describeCorrection(checkpoint)}`);
    return { kind: 'written', output: lines.map(terminalText).join('\n') };
  } catch (error) {
    if (!(error instanceof CorrectedExportError)) throw error;
    const hint = error.reason === 'exists' ? ' Use --force to replace it, or --out to write elsewhere.' : '';
    return { kind: 'error', message: `${error.message}${hint}` };
  }
}
