// `compaction-lens export FILE [--out PATH] [--force]`: analyses the transcript and writes its corrected
// checkpoints to a new file (node/correctedExport.ts; docs/corrected-checkpoint.md), then says what it wrote,
// one line per checkpoint; on a terminal, stderr shows the progress of the analysis and of the writing. Every
// failure is a message for the user (exit 2) and nothing is written.
import { describeCorrection } from '../core/correctedCheckpoint';
import { CorrectedExportError, exportCorrectedCheckpoint } from '../node/correctedExport';
import type { ExportCommandOptions } from './args';
import { checkFiles, type FileProgress } from './checkFiles';
import { formatBytes } from '../core/displayText';
import { terminalText } from './terminalText';

export type ExportOutcome = { kind: 'written'; output: string } | { kind: 'error'; message: string };

/** `onProgress`: a terminal's progress line, for the analysis and then the export's bytes written. */
export async function runExport(options: ExportCommandOptions, onProgress?: FileProgress): Promise<ExportOutcome> {
  const [report] = await checkFiles([options.file], options, onProgress);
  if (report.analysis === undefined) {
    const details = report.details && report.details.length > 0 ? ` (${report.details.join('; ')})` : '';
    return { kind: 'error', message: `${report.error ?? `${options.file}: could not be analysed`}${details}` };
  }
  try {
    const written = await exportCorrectedCheckpoint(options.file, report.analysis, {
      outputPath: options.out,
      overwrite: options.force,
      onProgress: (progress) =>
        onProgress?.progress(
          report.path,
          undefined,
          progress.step === 'correcting' ? 'working out the corrections' : `writing the export: ${formatBytes(progress.bytes)}`,
        ),
      inflateLimits: {
        maxInflatedBytes: options.maxInflatedBytes,
        maxInflateRatio: options.maxInflateRatio,
        limitNames: { maxInflatedBytes: '--max-inflated-mb', maxInflateRatio: '--max-inflate-ratio' },
      },
    });
    onProgress?.progress(report.path, 1, 'written');
    const what = written.kind === 'sidecar' ? 'the sidecar document' : 'the corrected canonical transcript';
    const lines = [`Wrote ${written.outputPath} (${what}) from ${options.file}:`];
    if (written.document.checkpoints.length === 0) lines.push('  no compaction checkpoint in the transcript: nothing to correct');
    for (const checkpoint of written.document.checkpoints) lines.push(`  ${describeCorrection(checkpoint)}`);
    return { kind: 'written', output: lines.map(terminalText).join('\n') };
  } catch (error) {
    onProgress?.progress(report.path, 1, 'failed');
    if (!(error instanceof CorrectedExportError)) throw error;
    const hint = error.reason === 'exists' ? ' Use --force to replace it, or --out to write elsewhere.' : '';
    return { kind: 'error', message: `${error.message}${hint}` };
  }
}
