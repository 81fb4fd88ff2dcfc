// The notebooks on this site contain no mathematics, yet mkdocs-jupyter's loader fetches
// MathJax from a CDN on every notebook page. Its loader skips the download when a MathJax
// with these methods is already present, so provide one that renders nothing.
window.MathJax = {
  startup: { promise: Promise.resolve() },
  typesetPromise: () => Promise.resolve(),
  typesetClear: () => {},
  texReset: () => {},
};
