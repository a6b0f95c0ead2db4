// The one-line progress report `check`, `find`, `bundle` and `export` write to a terminal's stderr: the file, its
// step and percentage (the step alone when its end cannot be told), redrawn in place (at most every 200 ms, and
// only for files that take more than half a second), and erased when the file is done. When a file's verdicts
// are settled before its analysis is done (analyzeFile's onVerdict), the line says them while the rest goes on.
// Text from the transcript (file names, summary ids) is escaped for the terminal.
import { verdictsLine } from '../core/displayText';
import type { FileProgress } from './checkFiles';
import { terminalText } from './terminalText';

/** A file's progress is shown once it has taken this long. */
const SHOW_AFTER_MS = 500;
/** The line is redrawn at most this often. */
const REDRAW_MS = 200;

/** The progress report for `stream`, or undefined when it is not a terminal. `now` is for tests. */
export function progressPrinter(
  stream: { isTTY?: boolean; write(text: string): unknown },
  now: () => number = Date.now,
): FileProgress | undefined {
  if (!stream.isTTY) return undefined;
  let file = '';
  let started = 0;
  let last = 0;
  let shown = false;
  let verdicts = '';
  return {
    progress(path, fraction, message) {
      const time = now();
      if (path !== file) {
        file = path;
        started = time;
        verdicts = '';
      }
      if (fraction !== undefined && fraction >= 1) {
        if (shown) stream.write('\r\u001b[K');
        shown = false;
        verdicts = ''; // said; what the command does next with the file is not "still" its analysis
        return;
      }
      if (time - started < SHOW_AFTER_MS || time - last < REDRAW_MS) return;
      last = time;
      shown = true;
      const step = fraction === undefined ? message : `${message.replace(/ \d+%$/, '')} ${Math.floor(fraction * 100)}%`;
      const line = verdicts === '' ? step : `${verdicts} (still ${step})`;
      stream.write(`\r\u001b[K${terminalText(`${path}: ${line}`)}`);
    },
    verdict(path, settled) {
      if (path !== file) {
        file = path;
        started = now();
      }
      verdicts = verdictsLine(settled);
    },
  };
}
