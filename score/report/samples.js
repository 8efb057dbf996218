(function () {
  'use strict';
  /* The sample browser: every request of the report, filtered, searched and paged
     in the page itself. The data block is JSON; all text is set with textContent,
     never parsed as markup. */
  var block = document.getElementById('fbeval-samples');
  var root = document.getElementById('samples');
  if (!block || !root) return;
  performance.mark('samples-start');
  var D = JSON.parse(block.textContent);
  performance.mark('samples-parsed');
  var S = D.strings;
  var PAGE = 50;

  /* One entry per request: [row index, attempt index]. */
  var all = [];
  for (var i = 0; i < D.rows.length; i++) {
    var at = D.rows[i][4];
    for (var j = 0; j < at.length; j++) all.push([i, j]);
    if (at.length === 0) all.push([i, -1]);
  }

  /* printable writes control characters (but newline and tab), U+2028,
     U+2029, bidi embeddings, overrides and isolates and lone surrogates as
     escapes, as the page's static text and fbeval's other human formats write
     them (contract.Printable): a model's text cannot reorder or hide what a
     reviewer reads. */
  var maybeUnprintable = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/;
  function hex(c, n) { var h = c.toString(16); while (h.length < n) h = '0' + h; return h; }
  function printable(s) {
    if (!maybeUnprintable.test(s)) return s;
    var out = '';
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        out += s.charAt(i) + s.charAt(i + 1); /* a pair: one character */
        i++;
      } else if ((c < 0x20 && c !== 10 && c !== 9) || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 ||
        (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || (c >= 0xd800 && c <= 0xdfff)) {
        out += c === 13 ? '\\r' : c < 0x80 ? '\\x' + hex(c, 2) : '\\u' + hex(c, 4);
      } else {
        out += s.charAt(i);
      }
    }
    return out;
  }

  /* cut is the first n UTF-16 units of s, one fewer where the n-th would
     split a surrogate pair (shown as the escape of a lone surrogate the
     model never wrote). */
  function cut(s, n) {
    var c = s.charCodeAt(n - 1);
    return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = printable(text);
    return e;
  }
  var lower = [];
  function out(a) { return a && a[1] >= 0 ? S[a[1]] : null; }
  function outLower(a) {
    if (!a || a[1] < 0) return '';
    if (lower[a[1]] === undefined) lower[a[1]] = S[a[1]].toLowerCase();
    return lower[a[1]];
  }
  function attemptOf(entry) {
    var r = D.rows[entry[0]];
    return entry[1] < 0 ? null : r[4][entry[1]];
  }
  function codesOf(a) {
    if (!a) return ['MISSING_RESPONSE'];
    var out = [];
    for (var k = 0; k < a[2].length; k++) {
      var c = D.codes[a[2][k][0]];
      if (out.indexOf(c) < 0) out.push(c);
    }
    return out;
  }
  function passed(a) { return !!a && a[2].length === 0; }

  var controls = {
    arm: root.querySelector('[name=arm]'),
    domain: root.querySelector('[name=domain]'),
    category: root.querySelector('[name=category]'),
    code: root.querySelector('[name=code]'),
    outcome: root.querySelector('[name=outcome]'),
    q: root.querySelector('[name=q]')
  };
  function fill(sel, values) {
    for (var k = 0; k < values.length; k++) {
      var o = el('option', '', values[k]);
      o.value = String(k);
      sel.appendChild(o);
    }
  }
  fill(controls.arm, D.arms);
  fill(controls.domain, D.domains);
  fill(controls.category, D.categories);
  fill(controls.code, D.codes);

  var shown = all;
  var page = 0;
  var count = root.querySelector('.sb-count');
  var body = root.querySelector('tbody');
  var pager = root.querySelector('.sb-pager');
  var detail = root.querySelector('.sb-detail');

  function matches(entry, f) {
    var r = D.rows[entry[0]];
    var c = D.cases[r[0]];
    var a = attemptOf(entry);
    if (f.arm >= 0 && r[1] !== f.arm) return false;
    if (f.domain >= 0 && c[1] !== f.domain) return false;
    if (f.category >= 0 && c[2] !== f.category) return false;
    if (f.outcome === 'pass' && !passed(a)) return false;
    if (f.outcome === 'fail' && passed(a)) return false;
    if (f.code >= 0) {
      if (!a) {
        if (D.codes[f.code] !== 'MISSING_RESPONSE') return false;
      } else {
        var hit = false;
        for (var k = 0; k < a[2].length; k++) if (a[2][k][0] === f.code) hit = true;
        if (!hit) return false;
      }
    }
    if (f.q) {
      var hay = c[0].toLowerCase();
      if (hay.indexOf(f.q) < 0 && outLower(a).indexOf(f.q) < 0) return false;
    }
    return true;
  }

  function apply() {
    var f = {
      arm: Number(controls.arm.value), domain: Number(controls.domain.value), category: Number(controls.category.value),
      code: Number(controls.code.value), outcome: controls.outcome.value, q: controls.q.value.trim().toLowerCase()
    };
    shown = [];
    for (var k = 0; k < all.length; k++) if (matches(all[k], f)) shown.push(all[k]);
    page = 0;
    render();
  }

  function render() {
    count.textContent = shown.length + ' of ' + all.length + ' requests';
    while (body.firstChild) body.removeChild(body.firstChild);
    var start = page * PAGE;
    for (var k = start; k < Math.min(shown.length, start + PAGE); k++) {
      var entry = shown[k];
      var r = D.rows[entry[0]];
      var c = D.cases[r[0]];
      var a = attemptOf(entry);
      var tr = el('tr');
      tr.tabIndex = 0;
      tr.dataset.i = String(k);
      var id = el('td', 'id');
      id.appendChild(el('code', '', c[0]));
      tr.appendChild(id);
      tr.appendChild(el('td', '', D.arms[r[1]]));
      tr.appendChild(el('td', 'n', String(r[2])));
      tr.appendChild(el('td', 'n', a ? String(a[0]) : '-'));
      tr.appendChild(el('td', '', D.domains[c[1]] + ' / ' + D.categories[c[2]]));
      tr.appendChild(el('td', passed(a) ? 'pass' : 'fail', passed(a) ? 'pass' : 'fail'));
      tr.appendChild(el('td', '', codesOf(a).join(', ')));
      var text = out(a);
      var cell = el('td', 'sb-out');
      if (text !== null) cell.textContent = printable(text.length > 90 ? cut(text, 90) + '\u2026' : text);
      tr.appendChild(cell);
      body.appendChild(tr);
    }
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    pager.querySelector('.sb-page').textContent = 'page ' + (page + 1) + ' of ' + pages;
    pager.querySelector('[data-go=prev]').disabled = page === 0;
    pager.querySelector('[data-go=next]').disabled = page + 1 >= pages;
  }

  /* spans maps every JSON Pointer in text to the [start, end) of its value; it
     throws on text that is not JSON. */
  function spans(text) {
    var out = {};
    var p = 0;
    function ws() { while (p < text.length && ' \t\n\r'.indexOf(text[p]) >= 0) p++; }
    function str() {
      var s = p;
      p++;
      while (p < text.length && text[p] !== '"') p += text[p] === '\\' ? 2 : 1;
      if (p >= text.length) throw new Error('unterminated string');
      p++;
      return JSON.parse(text.slice(s, p));
    }
    function esc(k) { return String(k).split('~').join('~0').split('/').join('~1'); }
    function value(path) {
      ws();
      var s = p;
      var ch = text[p];
      if (ch === '{') {
        p++; ws();
        if (text[p] === '}') p++;
        else for (;;) {
          ws();
          if (text[p] !== '"') throw new Error('key');
          var k = str(); ws();
          if (text[p] !== ':') throw new Error(':');
          p++;
          value(path + '/' + esc(k)); ws();
          if (text[p] === ',') { p++; continue; }
          if (text[p] === '}') { p++; break; }
          throw new Error('object');
        }
      } else if (ch === '[') {
        p++; ws();
        var n = 0;
        if (text[p] === ']') p++;
        else for (;;) {
          value(path + '/' + n++); ws();
          if (text[p] === ',') { p++; continue; }
          if (text[p] === ']') { p++; break; }
          throw new Error('array');
        }
      } else if (ch === '"') {
        str();
      } else {
        while (p < text.length && ',]} \t\n\r'.indexOf(text[p]) < 0) p++;
        if (p === s) throw new Error('value');
      }
      out[path] = [s, p];
    }
    value('');
    return out;
  }

  function outputView(text, errs) {
    var pre = el('pre', 'out');
    var at = null;
    try {
      var sp = spans(text);
      for (var k = 0; k < errs.length && !at; k++) {
        var ptr = S[errs[k][1]];
        if (ptr && sp[ptr]) at = sp[ptr];
      }
    } catch (e) { at = null; }
    if (!at) { pre.textContent = printable(text); return pre; }
    pre.appendChild(document.createTextNode(printable(text.slice(0, at[0]))));
    pre.appendChild(el('mark', '', text.slice(at[0], at[1])));
    pre.appendChild(document.createTextNode(printable(text.slice(at[1]))));
    return pre;
  }

  function pretty(s) {
    try { return JSON.stringify(JSON.parse(s), null, 2); } catch (e) { return s; }
  }

  function open(k) {
    var entry = shown[k];
    if (!entry) return;
    var r = D.rows[entry[0]];
    var c = D.cases[r[0]];
    while (detail.firstChild) detail.removeChild(detail.firstChild);
    var head = el('div', 'sb-head');
    head.appendChild(el('h3', '', c[0] + ' \u00b7 ' + D.arms[r[1]] + ' \u00b7 repeat ' + r[2]));
    var close = el('button', 'sb-close', 'close');
    close.type = 'button';
    close.addEventListener('click', function () { detail.hidden = true; });
    head.appendChild(close);
    detail.appendChild(head);
    detail.appendChild(el('p', 'legend', D.domains[c[1]] + ' / ' + D.categories[c[2]] + ' \u00b7 first pass ' +
      ((r[3] & 1) ? 'pass' : 'fail') + ' \u00b7 final ' + ((r[3] & 2) ? 'pass' : 'fail') +
      ((r[3] & 4) ? ' \u00b7 provider error' : '') + ((r[3] & 8) ? ' \u00b7 no response' : '')));
    var grid = el('div', 'sb-grid');
    var left = el('div');
    left.appendChild(el('h4', '', 'Prompt'));
    left.appendChild(el('pre', 'out txt', c[3] || '(not in this report)'));
    var right = el('div');
    right.appendChild(el('h4', '', 'Expected'));
    right.appendChild(el('pre', 'out', c[4] ? pretty(c[4]) : '(not in this report)'));
    grid.appendChild(left);
    grid.appendChild(right);
    detail.appendChild(grid);
    var at = r[4];
    if (at.length === 0) detail.appendChild(el('p', 'fail', 'No response was given for this request.'));
    for (var k2 = 0; k2 < at.length; k2++) {
      var a = at[k2];
      var sec = el('section', 'sb-attempt' + (entry[1] === k2 ? ' sb-this' : ''));
      sec.appendChild(el('h4', '', (a[0] === 1 ? 'Attempt 1 (first answer)' : 'Attempt ' + a[0] + ' (repair ' + (a[0] - 1) + ')') +
        ': ' + (passed(a) ? 'pass' : 'fail')));
      if (out(a) === null) sec.appendChild(el('p', 'legend', 'no output'));
      else sec.appendChild(outputView(out(a), a[2]));
      if (a[2].length) {
        var ul = el('ul', 'sb-errors');
        for (var e = 0; e < a[2].length; e++) {
          var li = el('li');
          li.appendChild(el('code', '', D.codes[a[2][e][0]]));
          if (S[a[2][e][1]]) li.appendChild(el('span', 'legend', ' at ' + S[a[2][e][1]]));
          li.appendChild(document.createTextNode(': ' + printable(S[a[2][e][2]])));
          ul.appendChild(li);
        }
        sec.appendChild(ul);
      }
      detail.appendChild(sec);
    }
    detail.hidden = false;
    detail.scrollIntoView({block: 'nearest'});
  }

  for (var name in controls) {
    controls[name].addEventListener(name === 'q' ? 'input' : 'change', apply);
  }
  pager.addEventListener('click', function (ev) {
    var go = ev.target.getAttribute && ev.target.getAttribute('data-go');
    if (go === 'prev' && page > 0) page--;
    else if (go === 'next' && (page + 1) * PAGE < shown.length) page++;
    else return;
    render();
  });
  body.addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr');
    if (tr) open(Number(tr.dataset.i));
  });
  body.addEventListener('keydown', function (ev) {
    var tr = ev.target.closest('tr');
    if (tr && (ev.key === 'Enter' || ev.key === ' ')) { ev.preventDefault(); open(Number(tr.dataset.i)); }
  });
  performance.mark('samples-indexed');
  root.hidden = false;
  var ns = document.getElementById('samples-noscript');
  if (ns) ns.hidden = true;
  render();
  performance.mark('samples-drawn');
})();
