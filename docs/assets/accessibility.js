// Small accessibility repairs to markup that Material and the notebook renderer emit.
function repairAccessibility() {
  // The search overlay is a role="dialog" without a name: name it after its input.
  const search = document.querySelector(".md-search[role='dialog']");
  const input = document.querySelector(".md-search__input");
  if (search && !search.hasAttribute("aria-label")) {
    search.setAttribute("aria-label", input?.getAttribute("aria-label") || "Search");
  }
  // Wide tables and notebook cells scroll sideways; make them reachable by keyboard.
  for (const region of document.querySelectorAll(
    ".md-typeset__scrollwrap, .jupyter-wrapper .highlight-ipynb, " +
      ".jupyter-wrapper .jp-OutputArea-output pre",
  )) {
    if (!region.hasAttribute("tabindex")) {
      region.setAttribute("tabindex", "0");
    }
  }
}

// Material wraps tables after the page loads, and again after each instant navigation:
// its document$ observable fires each time the content is ready.
if (typeof document$ !== "undefined") {
  document$.subscribe(repairAccessibility);
} else {
  document.addEventListener("DOMContentLoaded", repairAccessibility);
}
