// A link that names an element inside (or on) a closed <details> opens it and brings the element
// into view; a link to a <details> itself opens it. Runs on load and on every hash change.
(function () {
  function show() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var el = document.getElementById(id);
    if (!el) return;
    var opened = false;
    for (var d = el; d; d = d.parentElement) {
      if (d.tagName === "DETAILS" && !d.open) { d.open = true; opened = true; }
    }
    if (opened) el.scrollIntoView({ block: "start" });
  }
  window.addEventListener("hashchange", show);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show); else show();
})();
