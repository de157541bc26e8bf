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
