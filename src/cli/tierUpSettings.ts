// How soon the CLI's V8 optimises a hot function: a setting for this process alone (a process of its own, as the
// garbage collection's in gcSettings.ts), set as it starts. The extension host is shared with other extensions,
// so the extension sets nothing of the kind.
//
// V8 compiles a function with its optimising compiler once the function has run a budget of bytecode. `check` of
// a real session (a few MB) runs for about half a second, most of it in functions that run for a few tens of
// milliseconds each: their optimised code arrived when little of their work was left, and compiling it took CPU
// that the token worker and the main thread needed (two cores). With a budget eight times Node 20's default,
// `check` of the corpus's four Claude Code sessions took 0.53–0.59 s instead of 0.59–0.72 s, and of pi's session
// 0.77–0.83 s instead of 0.82–0.83 s (three runs each); of the generated 100k-turn files, within 2% of their
// 8–10 s (docs/performance-history.md, "A real session's `check`: hot functions optimised later").
import { setFlagsFromString } from 'node:v8';

/** The bytecode a function runs before V8 weighs optimising it: eight times V8 11's default (66 KB, Node 20). */
export const TIER_UP_BUDGET = 8 * 67_584;

/** Sets the CLI process's optimisation budget (V8 reads it as functions run, so it holds from here on). */
export function delayTierUp(): void {
  setFlagsFromString(`--interrupt-budget=${TIER_UP_BUDGET}`);
}
