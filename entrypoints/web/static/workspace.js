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
// not the browser's UTF-16 units) and says which words were chosen. "Keep these and choose
// more" keeps the chosen passage as a start and an end of its own, so one redaction can
// remove several passages; the server pairs each start with the end posted beside it.
(function () {
  var text = document.getElementById("source-text");
  var start = document.getElementById("redact-start");
  var end = document.getElementById("redact-end");
  var said = document.getElementById("redact-chosen");
  var kept = document.getElementById("redact-kept");
  var more = document.getElementById("redact-more");
  if (!text || !start || !end || !said) { return; }
  function points(s) { return Array.from(s).length; }
  function offset(node, at) {
    var range = document.createRange();
    range.selectNodeContents(text);
    range.setEnd(node, at);
    return points(range.toString());
  }
  function quoted(words) {
    return "“" + (words.length > 120 ? words.slice(0, 117) + "…" : words) + "”";
  }
  // a text whose characters the page changed (a carriage return read as a newline) is
  // not aimed at by selection: its offsets would miss; the fields still take numbers
  if (points(text.textContent) !== Number(text.getAttribute("data-chars"))) { return; }
  var chosen = "";
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
    chosen = range.toString();
    said.textContent = "Chosen: " + quoted(chosen);
  });
  if (!kept || !more) { return; }
  more.hidden = false;
  function hidden(name, value) {
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    return input;
  }
  more.addEventListener("click", function () {
    if (!start.value || !end.value) {
      said.textContent = "Select the words to remove first.";
      return;
    }
    var item = document.createElement("li");
    item.textContent = chosen ? quoted(chosen) : "characters " + start.value + " to " + end.value;
    item.appendChild(hidden("start", start.value));
    item.appendChild(hidden("end", end.value));
    var drop = document.createElement("button");
    drop.type = "button";
    drop.className = "secondary";
    drop.textContent = "Leave it in";
    drop.setAttribute("aria-label", "Leave " + item.textContent + " in the text");
    drop.addEventListener("click", function () {
      item.remove();
      kept.hidden = kept.children.length === 0;
    });
    item.appendChild(drop);
    kept.appendChild(item);
    kept.hidden = false;
    // the kept words stay selected otherwise, and the next selection event would choose
    // them again
    window.getSelection().removeAllRanges();
    start.value = "";
    end.value = "";
    chosen = "";
    var n = kept.children.length;
    said.textContent = (n === 1 ? "1 passage" : n + " passages") + " to remove. Select more words, or preview.";
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
