// Small accessibility repairs to markup that Material and the notebook renderer emit.
document.addEventListener("DOMContentLoaded", () => {
  // The search overlay is a role="dialog" without a name: name it after its input.
  const search = document.querySelector(".md-search[role='dialog']");
  const input = document.querySelector(".md-search__input");
  if (search && !search.hasAttribute("aria-label")) {
    search.setAttribute("aria-label", input?.getAttribute("aria-label") || "Search");
  }
  // Notebook code and output areas scroll sideways; make them reachable by keyboard.
  for (const region of document.querySelectorAll(
    ".jupyter-wrapper .highlight-ipynb, .jupyter-wrapper .jp-OutputArea-output pre",
  )) {
    if (!region.hasAttribute("tabindex")) {
      region.setAttribute("tabindex", "0");
    }
  }
});
