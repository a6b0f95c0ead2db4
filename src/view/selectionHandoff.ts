// Hands a turn selection from the host to the timeline webview, which may be torn down at any moment (its tab
// hidden, say by the editor that the same command opens in its group). A selection is queued while the webview
// is not ready, and once posted it stays owed until a view state the webview reports shows that turn selected:
// if the webview is hidden first, it is queued again for the next `ready`. A view state showing another turn
// does not settle it, because the webview may have sent that one before the selection reached it.
// Pure: no vscode import.
import type { TurnSelection } from '../protocol';

export class SelectionHandoff {
  /** To post at the webview's next `ready`. */
  private queued?: TurnSelection;
  /** Posted, and not yet shown selected in a reported view state. */
  private owed?: TurnSelection;

  /**
   * The host asks for a selection in a transcript of `turnCount` turns: returns it when it is to be posted now, or
   * queues it until `ready`. A turn past the end is asked as the last one (the webview would select that and never
   * show the turn asked for, which would then be asked again each time the tab shows); with no turn, nothing is.
   */
  request(asked: TurnSelection, webviewReady: boolean, turnCount: number): TurnSelection | undefined {
    if (turnCount <= 0) return undefined;
    const selection = { ...asked, turnIndex: Math.min(Math.max(0, asked.turnIndex), turnCount - 1) };
    if (!webviewReady) {
      this.queued = selection;
      return undefined;
    }
    this.owed = selection;
    return selection;
  }

  /** The webview sent `ready` (its document is new): returns the selection to post after its init, if any. */
  ready(): TurnSelection | undefined {
    const selection = this.queued;
    this.queued = undefined;
    this.owed = selection;
    return selection;
  }

  /** The webview reported its view state: a selection it shows is settled. */
  reported(selectedTurn: number): void {
    if (this.owed && this.owed.turnIndex === selectedTurn) this.owed = undefined;
  }

  /** The webview was torn down: a selection it may not have acted on is queued again. */
  hidden(): void {
    this.queued ??= this.owed;
    this.owed = undefined;
  }

  /** A new document shows another transcript: nothing asked for the previous one applies. */
  clear(): void {
    this.queued = undefined;
    this.owed = undefined;
  }
}
