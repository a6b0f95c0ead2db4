// A base class for the extension's long-lived parts (the store, panels, providers): each registers what it
// creates, and dispose() ends all of it exactly once, the last registered first. Registering after disposal
// disposes at once, so nothing outlives its owner.
import type * as vscode from 'vscode';

export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposedAlready = false;

  /** True once dispose() has run. */
  protected get isDisposed(): boolean {
    return this.disposedAlready;
  }

  /** Takes ownership of `disposable`: it is disposed with this object. */
  protected register<T extends vscode.Disposable>(disposable: T): T {
    if (this.disposedAlready) disposable.dispose();
    else this.owned.push(disposable);
    return disposable;
  }

  dispose(): void {
    if (this.disposedAlready) return;
    this.disposedAlready = true;
    while (this.owned.length > 0) {
      try {
        this.owned.pop()?.dispose();
      } catch {
        // One part failing to end must not keep the others alive.
      }
    }
  }
}
