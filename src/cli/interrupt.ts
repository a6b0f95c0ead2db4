// What the CLI does when it is stopped by SIGINT (Ctrl-C) or SIGTERM: every cleanup registered with onInterrupt
// runs (the temporary files it made: turns spilled as judged, standard input's copy), then the process exits with
// the status a shell gives a process stopped by that signal. One handler per signal runs them all, so no cleanup
// waits behind another's exit.

/** The exit status for each signal: 128 + its number. */
const STATUSES = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const;

const cleanups = new Set<() => void>();
let handling = false;

/** Runs `cleanup` if the process is stopped by SIGINT or SIGTERM, before it exits. */
export function onInterrupt(cleanup: () => void): void {
  cleanups.add(cleanup);
  if (handling) return;
  handling = true;
  for (const [signal, status] of STATUSES) {
    process.once(signal, () => {
      for (const run of cleanups) {
        try {
          run();
        } catch {
          // The others still run: one file that cannot be removed does not keep the rest.
        }
      }
      process.exit(status);
    });
  }
}
