// The timeline panel's HTML: a strict CSP (nonce-only scripts; styles from the bundle plus the UI toolkit's
// nonce'd probe), the bundled stylesheet and script, and an empty root the webview renders into. Pure: no vscode
// import, so the webview tests can serve exactly what the extension serves.

export interface WebviewHtmlOptions {
  /** `webview.cspSource`: the origin the bundle's resources are served from. */
  cspSource: string;
  /** A fresh random nonce per render (base64/alphanumeric). */
  nonce: string;
  /** URI of dist/webview.js as the webview sees it. */
  scriptUri: string;
  /** URI of dist/webview.css as the webview sees it. */
  styleUri: string;
  /** Document title (e.g. the transcript's file name). */
  title: string;
}

/** Escapes text for use inside an HTML attribute value or element content. */
function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * The Content-Security-Policy of the panel. Styles come from the bundle's stylesheet; the UI toolkit styles
 * itself through constructable stylesheets (not subject to CSP) and probes `:focus-visible` with one <style>
 * element carrying the nonce it reads from <meta property="csp-nonce">, hence the style nonce. No 'unsafe-inline'.
 */
export function webviewCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

export function renderWebviewHtml(options: WebviewHtmlOptions): string {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(options.nonce)) {
    throw new Error('renderWebviewHtml: the nonce must be alphanumeric (base64 or hex)');
  }
  const csp = escapeHtml(webviewCsp(options.cspSource, options.nonce));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta property="csp-nonce" content="${escapeHtml(options.nonce)}">
<link rel="stylesheet" href="${escapeHtml(options.styleUri)}">
<title>${escapeHtml(options.title)}</title>
</head>
<body>
<div id="root" class="cl-root" aria-busy="true"></div>
<script nonce="${escapeHtml(options.nonce)}" src="${escapeHtml(options.scriptUri)}"></script>
</body>
</html>
`;
}
