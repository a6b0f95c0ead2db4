// The test index VS Code loads inside the extension host (`extensionTestsPath`): runs mocha on every
// out/test/extension/**/*.test.js and resolves when they pass, rejects when any fails. Used both by the
// VS Code server harness (scripts/test-vscode.mjs) and by @vscode/test-electron (test/electron/run.ts). When
// COMPACTION_LENS_TEST_RESULT names a file, it writes the counts there once mocha is done: the harness fails a
// run that ends without them (an extension host that died or hung may still report success). The tests' temporary
// folders (tempFolders.ts) are removed when mocha is done.
import * as fs from 'fs';
import * as path from 'path';
import type MochaType from 'mocha';
import { removeTempFolders } from './tempFolders';

/** Mocha 12 is an ES module: Node >= 20.19/22.12 can require() it; older hosts get its CommonJS build. */
function loadMocha(): typeof MochaType {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require('mocha');
    return loaded.default ?? loaded;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') {
      throw error;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('mocha/lib/mocha.cjs');
  }
}

function findTestFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.js'))
    .map((name) => path.join(folder, name))
    .sort();
}

export function run(): Promise<void> {
  const Mocha = loadMocha();
  const grep = process.env.COMPACTION_LENS_TEST_GREP;
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: 60_000,
    forbidOnly: true,
    ...(grep ? { grep } : {}),
  });
  const files = findTestFiles(__dirname);
  if (files.length === 0) {
    return Promise.reject(new Error(`no *.test.js files under ${__dirname}`));
  }
  for (const file of files) {
    mocha.addFile(file);
  }
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        removeTempFolders();
        const resultFile = process.env.COMPACTION_LENS_TEST_RESULT;
        if (resultFile) {
          const { passes, pending } = runner.stats ?? { passes: 0, pending: 0 };
          fs.writeFileSync(resultFile, JSON.stringify({ passes, failures, pending }));
        }
        if (failures > 0) {
          reject(new Error(`${failures} extension-host test(s) failed`));
        } else {
          resolve();
        }
      });
    } catch (error) {
      reject(error);
    }
  });
}
