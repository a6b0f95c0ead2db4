// Skipping a test because something outside the project is missing (the shared corpus beside the project, Debian's
// chromium, python3, a FIFO, a workspace folder): on a developer's machine the test skips with a message; under
// CI=true the absence is a failure, so a CI run can never pass by skipping.
export function skipOrFailInCi(context: Mocha.Context, reason: string): never {
  if (process.env.CI === 'true') throw new Error(`${reason}, and CI=true allows no skipped test`);
  console.log(`      (skipped: ${reason})`);
  return context.skip();
}

/** Skips (fails under CI=true) unless `what` — a folder or file of ../shared, usually — is present. */
export function skipWithoutShared(context: Mocha.Context, present: boolean, what: string): void {
  if (!present) skipOrFailInCi(context, `${what} is absent`);
}
