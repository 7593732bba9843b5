// "Which kernel for my shape": the page lists the families (#finder-data); the chosen family's
// winners are loaded from its script (shape/<family>.js, the same data as shape/<family>.json:
// a script loads from file://, a fetch does not). The state lives in the URL query
// (?family=…&dtype=…&kind=…&<axis>=…&gpu=…&k=…). Only workloads of the chosen dtype, pass (kind,
// where the family has several) and GPU (or any) are candidates. Nearest measured workloads by Euclidean distance of log2
// sizes over the family's axes; for each GPU and protocol, the winner of the nearest and whether
// it also wins at every neighbour.
(function () {
  var families = JSON.parse(document.getElementById("finder-data").textContent);
  var form = document.getElementById("finder"), answer = document.getElementById("finder-answer");
  var axesBox = document.getElementById("finder-axes");
  var root = document.documentElement.dataset.root || "";
  var loaded = window.KR_FINDER = window.KR_FINDER || {};
  if (!families.length) return;
  form.hidden = false;
  function meta(id) { return families.find(function (f) { return f.id === id; }) || families[0]; }
  function withFamily(id, then) {
    var m = meta(id);
    if (loaded[m.id]) { then(loaded[m.id]); return; }
    var s = document.createElement("script");
    s.src = root + m.script_url;
    s.onload = function () { if (loaded[m.id]) then(loaded[m.id]); };
    s.onerror = function () { answer.textContent = "The winners of " + m.title + " could not be loaded; see its table."; };
    document.head.appendChild(s);
  }
  function el(tag, text, cls) { var e = document.createElement(tag); if (text != null) e.textContent = text; if (cls) e.className = cls; return e; }
  function us(v) { return v == null ? "—" : v >= 1000 ? Math.round(v).toLocaleString("en") + " µs" : v >= 100 ? v.toFixed(1) + " µs" : v >= 10 ? v.toFixed(2) + " µs" : v.toFixed(3) + " µs"; }
  function fields(f, q) {
    form.dtype.innerHTML = "";
    f.dtypes.forEach(function (d) { var o = el("option", d); o.value = d; form.dtype.appendChild(o); });
    if (q.get("dtype") && f.dtypes.indexOf(q.get("dtype")) >= 0) form.dtype.value = q.get("dtype");
    // the pass: offered where the family measures more than one (forward first)
    form.kind.innerHTML = "";
    f.kinds.forEach(function (k) { var o = el("option", k); o.value = k; form.kind.appendChild(o); });
    if (q.get("kind") && f.kinds.indexOf(q.get("kind")) >= 0) form.kind.value = q.get("kind");
    document.getElementById("finder-kind").hidden = f.kinds.length < 2;
    form.gpu.innerHTML = "";
    var any = el("option", "any"); any.value = ""; form.gpu.appendChild(any);
    f.gpus.forEach(function (g) { var o = el("option", g.name); o.value = g.id; form.gpu.appendChild(o); });
    if (q.get("gpu") && f.gpus.some(function (g) { return g.id === q.get("gpu"); })) form.gpu.value = q.get("gpu");
    axesBox.innerHTML = "";
    f.axes.forEach(function (a) {
      var l = el("label", a + " "), i = el("input");
      i.name = "axis-" + a; i.type = "number"; i.min = "1"; i.inputMode = "numeric";
      var seen = f.rows.map(function (r) { return r.sizes[a]; }).filter(function (v) { return v; });
      i.value = q.get(a) || (seen.length ? seen[0] : 1);
      l.appendChild(i); axesBox.appendChild(l);
    });
  }
  function dist(a, b, axes) {
    var s = 0, n = 0;
    axes.forEach(function (x) { if (a[x] > 0 && b[x] > 0) { var d = Math.log2(a[x]) - Math.log2(b[x]); s += d * d; n++; } });
    return n ? Math.sqrt(s) : Infinity;
  }
  function show(q) { withFamily(q.get("family"), function (f) { answerFor(f, q); }); }
  function answerFor(f, q) {
    form.family.value = f.id; fields(f, q);
    if (!q.get("family")) { answer.innerHTML = ""; return; }
    var want = {}; f.axes.forEach(function (a) { want[a] = Number(form["axis-" + a].value); });
    var k = Math.max(1, Math.min(12, Number(q.get("k")) || 4)); form.k.value = k;
    var kind = f.kinds.length > 1 ? form.kind.value : "", gpu = form.gpu.value;
    var rows = f.rows.filter(function (r) {
      return r.dtype === form.dtype.value && (!kind || r.kind === kind) && (!gpu || r.hardware === gpu);
    });
    var shapes = {};
    rows.forEach(function (r) { (shapes[r.workload] = shapes[r.workload] || { label: r.label, sizes: r.sizes, d: dist(want, r.sizes, f.axes), rows: [] }).rows.push(r); });
    var near = Object.keys(shapes).map(function (w) { return shapes[w]; }).sort(function (a, b) { return a.d - b.d || (a.label < b.label ? -1 : 1); }).slice(0, k);
    answer.innerHTML = "";
    var h = el("h2", "Nearest measured shapes"); h.id = "finder-h"; answer.appendChild(h);
    if (!near.length) {
      var gpuName = gpu ? form.gpu.options[form.gpu.selectedIndex].text : "";
      answer.appendChild(el("p", "No measured workload of this family has dtype " + form.dtype.value +
        (kind ? " in the " + kind + " pass" : "") + (gpu ? " on " + gpuName : "") + ": choose another" +
        (gpu ? " GPU (or any)" : " dtype") + ", or see the family's table below.", "muted"));
      return;
    }
    var verdicts = {};
    near[0].rows.forEach(function (r) {
      var key = r.hardware + " " + r.protocol, hold = near.every(function (s) {
        var m = s.rows.find(function (x) { return x.hardware === r.hardware && x.protocol === r.protocol; });
        return !m || m.winner_id === r.winner_id;
      });
      verdicts[key] = { r: r, hold: hold };
    });
    var ul = el("ul"); ul.id = "finder-verdicts";
    Object.keys(verdicts).sort().forEach(function (key) {
      var v = verdicts[key], li = el("li");
      li.appendChild(el("strong", v.r.winner));
      li.appendChild(document.createTextNode(" on " + v.r.hardware_name + " (" + v.r.protocol + "): " +
        (v.hold ? "wins at every one of the " + near.length + " nearest shapes" : "does not win at all " + near.length + " nearest shapes — check the table") +
        (v.r.margin && v.r.margin < 1.02 ? "; at the nearest its lead over #2 is under 2 %, within typical run-to-run noise." : ".")));
      li.dataset.holds = v.hold ? "yes" : "no"; ul.appendChild(li);
    });
    answer.appendChild(ul);
    var wrap = el("div", null, "scroll"), t = el("table"); t.id = "finder-table"; wrap.tabIndex = 0;
    var head = el("tr"); ["Workload", "log₂ distance", "GPU · protocol", "Winner", "Median", "Margin over #2", "Floor · × above", "Trust"].forEach(function (c) { var th = el("th", c); th.scope = "col"; head.appendChild(th); });
    var thead = el("thead"); thead.appendChild(head); t.appendChild(thead);
    var tb = el("tbody");
    near.forEach(function (s) {
      s.rows.forEach(function (r) {
        var tr = el("tr");
        var wl = el("td", s.label);  // the label, then the sizes the distance was taken over
        wl.appendChild(el("div", f.axes.map(function (a) { return a + " " + s.sizes[a]; }).join(" · "), "note"));
        tr.appendChild(wl); tr.appendChild(el("td", s.d.toFixed(2), "num"));
        tr.appendChild(el("td", r.hardware_name + " · " + r.protocol)); tr.appendChild(el("td", r.winner));
        var td = el("td", null, "num"), a = el("a", us(r.time_us)); a.href = root + r.run_url; td.appendChild(a); tr.appendChild(td);
        tr.appendChild(el("td", r.margin ? r.margin.toFixed(2) + "× (" + r.runner_up + ")" : "alone", "num"));
        tr.appendChild(el("td", us(r.floor_us) + " · " + r.above_floor + "×", "num"));
        var b = el("span", r.trust_label, "badge " + r.trust), tt = el("td"); tt.appendChild(b);
        if (r.earlier_code) {  // measured on kernel source that has changed since (as on the family page)
          var c = el("span", "earlier code", "badge changed");
          c.title = "Measured on kernel source that has changed since: a new run measures the current code";
          tt.appendChild(document.createTextNode(" ")); tt.appendChild(c);
        }
        tr.appendChild(tt);
        tb.appendChild(tr);
      });
    });
    t.appendChild(tb); wrap.appendChild(t); answer.appendChild(wrap);
  }
  form.family.addEventListener("change", function () {
    withFamily(form.family.value, function (f) { fields(f, new URLSearchParams()); });
  });
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    withFamily(form.family.value, function (f) {
      var q = new URLSearchParams();
      q.set("family", f.id); q.set("dtype", form.dtype.value);
      if (f.kinds.length > 1) q.set("kind", form.kind.value);
      if (form.gpu.value) q.set("gpu", form.gpu.value);
      f.axes.forEach(function (a) { q.set(a, form["axis-" + a].value); });
      q.set("k", form.k.value);
      history.pushState(null, "", "?" + q.toString());
      answerFor(f, q);
    });
  });
  window.addEventListener("popstate", function () { show(new URLSearchParams(location.search)); });
  show(new URLSearchParams(location.search));
})();
