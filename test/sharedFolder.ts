// The shared folder (../shared beside the project: the corpus, the labels, the design note) is read in place by
// some tests. Without it they skip with a message; under CI=true its absence is a failure, so a CI run can
// never pass by skipping them.
export function skipWithoutShared(context: Mocha.Context, present: boolean, what: string): void {
  if (present) return;
  if (process.env.CI === 'true') throw new Error(`${what} is absent, and CI=true requires the shared folder`);
  console.log(`      (skipped: ${what} is absent)`);
  context.skip();
}
