// Problem browser of report.html. Plain DOM, no libraries. Every string from the
// run is written with textContent or setAttribute, never parsed as markup.
(function () {
  "use strict";
  var PAGE = 25;
  var data = JSON.parse(document.getElementById("problems-data").textContent);
  var tokens = null; // parsed on first use: it is the largest block of the page
  function tokenBlock() {
    if (tokens === null) {
      tokens = JSON.parse(document.getElementById("tokens-data").textContent);
    }
    return tokens;
  }
  var els = {
    q: document.getElementById("q"), show: document.getElementById("show"),
    score: document.getElementById("score"), colour: document.getElementById("colour"),
    count: document.getElementById("count"), page: document.getElementById("page"),
    prev: document.getElementById("prev"), next: document.getElementById("next"),
    list: document.getElementById("list"), legend: document.getElementById("legend"),
    pairA: document.getElementById("pair-a"), pairB: document.getElementById("pair-b")
  };
  data.samplers.forEach(function (name, i) {
    var a = el("option", null, name), b = el("option", null, name);
    a.value = String(i); b.value = String(i);
    els.pairA.appendChild(a); els.pairB.appendChild(b);
  });
  if (data.samplers.length > 1) { els.pairB.value = "1"; }
  var state = { page: 0, matches: [] };
  // Okabe–Ito plus greys: distinguishable strategy colours.
  var STRATEGY_COLOURS = ["#cfe8f7", "#fde2c4", "#d3f0e6", "#f6d7e8", "#fff3b0", "#e1dcf4", "#f9d3c9", "#dfe6ea", "#c8e6c9", "#ffe0b2"];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function correct(r) { return r.c[Number(els.score.value)]; }

  function matchesShow(p) {
    var show = els.show.value;
    if (show === "all" || p.r.length === 0) { return show === "all"; }
    var right = 0;
    for (var i = 0; i < p.r.length; i++) { if (correct(p.r[i])) { right++; } }
    switch (show) {
      case "allright": return right === p.r.length;
      case "allwrong": return right === 0;
      case "someright": return right > 0;
      case "disagree": return disagree(p);
      case "pair": return pairRightWrong(p, Number(els.pairA.value), Number(els.pairB.value));
    }
    return true;
  }

  // Samplers disagree when their shares of correct responses to the problem
  // differ (with one response each: one is right, another wrong).
  function disagree(p) {
    var right = {}, total = {};
    for (var i = 0; i < p.r.length; i++) {
      var s = p.r[i].s;
      right[s] = (right[s] || 0) + (correct(p.r[i]) ? 1 : 0);
      total[s] = (total[s] || 0) + 1;
    }
    var share = null;
    for (var k in total) {
      if (Object.prototype.hasOwnProperty.call(total, k)) {
        var x = right[k] / total[k];
        if (share !== null && x !== share) { return true; }
        share = x;
      }
    }
    return false;
  }

  // "A right, B wrong": A's share of correct samples on the problem is above
  // B's (with one sample each: A right and B wrong).
  function pairRightWrong(p, a, b) {
    var right = [0, 0], total = [0, 0];
    for (var i = 0; i < p.r.length; i++) {
      var side = p.r[i].s === a ? 0 : (p.r[i].s === b ? 1 : -1);
      if (side < 0) { continue; }
      total[side]++;
      if (correct(p.r[i])) { right[side]++; }
    }
    return a !== b && total[0] > 0 && total[1] > 0 && right[0] / total[0] > right[1] / total[1];
  }

  function matchesQuery(p, q) {
    if (!q) { return true; }
    if (String(p.id) === q) { return true; }
    if (p.q.toLowerCase().indexOf(q) >= 0 || p.t.toLowerCase().indexOf(q) >= 0) { return true; }
    for (var i = 0; i < p.r.length; i++) {
      if (p.r[i].x.toLowerCase().indexOf(q) >= 0) { return true; }
    }
    return false;
  }

  function refilter() {
    var q = els.q.value.trim().toLowerCase();
    state.matches = [];
    for (var i = 0; i < data.problems.length; i++) {
      var p = data.problems[i];
      if (matchesShow(p) && matchesQuery(p, q)) { state.matches.push(i); }
    }
    state.page = 0;
    render();
  }

  function render() {
    var pages = Math.max(1, Math.ceil(state.matches.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    els.count.textContent = state.matches.length + " of " + data.problems.length + " problems";
    els.page.textContent = "page " + (state.page + 1) + " / " + pages;
    els.prev.disabled = state.page === 0;
    els.next.disabled = state.page >= pages - 1;
    // Problems the reader opened stay open when the list is redrawn.
    var open = {};
    els.list.querySelectorAll("details.problem[open]").forEach(function (d) { open[d.getAttribute("data-problem")] = true; });
    els.list.textContent = "";
    var start = state.page * PAGE;
    for (var i = start; i < Math.min(start + PAGE, state.matches.length); i++) {
      var card = problemCard(data.problems[state.matches[i]]);
      els.list.appendChild(card);
      if (open[card.getAttribute("data-problem")]) { card.open = true; }
    }
    renderLegend();
  }

  function problemCard(p) {
    var d = el("details", "problem");
    d.setAttribute("data-problem", String(p.id));
    var s = el("summary");
    s.appendChild(el("span", "pid", "#" + p.id));
    s.appendChild(el("span", "qshort", p.q.length > 140 ? p.q.slice(0, 140) + "…" : p.q));
    var marks = el("span", "marks");
    for (var i = 0; i < p.r.length; i++) {
      var r = p.r[i], ok = correct(r);
      var m = el("span", "mark " + (ok ? "ok" : "bad"), (ok ? "✓ " : "✗ ") + data.samplers[r.s] + " s" + r.seed + (r.rep > 0 ? " r" + r.rep : ""));
      m.title = data.samplers[r.s] + " seed " + r.seed + " repeat " + r.rep + ": " + (ok ? "correct" : "wrong");
      marks.appendChild(m);
    }
    s.appendChild(marks);
    d.appendChild(s);
    d.addEventListener("toggle", function () {
      if (d.open && !d.querySelector(".pbody")) { d.appendChild(problemBody(p)); }
    });
    return d;
  }

  function problemBody(p) {
    var b = el("div", "pbody");
    b.appendChild(el("p", "question", p.q || "(question not recorded)"));
    if (p.p || data.promptPrefix) {
      var prompt = data.promptPrefix + p.p;
      var pd = el("details", "prompt");
      pd.appendChild(el("summary", null, "prompt the model saw (" + prompt.length + " characters)"));
      pd.appendChild(el("pre", "prompt-text", prompt));
      b.appendChild(pd);
    }
    var t = el("p", "target");
    t.appendChild(el("b", null, "target: "));
    t.appendChild(document.createTextNode(p.t));
    b.appendChild(t);
    for (var i = 0; i < p.r.length; i++) { b.appendChild(responseView(p.r[i])); }
    return b;
  }

  function responseView(r) {
    var box = el("div", "resp");
    var ok = correct(r);
    var head = el("div", "head");
    head.appendChild(el("b", null, data.samplers[r.s]));
    head.appendChild(document.createTextNode(" seed " + r.seed + " · repeat " + r.rep + " · "));
    head.appendChild(el("span", "mark " + (ok ? "ok" : "bad"), ok ? "correct" : "wrong"));
    // Each filter pipeline's answer, under the task's own filter name.
    for (var i = 0; i < data.answerFilters.length; i++) {
      head.appendChild(document.createTextNode(" · "));
      head.appendChild(el("span", "answer", data.answerFilters[i] + ": " + (i < r.a.length ? r.a[i] : "")));
    }
    head.appendChild(document.createTextNode(" · " + r.n + " tokens · finish " + r.f +
      (r.k < 0 ? " · plain text (over the token budget)" : "")));
    box.appendChild(head);
    var pre = el("pre", "text");
    if (r.k >= 0 && els.colour.value !== "none") {
      colourTokens(pre, tokenBlock()[r.k]);
    } else {
      pre.textContent = r.x;
    }
    box.appendChild(pre);
    if (r.k >= 0) {
      var tl = timeline(tokenBlock()[r.k], data.thresholds[r.s] || { e: [], v: [] }, data.samplers[r.s]);
      if (tl) { box.appendChild(tl); }
    }
    return box;
  }

  // timeline draws a response's per-token entropy, varentropy and attention
  // entropy against the step, with the sampler's Entropix thresholds dashed.
  var SVGNS = "http://www.w3.org/2000/svg";
  var SERIES = [{ key: "e", name: "entropy", colour: "#0072B2", th: "e" },
    { key: "v", name: "varentropy", colour: "#D55E00", th: "v" },
    { key: "a", name: "attn entropy", colour: "#009E73", th: null }];
  function svgEl(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k)) { e.setAttribute(k, String(attrs[k])); }
    }
    if (text !== undefined) { e.textContent = String(text); }
    return e;
  }
  function timeline(t, th, sampler) {
    var n = t.e.length;
    if (n === 0) { return null; }
    var W = 640, H = 150, L = 36, R = 8, T = 20, B = 20, top = 0;
    SERIES.forEach(function (s) {
      (t[s.key] || []).forEach(function (x) { if (x !== null) { top = Math.max(top, x); } });
      if (s.th) { th[s.th].forEach(function (x) { top = Math.max(top, x); }); }
    });
    top = top > 0 ? top * 1.05 : 1;
    function x(i) { return L + (W - L - R) * (n === 1 ? 0.5 : i / (n - 1)); }
    function y(v) { return T + (H - T - B) * (1 - v / top); }
    var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, "class": "timeline", role: "img" });
    svg.setAttribute("aria-label", "token timeline of " + sampler);
    svg.appendChild(svgEl("line", { x1: L, y1: y(0), x2: W - R, y2: y(0), stroke: "#888" }));
    svg.appendChild(svgEl("line", { x1: L, y1: T, x2: L, y2: y(0), stroke: "#888" }));
    svg.appendChild(svgEl("text", { x: L - 4, y: y(0) + 4, "text-anchor": "end", "font-size": 10 }, "0"));
    svg.appendChild(svgEl("text", { x: L - 4, y: T + 4, "text-anchor": "end", "font-size": 10 }, top.toFixed(1)));
    svg.appendChild(svgEl("text", { x: W - R, y: H - 4, "text-anchor": "end", "font-size": 10 }, "step " + (n - 1)));
    var lx = L + 6;
    SERIES.forEach(function (s) {
      var v = t[s.key] || [], d = "", pen = "M";
      for (var i = 0; i < v.length; i++) {
        if (v[i] === null) { pen = "M"; continue; }
        d += pen + x(i).toFixed(1) + "," + y(v[i]).toFixed(1);
        pen = "L";
      }
      if (d) {
        svg.appendChild(svgEl("path", { d: d, fill: "none", stroke: s.colour, "stroke-width": 1.2, "class": "series-" + s.key }));
        svg.appendChild(svgEl("text", { x: lx, y: 12, fill: s.colour, "font-size": 10 }, s.name));
        lx += 8 + 6 * s.name.length;
      }
      if (s.th) {
        th[s.th].forEach(function (level) {
          svg.appendChild(svgEl("line", { x1: L, y1: y(level), x2: W - R, y2: y(level), stroke: s.colour,
            "stroke-dasharray": "4 3", "class": "threshold" }));
        });
      }
    });
    return svg;
  }

  function entropyColour(h) {
    if (h === null) { return "transparent"; }
    var x = Math.max(0, Math.min(1, h / 4)); // 4 bits and more: full colour
    return "hsla(" + Math.round(200 - 200 * x) + ", 85%, 55%, " + (0.08 + 0.6 * x).toFixed(2) + ")";
  }

  function colourTokens(pre, t) {
    var byStrategy = els.colour.value === "strategy";
    var frag = document.createDocumentFragment();
    for (var i = 0; i < t.t.length; i++) {
      var span = el("span", "tok", t.t[i]);
      var g = t.g[i], h = t.e[i], v = t.v[i];
      span.style.background = byStrategy ? STRATEGY_COLOURS[g % STRATEGY_COLOURS.length] : entropyColour(h);
      span.title = "step " + i + "\nentropy " + fmt(h) + " bits\nvarentropy " + fmt(v) + " bits²\nstrategy " + data.strategies[g];
      frag.appendChild(span);
    }
    pre.appendChild(frag);
  }

  function fmt(x) { return x === null ? "n/a" : x.toFixed(3); }

  function renderLegend() {
    els.legend.textContent = "";
    if (els.colour.value === "entropy") {
      els.legend.appendChild(document.createTextNode("token entropy: "));
      [0, 1, 2, 3, 4].forEach(function (h) {
        var s = el("span", "sw", h + (h === 4 ? "+ bits" : ""));
        s.style.background = entropyColour(h);
        els.legend.appendChild(s);
      });
    } else if (els.colour.value === "strategy") {
      els.legend.appendChild(document.createTextNode("strategy: "));
      data.strategies.forEach(function (name, i) {
        var s = el("span", "sw", name);
        s.style.background = STRATEGY_COLOURS[i % STRATEGY_COLOURS.length];
        els.legend.appendChild(s);
      });
    }
    els.legend.appendChild(document.createTextNode(" · hover a token for its metrics"));
  }

  els.q.addEventListener("input", refilter);
  els.show.addEventListener("change", refilter);
  els.pairA.addEventListener("change", refilter);
  els.pairB.addEventListener("change", refilter);
  els.score.addEventListener("change", refilter);
  els.colour.addEventListener("change", render);
  els.prev.addEventListener("click", function () { state.page--; render(); });
  els.next.addEventListener("click", function () { state.page++; render(); });
  refilter();
})();
