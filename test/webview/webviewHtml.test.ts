// renderWebviewHtml: the panel's CSP is strict (nonce-only scripts, no 'unsafe-inline' or 'unsafe-eval'),
// it loads exactly the bundle's script and stylesheet, escapes what it is given and has an empty root.

import assert from 'node:assert/strict';
import { renderWebviewHtml, webviewCsp } from '../../src/view/webviewHtml';

const options = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  nonce: 'Ab3dEf9hIj0kLmNoPqRsTuVwXyZ12345',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.css',
  title: 'incident.jsonl',
};

describe('renderWebviewHtml', () => {
  it('declares a strict CSP in a meta tag before anything it loads', () => {
    const html = renderWebviewHtml(options);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
    assert.ok(csp, 'a CSP meta tag');
    const directives = Object.fromEntries(
      csp
        .replace(/&#39;/g, "'")
        .split(';')
        .map((part) => {
          const [name, ...values] = part.trim().split(/\s+/);
          return [name, values];
        }),
    );
    assert.deepEqual(directives['default-src'], ["'none'"]);
    assert.deepEqual(directives['script-src'], [`'nonce-${options.nonce}'`]);
    assert.deepEqual(directives['style-src'], [options.cspSource, `'nonce-${options.nonce}'`]);
    assert.deepEqual(directives['font-src'], [options.cspSource]);
    assert.deepEqual(directives['img-src'], [options.cspSource, 'data:']);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<link'), 'the CSP comes before the stylesheet');
    assert.equal(webviewCsp(options.cspSource, options.nonce), csp.replace(/&#39;/g, "'"));
  });

  it('loads only the bundle: one nonce-carrying external script, one stylesheet, an empty root', () => {
    const html = renderWebviewHtml(options);
    const scripts = html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? [];
    assert.deepEqual(scripts, [`<script nonce="${options.nonce}" src="${options.scriptUri}"></script>`]);
    assert.deepEqual(html.match(/<link\b[^>]*>/g), [`<link rel="stylesheet" href="${options.styleUri}">`]);
    assert.match(html, /<div id="root" class="cl-root" aria-busy="true"><\/div>/);
    assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handler attributes');
    assert.doesNotMatch(html, /\sstyle=/i, 'no inline style attributes');
  });

  it('escapes the title and URIs, and refuses a nonce that could break out of the attribute', () => {
    const html = renderWebviewHtml({ ...options, title: '</title><script>alert(1)</script>', scriptUri: 'x" onload="alert(1)' });
    assert.match(html, /<title>&lt;\/title&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/title>/);
    assert.match(html, /src="x&quot; onload=&quot;alert\(1\)"/);
    assert.throws(() => renderWebviewHtml({ ...options, nonce: `abc' 'unsafe-inline` }), /nonce/);
    assert.throws(() => renderWebviewHtml({ ...options, nonce: '' }), /nonce/);
  });
});
