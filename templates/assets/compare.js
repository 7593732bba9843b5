/* Compare: the pair is in the URL. The form (and ?a=…&b=… on the default page) go to the pair's page. */
(function () {
  "use strict";
  var form = document.getElementById("compare-form");
  if (!form) return;
  var root = document.documentElement.getAttribute("data-root") || "";
  var pattern = form.getAttribute("data-pattern");
  var ids = Array.prototype.map.call(form.elements.a.options, function (o) { return o.value; });
  function target(a, b) { return root + pattern.replace("{a}", a).replace("{b}", b); }
  var q = new URLSearchParams(window.location.search || window.location.hash.slice(1));
  var a = q.get("a"), b = q.get("b");
  if (a && b && a !== b && ids.indexOf(a) >= 0 && ids.indexOf(b) >= 0 &&
      (a !== form.getAttribute("data-a") || b !== form.getAttribute("data-b"))) {
    window.location.replace(target(a, b));
    return;
  }
  form.hidden = false;
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var x = form.elements.a.value, y = form.elements.b.value;
    if (x === y) { form.elements.b.focus(); return; }
    window.location.href = target(x, y);
  });
})();
