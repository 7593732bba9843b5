/* Search: an enhancement. "/" or Ctrl/Cmd-K opens it; the index is a script (works from file://). */
(function () {
  "use strict";
  var root = document.documentElement.getAttribute("data-root") || "";
  var button = document.getElementById("search-open");
  var dialog = document.getElementById("search");
  if (!button || !dialog || typeof dialog.showModal !== "function") return;
  var input = dialog.querySelector("input");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var loading = false;
  button.hidden = false;

  function load(then) {
    if (window.KR_SEARCH) return then();
    if (loading) return;
    loading = true;
    var s = document.createElement("script");
    s.src = root + "assets/search-index.js";
    s.onload = function () { loading = false; then(); };
    s.onerror = function () { loading = false; status.textContent = "The search index could not be loaded."; };
    document.head.appendChild(s);
  }

  function score(item, words) {
    var title = item.t.toLowerCase(), hay = (item.t + " " + item.d + " " + item.k).toLowerCase();
    var total = 0;
    for (var i = 0; i < words.length; i++) {
      var w = words[i], at = hay.indexOf(w);
      if (at < 0) return -1;
      total += title.indexOf(w) === 0 ? 0 : title.indexOf(w) > 0 ? 1 : 2;
    }
    return total;
  }

  function render() {
    var q = input.value.trim().toLowerCase();
    list.textContent = "";
    if (!q) { status.textContent = "Type a family, implementation, workload (e.g. 4096 bf16) or GPU."; return; }
    var words = q.split(/\s+/), hits = [];
    (window.KR_SEARCH || []).forEach(function (item, n) {
      var s = score(item, words);
      if (s >= 0) hits.push([s, n, item]);
    });
    hits.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    status.textContent = hits.length ? hits.length + (hits.length === 1 ? " match" : " matches") : "No match.";
    hits.slice(0, 30).forEach(function (h) {
      var item = h[2], li = document.createElement("li"), a = document.createElement("a");
      a.href = root + item.u;
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = item.k;
      var title = document.createElement("span");
      title.textContent = item.t;
      var detail = document.createElement("span");
      detail.className = "note";
      detail.textContent = item.d;
      a.appendChild(kind); a.appendChild(title); a.appendChild(detail);
      a.addEventListener("click", function () { dialog.close(); });
      li.appendChild(a);
      list.appendChild(li);
    });
  }

  function open() {
    if (dialog.open) return;
    dialog.showModal();
    input.select();
    load(render);
  }

  button.addEventListener("click", open);
  input.addEventListener("input", function () { load(render); });
  input.addEventListener("keydown", function (ev) {
    var first = list.querySelector("a");
    if (ev.key === "Escape") { ev.preventDefault(); dialog.close(); return; }
    if (ev.key === "Enter" && first) { ev.preventDefault(); dialog.close(); window.location.href = first.href; }
    if (ev.key === "ArrowDown" && first) { ev.preventDefault(); first.focus(); }
  });
  list.addEventListener("keydown", function (ev) {
    var links = Array.prototype.slice.call(list.querySelectorAll("a"));
    var at = links.indexOf(document.activeElement);
    if (ev.key === "ArrowDown" && at < links.length - 1) { ev.preventDefault(); links[at + 1].focus(); }
    if (ev.key === "ArrowUp") { ev.preventDefault(); (at > 0 ? links[at - 1] : input).focus(); }
  });
  dialog.addEventListener("click", function (ev) { if (ev.target === dialog) dialog.close(); });
  document.addEventListener("keydown", function (ev) {
    var t = ev.target, typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    if ((ev.key === "k" || ev.key === "K") && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); open(); }
    else if (ev.key === "/" && !typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); open(); }
  });
})();

// The header's Families menu (a <details>): Escape or a click outside it closes it.
(function () {
  var menu = document.querySelector("details.nav-families");
  if (!menu) return;
  document.addEventListener("click", function (ev) {
    if (menu.open && !menu.contains(ev.target)) menu.open = false;
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && menu.open) { menu.open = false; menu.querySelector("summary").focus(); }
  });
})();
