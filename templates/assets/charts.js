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

  // A chart's spec: inline (<script type="application/json" id=…>, the history pages) or in the
  // page's specs script (data-specs on a section around the chart, the family pages), loaded once.
  var sidecars = {};
  function withSpec(box, then) {
    var id = box.getAttribute("data-spec"), inline = document.getElementById(id);
    if (inline) return then(JSON.parse(inline.textContent));
    var holder = box.closest("[data-specs]");
    if (!holder) return;
    var url = holder.getAttribute("data-specs"), side = sidecars[url];
    function give() { var s = window.KR_SPECS && window.KR_SPECS[id]; if (s) then(s); }
    if (side === "ready") return give();
    if (side === "failed") return;
    if (side) return side.push(give);
    sidecars[url] = [give];
    var s = document.createElement("script");
    s.src = url;
    s.onload = function () { var q = sidecars[url]; sidecars[url] = "ready"; q.forEach(function (f) { f(); }); };
    s.onerror = function () { sidecars[url] = "failed"; };  // the static drawing stays
    document.head.appendChild(s);
  }

  function enhance(box) {
    if (!window.vegaEmbed) return;
    withSpec(box, function (spec) { embed(box, spec); });
  }

  function embed(box, spec) {
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
