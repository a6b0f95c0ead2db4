// The "Compaction Lens" output channel: where rejected webview messages, refresh failures and stack
// traces go (users see short messages; details land here).
import * as vscode from 'vscode';

export class Log implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel('Compaction Lens', { log: true });

  info(message: string): void {
    this.channel.info(message);
  }

  warn(message: string): void {
    this.channel.warn(message);
  }

  error(context: string, error: unknown): void {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.channel.error(`${context}: ${detail}`);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
