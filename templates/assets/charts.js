/* Interactive charts, an enhancement: when a chart comes into view, load the vendored Vega
   bundle (shipped in assets/vendor, no network) and swap the static SVG for a live view with
   tooltips. Without JavaScript, or if anything fails, the static SVG stays. */
(function () {
  "use strict";
  var charts = Array.prototype.slice.call(document.querySelectorAll(".chart[data-spec]"));
  if (!charts.length || !("IntersectionObserver" in window)) return;
  var root = document.documentElement.getAttribute("data-root") || "";
  var libs = ["vega.min.js", "vega-lite.min.js", "vega-embed.min.js"];
  var state = "idle", waiting = [];
  var NARROW = 600;
  function set(s) { state = s; document.documentElement.setAttribute("data-charts", s); }

  function loadLibs(then) {
    if (state === "ready") return then();
    waiting.push(then);
    if (state !== "idle") return;
    set("loading");
    (function next(i) {
      if (i === libs.length) {
        set("ready");
        waiting.splice(0).forEach(function (f) { f(); });
        return;
      }
      var s = document.createElement("script");
      s.src = root + "assets/vendor/" + libs[i];
      s.onload = function () { next(i + 1); };
      s.onerror = function () { set("failed"); };
      document.head.appendChild(s);
    })(0);
  }

  function enhance(box) {
    var source = document.getElementById(box.getAttribute("data-spec"));
    if (!source || !window.vegaEmbed) return;
    var spec = JSON.parse(source.textContent);
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    var live = document.createElement("div");
    live.className = "live";
    box.appendChild(live);
    window.vegaEmbed(live, spec, { renderer: "svg", actions: false, logLevel: window.vega ? window.vega.Error : 0, tooltip: { theme: dark ? "dark" : "light" } })
      .then(function () {
        Array.prototype.slice.call(box.children).forEach(function (still) {
          if (still.tagName.toLowerCase() === "svg") box.removeChild(still);  // the static drawings
        });
        box.classList.add("interactive");
      })
      .catch(function () { if (live.parentNode) box.removeChild(live); });
  }

  var seen = new IntersectionObserver(function (items) {
    items.forEach(function (item) {
      if (!item.isIntersecting) return;
      seen.unobserve(item.target);
      // on a narrow screen the static drawing made for it stays: the live view is drawn 560 px wide
      if (item.target.clientWidth < NARROW) return;
      loadLibs(function () { enhance(item.target); });
    });
  }, { rootMargin: "200px" });
  charts.forEach(function (c) { seen.observe(c); });
})();
