/**
 * The HTML report's page: markup, style and script, all inline so that the file works offline from
 * file://. The script builds everything from the embedded JSON with textContent and attributes,
 * never from markup, so no string of the trace is ever parsed as HTML.
 */

export const STYLE = `
body { font: 13px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .3em; word-break: break-all; }
h2 { font-size: 1.1em; margin: 1.5em 0 .4em; }
.hint { color: #666; margin: 0 0 .5em; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0 1em; margin: .5em 0; }
dt { color: #666; } dd { margin: 0; word-break: break-all; }
#flame { position: relative; width: 100%; overflow: hidden; border: 1px solid #ddd; }
#flame svg { display: block; font: 11px system-ui, sans-serif; }
#flame .box { cursor: pointer; }
#flame .box rect { stroke: #fff; stroke-width: .5; }
#flame .box:hover rect { stroke: #000; stroke-width: 1; }
#flame .box text { fill: #000; pointer-events: none; }
#tip { position: fixed; z-index: 1; max-width: 40em; padding: .4em .6em; background: #fffbe6; border: 1px solid #aaa; box-shadow: 0 2px 6px #0003; pointer-events: none; word-break: break-all; }
#tip b { display: block; }
.tree { font: 12px/1.5 ui-monospace, monospace; border: 1px solid #ddd; padding: .3em 0; overflow-x: auto; }
.row { display: grid; grid-template-columns: 5.5em 5.5em 1fr; white-space: nowrap; }
.row:hover { background: #f0f4ff; }
.row[aria-expanded] { cursor: pointer; }
.num { text-align: right; padding-right: 1em; }
.fn::before { display: inline-block; width: 1.2em; content: ''; }
.row[aria-expanded=false] .fn::before { content: '▸'; }
.row[aria-expanded=true] .fn::before { content: '▾'; }
.where { color: #777; margin-left: 1em; }
.heading { color: #666; font-weight: bold; }
#compare table { border-collapse: collapse; font: 12px/1.5 ui-monospace, monospace; }
#compare th, #compare td { padding: 0 .8em; text-align: right; white-space: nowrap; }
#compare th { color: #666; }
#compare td.name, #compare th.name { text-align: left; }
#compare .changed { font-weight: bold; }
.swatch { display: inline-block; width: 1em; height: 1em; vertical-align: middle; border: 1px solid #aaa; }
`;

export const SCRIPT = `(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('jsprof-data').textContent);
  var SVG = 'http://www.w3.org/2000/svg';
  var ROW = 18;
  var MIN_WIDTH = 0.5;

  // Trees are walked with a list of work, not recursion: a trace may be thousands of frames deep.
  function inflate(root) {
    var top = { frame: root[0], total: root[1], self: root[2], parent: null, children: [] };
    var work = [[root, top]];
    while (work.length) {
      var item = work.pop();
      item[0][3].forEach(function (c) {
        var child = { frame: c[0], total: c[1], self: c[2], parent: item[1], children: [] };
        item[1].children.push(child);
        work.push([c, child]);
      });
    }
    return top;
  }
  var topDown = inflate(data.topDown);
  var bottomUp = inflate(data.bottomUp);
  var compare = data.compare;

  // Comparing: each box of the current flame graph learns the baseline's time on the same path, and
  // is coloured by the change of its self time (per trace): where the time itself went up or down.
  var maxChange = 0;
  function msOf(node) { return node.total * compare.msPerSample; }
  function baselineMsOf(node) { return node.baseline * compare.baselineMsPerSample; }
  function changeOf(node) { return node.self * compare.msPerSample - node.baselineSelf * compare.baselineMsPerSample; }
  if (compare) {
    var pairs = [[topDown, inflate(compare.baseline)]];
    while (pairs.length) {
      var pair = pairs.pop();
      var node = pair[0], base = pair[1];
      node.baseline = base ? base.total : 0;
      node.baselineSelf = base ? base.self : 0;
      maxChange = Math.max(maxChange, Math.abs(changeOf(node)));
      var byFrame = new Map();
      if (base) base.children.forEach(function (c) { byFrame.set(c.frame, c); });
      node.children.forEach(function (c) { pairs.push([c, byFrame.get(c.frame)]); });
    }
  }

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function nameOf(node) { return node.frame < 0 ? 'all busy samples' : data.frames[node.frame][0] || '(anonymous)'; }
  function whereOf(node) { return node.frame < 0 ? '' : data.frames[node.frame][1]; }
  function share(count) { return data.busy ? (100 * count / data.busy).toFixed(1) + '%' : '-'; }
  function duration(count) {
    if (!data.intervalMs) return count + ' samples';
    var ms = count * data.intervalMs;
    return ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : Math.round(ms) + ' ms';
  }

  function showSummary() {
    document.title = 'jsprof report: ' + data.title;
    document.getElementById('title').textContent = 'jsprof report: ' + data.title;
    var every = data.intervalMs ? ' every ' + Number(data.intervalMs.toFixed(1)) + ' ms' : '';
    document.getElementById('summary').textContent = data.samples + ' samples' + every + ': ' + data.busy +
      ' while JavaScript ran (' + duration(data.busy) + '), ' + data.idle + ' idle (' + duration(data.idle) + '). Shares are of the busy samples.';
    var meta = document.getElementById('meta');
    Object.keys(data.meta).forEach(function (key) {
      meta.appendChild(el('dt', '', key));
      meta.appendChild(el('dd', '', String(data.meta[key])));
    });
  }

  // Flame graph: callers above callees, widths proportional to total time.
  var flame = document.getElementById('flame');
  var tip = document.getElementById('tip');
  var reset = document.getElementById('reset');
  var svg = document.createElementNS(SVG, 'svg');
  var nodeOfBox = new WeakMap();
  var focus = topDown;

  function color(node) {
    if (compare) return changeColor(node);
    if (node.frame < 0) return '#ccc';
    var where = whereOf(node);
    if (where === '(native)') return '#bbb';
    var file = where.replace(/:\\d+$/, '');
    var hash = 0;
    for (var i = 0; i < file.length; i++) hash = (hash * 31 + file.charCodeAt(i)) | 0;
    return 'hsl(' + (15 + Math.abs(hash) % 40) + ', 85%, ' + (62 + Math.abs(hash >> 8) % 14) + '%)';
  }

  // Slower in the current side: red; faster: blue; the more the change, the deeper.
  function changeColor(node) {
    var t = maxChange ? changeOf(node) / maxChange : 0;
    var light = Math.round(96 - 46 * Math.min(1, Math.abs(t)));
    return t >= 0 ? 'hsl(0, 85%, ' + light + '%)' : 'hsl(215, 85%, ' + light + '%)';
  }
  function msText(ms) { return (Math.abs(ms) >= 10 ? ms.toFixed(0) : ms.toFixed(1)) + ' ms'; }
  function signed(ms) { return (ms >= 0 ? '+' : '\u2212') + msText(Math.abs(ms)); }

  function fit(text, width) {
    var chars = Math.floor((width - 6) / 6.5);
    if (chars < 3) return '';
    return text.length <= chars ? text : text.slice(0, chars - 1) + '…';
  }

  function drawBox(node, depth, x, width) {
    var g = document.createElementNS(SVG, 'g');
    g.setAttribute('class', 'box');
    g.setAttribute('aria-label', nameOf(node));
    g.setAttribute('transform', 'translate(' + x + ',' + depth * ROW + ')');
    var rect = document.createElementNS(SVG, 'rect');
    rect.setAttribute('width', Math.max(width, 0.5));
    rect.setAttribute('height', ROW - 1);
    rect.setAttribute('fill', color(node));
    g.appendChild(rect);
    var label = fit(nameOf(node), width);
    if (label) {
      var text = document.createElementNS(SVG, 'text');
      text.setAttribute('x', 3);
      text.setAttribute('y', ROW - 5);
      text.textContent = label;
      g.appendChild(text);
    }
    nodeOfBox.set(g, node);
    svg.appendChild(g);
  }

  function layout(root, rootDepth, rootX, rootWidth) {
    var deepest = rootDepth;
    var work = [[root, rootDepth, rootX, rootWidth]];
    while (work.length) {
      var item = work.pop();
      var node = item[0], depth = item[1], x = item[2], width = item[3];
      drawBox(node, depth, x, width);
      deepest = Math.max(deepest, depth);
      node.children.forEach(function (child) {
        var w = width * child.total / node.total;
        if (w >= MIN_WIDTH) work.push([child, depth + 1, x, w]);
        x += w;
      });
    }
    return deepest;
  }

  function drawFlame() {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var width = flame.clientWidth;
    var ancestors = [];
    for (var a = focus.parent; a; a = a.parent) ancestors.unshift(a);
    ancestors.forEach(function (node, depth) { drawBox(node, depth, 0, width); });
    var deepest = layout(focus, ancestors.length, 0, width);
    svg.setAttribute('width', width);
    svg.setAttribute('height', (deepest + 1) * ROW);
    reset.disabled = focus === topDown;
  }

  function zoom(node) {
    focus = node;
    tip.hidden = true;
    drawFlame();
  }

  function boxNode(event) {
    var g = event.target.closest && event.target.closest('g.box');
    return g ? nodeOfBox.get(g) : undefined;
  }

  function showTip(node, event) {
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    tip.appendChild(el('b', '', nameOf(node)));
    if (whereOf(node)) tip.appendChild(el('div', '', whereOf(node)));
    tip.appendChild(el('div', '', 'total ' + share(node.total) + ' (' + duration(node.total) + ')'));
    if (node.frame >= 0) tip.appendChild(el('div', '', 'self ' + share(node.self) + ' (' + duration(node.self) + ')'));
    if (compare) {
      tip.appendChild(el('div', '', 'total per trace: ' + compare.baselineName + ' ' + msText(baselineMsOf(node)) + ', ' + compare.currentName + ' ' + msText(msOf(node))));
      tip.appendChild(el('div', '', 'self per trace ' + signed(changeOf(node))));
    }
    tip.hidden = false;
    var x = Math.min(event.clientX + 12, window.innerWidth - tip.offsetWidth - 4);
    var y = event.clientY + 16 + tip.offsetHeight > window.innerHeight ? event.clientY - tip.offsetHeight - 8 : event.clientY + 16;
    tip.style.left = Math.max(0, x) + 'px';
    tip.style.top = Math.max(0, y) + 'px';
  }

  function setUpFlame() {
    if (!data.busy) {
      flame.textContent = 'No samples were taken while JavaScript ran.';
      reset.hidden = true;
      return;
    }
    flame.appendChild(svg);
    svg.addEventListener('mousemove', function (event) {
      var node = boxNode(event);
      if (node) showTip(node, event);
      else tip.hidden = true;
    });
    svg.addEventListener('mouseleave', function () { tip.hidden = true; });
    svg.addEventListener('click', function (event) {
      var node = boxNode(event);
      if (node) zoom(node);
    });
    reset.addEventListener('click', function () { zoom(topDown); });
    document.addEventListener('keydown', function (event) { if (event.key === 'Escape') zoom(topDown); });
    window.addEventListener('resize', drawFlame);
    drawFlame();
  }

  // Call trees: one flat list of rows per tree, each indented by its depth; opening a row inserts its
  // children's rows after it, closing removes its rows. Nested elements would be simpler, but a
  // recursive parser's 1,500 open levels, each nesting elements, crashed Chromium's tab.
  function row(node, depth) {
    var line = el('div', 'row');
    line.appendChild(el('span', 'num', share(node.total)));
    line.appendChild(el('span', 'num', share(node.self)));
    var fn = el('span', 'fn', nameOf(node));
    fn.style.paddingLeft = depth * 1.2 + 'em';
    fn.appendChild(el('span', 'where', whereOf(node)));
    line.appendChild(fn);
    line.title = nameOf(node) + ' ' + whereOf(node) + ': total ' + duration(node.total) + ', self ' + duration(node.self);
    line.setAttribute('role', 'treeitem');
    line.setAttribute('aria-level', String(depth + 1));
    if (node.children.length) {
      line.setAttribute('aria-expanded', 'false');
      line.tabIndex = 0; // opened and closed from the keyboard too, as the <details> rows were
    }
    return line;
  }

  // Top-down, paths that hold at least this share of the time start open, down to this depth.
  var OPEN_SHARE = 0.2;
  var OPEN_DEPTH = 64;
  // Rows are made ROWS at a time, the rest behind a "… n more" button: a trace of 300,000 functions
  // has as many bottom-up roots, and making them all did not finish in a minute.
  var ROWS = 200;

  // What each row shows: its node and depth, and the elements it put after it (its children's rows
  // and a "more" button), whose own rows follow each of them.
  var rowState = new WeakMap();

  function showChildren(state, after) {
    var children = state.node.children;
    var made = [];
    for (var end = Math.min(children.length, state.count + ROWS); state.count < end; state.count++) {
      var line = row(children[state.count], state.depth + 1);
      rowState.set(line, { node: children[state.count], depth: state.depth + 1, hot: state.hot, count: 0, shown: [] });
      after.after(line);
      after = line;
      state.shown.push(line);
      made.push(line);
    }
    if (state.count < children.length) {
      var more = el('button', 'more', '\u2026 ' + (children.length - state.count) + ' more');
      more.type = 'button';
      more.style.marginLeft = (state.depth + 1) * 1.2 + 'em';
      more.addEventListener('click', function () {
        state.shown.splice(state.shown.indexOf(more), 1);
        var before = more.previousElementSibling;
        more.remove();
        showChildren(state, before);
      });
      after.after(more);
      state.shown.push(more);
    }
    made.forEach(function (line) {
      var s = rowState.get(line);
      if (s.hot && s.depth < OPEN_DEPTH && s.node.total >= OPEN_SHARE * data.busy) open(line);
    });
  }

  function open(line) {
    var state = rowState.get(line);
    if (!state.node.children.length || line.getAttribute('aria-expanded') === 'true') return;
    line.setAttribute('aria-expanded', 'true');
    showChildren(state, line);
  }

  function close(line) {
    var state = rowState.get(line);
    line.setAttribute('aria-expanded', 'false');
    var work = state.shown;
    state.shown = [];
    state.count = 0;
    while (work.length) {
      var shown = work.pop();
      var below = rowState.get(shown);
      if (below) Array.prototype.push.apply(work, below.shown);
      shown.remove();
    }
  }

  function fillTree(id, root, openHot) {
    var tree = document.getElementById(id);
    tree.setAttribute('role', 'tree');
    var heading = el('div', 'row heading');
    heading.appendChild(el('span', 'num', 'total'));
    heading.appendChild(el('span', 'num', 'self'));
    heading.appendChild(el('span', '', 'function'));
    tree.appendChild(heading);
    function toggle(event) {
      var line = event.target.closest && event.target.closest('.row[aria-expanded]');
      if (!line) return false;
      if (line.getAttribute('aria-expanded') === 'true') close(line);
      else open(line);
      return true;
    }
    tree.addEventListener('click', toggle);
    tree.addEventListener('keydown', function (event) {
      if ((event.key === 'Enter' || event.key === ' ') && toggle(event)) event.preventDefault();
    });
    showChildren({ node: root, depth: -1, hot: openHot, count: 0, shown: [] }, heading);
  }

  function showComparison() {
    var section = document.getElementById('compare');
    if (!compare) return;
    section.hidden = false;
    // The samples are slices of the merged time, not a trace's: say what the two sides took per trace instead.
    document.getElementById('summary').textContent = 'Busy time per trace: ' + compare.baselineName + ' ' + msText(baselineMsOf(topDown)) +
      ', ' + compare.currentName + ' ' + msText(msOf(topDown)) + ' (' + signed(msOf(topDown) - baselineMsOf(topDown)) + '). Shares are of ' + compare.currentName + "'s busy time.";
    document.getElementById('compare-legend').textContent = 'Each box is as wide as its time in ' + compare.currentName +
      ', red where its self time per trace is more than in ' + compare.baselineName + ', blue where less; the deepest colour is the largest change (' +
      signed(maxChange) + '). Paths that ran only in ' + compare.baselineName + ' have no box.';
    var table = el('table');
    var head = el('tr');
    [compare.baselineName + ' ms', compare.currentName + ' ms', 'change', 'noise', '', 'function', 'file'].forEach(function (text, i) {
      head.appendChild(el('th', i >= 5 ? 'name' : '', text));
    });
    table.appendChild(head);
    compare.functions.forEach(function (f) {
      var tr = el('tr', f[6] ? 'changed' : '');
      [msText(f[2]), msText(f[3]), signed(f[4]), '\u00b1' + msText(f[5]), f[6] ? 'changed' : ''].forEach(function (text) { tr.appendChild(el('td', '', text)); });
      tr.appendChild(el('td', 'name', f[0]));
      tr.appendChild(el('td', 'name', f[1]));
      table.appendChild(tr);
    });
    document.getElementById('compare-functions').appendChild(table);
  }

  showSummary();
  showComparison();
  setUpFlame();
  fillTree('top-down', topDown, true);
  fillTree('bottom-up', bottomUp, false);
})();
`;

export const BODY = `<h1 id="title"></h1>
<p id="summary"></p>
<dl id="meta"></dl>
<section id="compare" hidden>
<h2>Functions</h2>
<p class="hint">Self time per trace in each side, the change and its noise (the standard error of the change between traces); "changed": larger than the noise allows.</p>
<div id="compare-functions"></div>
<p class="hint" id="compare-legend"></p>
</section>
<h2>Flame graph</h2>
<p class="hint">Callers above callees; a box is as wide as its total time. Hover for details; click a box to zoom in, an ancestor to zoom out. <button id="reset" type="button">Reset zoom</button></p>
<div id="flame"></div>
<h2>Top-down call tree</h2>
<p class="hint">From the outermost frames in; total is the time under a node, self the time in it. Paths with at least 20% of the time start open, to 64 levels.</p>
<div class="tree" id="top-down"></div>
<h2>Bottom-up call tree</h2>
<p class="hint">From the functions where the time was spent out to their callers; a caller's total is the time its callee spent when called from there.</p>
<div class="tree" id="bottom-up"></div>
<div id="tip" hidden></div>`;
