// The layering rules of eslint.config.mjs, run by the real ESLint (its Node API with the project's config, each
// fixture linted as if it were a file in that folder): every way of reaching `vscode`, the file system or the DOM from a pure folder fails —
// multi-line and type-only imports, re-exports, dynamic import(), require(), `import x = require()` — while the
// same code passes where it is allowed. (`npm run lint` lints the project itself.)
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';

const root = resolve(__dirname, '../../../..');
const eslint = new ESLint({ cwd: root });

interface LintMessage {
  ruleId: string | null;
  line: number;
  message: string;
}

async function lint(fileName: string, code: string): Promise<LintMessage[]> {
  const [report] = await eslint.lintText(code, { filePath: resolve(root, fileName) });
  return report.messages;
}

const LAYER_RULES = new Set(['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax', 'no-restricted-globals']);
const layerErrors = async (fileName: string, code: string) =>
  (await lint(fileName, code)).filter((m) => m.ruleId !== null && LAYER_RULES.has(m.ruleId));

const VSCODE_WAYS: Record<string, string> = {
  'a multi-line import': "import {\n  window,\n  workspace,\n} from 'vscode';\nexport const w = [window, workspace];\n",
  'a type-only import': "import type { Uri } from 'vscode';\nexport type U = Uri;\n",
  're-export': "export { window } from 'vscode';\n",
  'a dynamic import()': "export async function load() {\n  return import(\n    'vscode'\n  );\n}\n",
  'a computed import()': "const name = 'vs' + 'code';\nexport const load = () => import(name);\n",
  'require()': "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const v = require('vscode');\n",
  'import = require()': "import vscode = require('vscode');\nexport const w = vscode.window;\n",
  'an import() type': "export type W = typeof import('vscode').window;\n",
};

describe('layering lint (eslint.config.mjs)', function () {
  this.timeout(120000);

  for (const [way, code] of Object.entries(VSCODE_WAYS)) {
    it(`src/core rejects vscode through ${way}`, async () => {
      assert.ok((await layerErrors('src/core/fixture.ts', code)).length > 0, `not caught:\n${code}`);
    });
  }

  it('the same vscode imports are allowed in src/extension', async () => {
    assert.deepEqual(await layerErrors('src/extension/fixture.ts', VSCODE_WAYS['a multi-line import']), []);
  });

  it('src/cli, src/node and src/view reject vscode too, but may read files', async () => {
    for (const folder of ['src/cli', 'src/node', 'src/view']) {
      assert.ok((await layerErrors(`${folder}/fixture.ts`, VSCODE_WAYS['a multi-line import'])).length > 0, folder);
      assert.deepEqual(
        await layerErrors(`${folder}/fixture.ts`, "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n"),
        [],
        folder,
      );
    }
  });

  it('src/core and src/formats reject the file system, in every spelling', async () => {
    for (const spec of ['fs', 'node:fs', 'fs/promises', 'node:fs/promises']) {
      const code = `import {\n  readFile,\n} from '${spec}';\nexport const r = readFile;\n`;
      assert.ok((await layerErrors('src/formats/fixture.ts', code)).length > 0, spec);
      assert.ok((await layerErrors('src/core/fixture.ts', `export const load = () => import('${spec}');\n`)).length > 0, spec);
    }
  });

  it('src/core rejects DOM globals', async () => {
    assert.ok((await layerErrors('src/core/fixture.ts', 'export const title = () => document.title;\n')).length > 0);
  });

  it('the webview rejects vscode and Node', async () => {
    assert.ok(
      (await layerErrors('webview/fixture.ts', "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n")).length > 0,
    );
    assert.ok((await layerErrors('webview/fixture.ts', VSCODE_WAYS['a dynamic import()'])).length > 0);
  });
});
