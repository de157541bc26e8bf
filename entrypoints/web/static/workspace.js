// Progressive enhancement only: every action works without this file.
// "/" focuses the search box (when not typing elsewhere).
"use strict";
document.addEventListener("keydown", function (event) {
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) { return; }
  var active = document.activeElement;
  if (active && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName)) { return; }
  var box = document.getElementById("q") || document.getElementById("home-q");
  if (box) { event.preventDefault(); box.focus(); }
});
// The navigation marks the page you are on (its section: a source page is under Memory).
(function () {
  var path = window.location.pathname.replace(/\/+$/, "") || "/memory";
  var best = null;
  document.querySelectorAll(".top nav a").forEach(function (link) {
    var href = link.getAttribute("href");
    if (path === href || path.indexOf(href + "/") === 0) {
      if (!best || href.length > best.getAttribute("href").length) { best = link; }
    }
  });
  if (best) { best.setAttribute("aria-current", "page"); }
})();
