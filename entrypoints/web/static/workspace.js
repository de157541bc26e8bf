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
// Redact by selecting words: a selection inside the source's text fills the redact form's
// start and end (offsets in the text's characters, as the server counts them: code points,
// not the browser's UTF-16 units) and says which words were chosen.
(function () {
  var text = document.getElementById("source-text");
  var start = document.getElementById("redact-start");
  var end = document.getElementById("redact-end");
  var said = document.getElementById("redact-chosen");
  if (!text || !start || !end || !said) { return; }
  function points(s) { return Array.from(s).length; }
  function offset(node, at) {
    var range = document.createRange();
    range.selectNodeContents(text);
    range.setEnd(node, at);
    return points(range.toString());
  }
  // a text whose characters the page changed (a carriage return read as a newline) is
  // not aimed at by selection: its offsets would miss; the fields still take numbers
  if (points(text.textContent) !== Number(text.getAttribute("data-chars"))) { return; }
  document.addEventListener("selectionchange", function () {
    var sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) { return; }
    var range = sel.getRangeAt(0);
    if (!text.contains(range.startContainer) || !text.contains(range.endContainer)) { return; }
    var from = offset(range.startContainer, range.startOffset);
    var to = offset(range.endContainer, range.endOffset);
    if (to <= from) { return; }
    start.value = String(from);
    end.value = String(to);
    var words = range.toString();
    said.textContent = "Chosen: “" + (words.length > 120 ? words.slice(0, 117) + "…" : words) + "”";
  });
})();
// Copy buttons beside ids: shown only here, where they work; without this file the id is
// selectable text. A copy that the browser refuses selects the id instead, for Ctrl+C.
(function () {
  document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var value = button.getAttribute("data-copy");
      var shown = button.previousElementSibling;
      function said(words) {
        button.firstChild.nodeValue = words;
        window.setTimeout(function () { button.firstChild.nodeValue = "Copy"; }, 1500);
      }
      function select() {
        if (!shown) { return; }
        var range = document.createRange();
        range.selectNodeContents(shown);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        said("Selected");
      }
      if (!navigator.clipboard) { select(); return; }
      navigator.clipboard.writeText(value).then(function () { said("Copied"); }, select);
    });
  });
})();
