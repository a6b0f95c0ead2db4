// The README's pictures besides media/timeline.png (which timeline.test.ts takes), retaken in a real VS Code
// workbench at 1366×768 when COMPACTION_LENS_SCREENSHOTS names a folder (e.g. `media`); otherwise nothing here
// runs. They show:
//  - timeline-light.png: the incident sample's timeline in VS Code's Default Light Modern theme, its first
//    claimed-missing turn selected;
//  - claude-code-session.png: the timeline of a real Claude Code session from ../shared/corpus (8463c716…),
//    which needs that folder (skipped without it; a failure under CI=true).
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { skipWithoutShared } from '../sharedFolder';
import { ROOT, Workbench, openTimeline, selectedIndex, startWorkbench, takeScreenshot } from './workbench';

const FOLDER = process.env.COMPACTION_LENS_SCREENSHOTS;
const VIEWPORT = { width: 1366, height: 768 };
const SESSION = '8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl.gz';
const SESSION_PATH = path.resolve(ROOT, '..', 'shared', 'corpus', 'claude-code', SESSION);

// Not a test of the product but a tool: without the variable nothing is registered (so a run shows no pending tests).
if (FOLDER) {
  describe('README pictures (COMPACTION_LENS_SCREENSHOTS)', function () {
    this.timeout(300_000);
    const target = (name: string) => path.resolve(ROOT, FOLDER, name);
    let workbench: Workbench | undefined;

    afterEach(async () => {
      await workbench?.close();
      workbench = undefined;
    });

    it('the incident timeline in the light theme', async () => {
      workbench = await startWorkbench({ viewport: VIEWPORT, settings: { 'workbench.colorTheme': 'Default Light Modern' } });
      const view = await openTimeline(workbench, 'incident.jsonl');
      await view.locator('body.vscode-light').waitFor({ timeout: 30_000 });
      await selectedIndex(view); // the first claimed-missing turn, selected on opening
      await view.locator('.det-turn .det-heading').first().waitFor({ timeout: 20_000 });
      await takeScreenshot(workbench, view, target('timeline-light.png'));
    });

    it('the timeline of a real Claude Code session', async function () {
      skipWithoutShared(this, existsSync(SESSION_PATH), `the corpus session ${SESSION_PATH}`);
      workbench = await startWorkbench({ viewport: VIEWPORT, samples: false, files: { [SESSION]: readFileSync(SESSION_PATH) } });
      const view = await openTimeline(workbench, SESSION);
      await selectedIndex(view);
      await view.locator('.det-turn .det-heading').first().waitFor({ timeout: 20_000 });
      await takeScreenshot(workbench, view, target('claude-code-session.png'));
    });
  });
}
