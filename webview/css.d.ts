// Lets `import './timeline.css'` type-check: esbuild bundles the stylesheet into dist/webview.css.
declare module '*.css';
