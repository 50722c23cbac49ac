// Skiff's web console: one plain script, no framework, no build step.
//
// Why a bundled vanilla script: the page is compiled into the broker binary
// (tools/embed_assets.py), so it must be small and must build with nothing
// but the C++ toolchain and Python: no npm, no bundler, no node_modules at
// build time, nothing fetched from a CDN at run time (the console works on a
// machine with no internet, and what it runs is exactly what was reviewed).
// A few hundred lines of DOM code cover the views below; a framework would
// be larger than the whole console and would need its own update cycle.
//
// It talks only to the broker's JSON API (docs/console-api.md). Views are
// chosen by the URL's hash: #/overview, #/topics, #/topic/NAME,
// #/messages/NAME, #/groups, #/group/ID, #/schemas, #/schema/SUBJECT,
// #/clients. Every element a test
// needs has a data-testid, so tests do not depend on the layout.
'use strict';

(function () {
  const state = {
    writeEnabled: false,
    timers: [],            // intervals of the current view, cleared on navigation
    topicTotals: null,     // {time, byName} of the previous /api/topics, for rates
    stats: null,           // previous /api/stats, for the live charts
    series: { t: [], bin: [], bout: [], pp50: [], pp99: [], fp50: [], fp99: [] },
    statsTimer: null,
    view: 0,               // bumped on navigation: late answers of old views are dropped
  };
  const CHART_POINTS = 90; // 3 minutes at one poll every 2 s

  // ---- DOM helpers ----------------------------------------------------

  // h('td', {testid: 'x', class: 'num', onclick: f}, 'text', child, ...)
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'testid') el.dataset.testid = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'value') el.value = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      // Through the CSSOM: the broker's Content-Security-Policy refuses style attributes.
      else if (k === 'style') Object.assign(el.style, v);
      else el.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : String(c));
    }
    return el;
  }
  const main = () => document.getElementById('main');
  const num = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US'));
  function bytes(n) {
    if (n === null || n === undefined) return '—';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    let v = Number(n);
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i === 0 ? v.toFixed(0) : v.toFixed(1)) + ' ' + units[i];
  }
  function duration(ms) {
    let s = Math.floor(ms / 1000);
    const d = Math.floor(s / 86400); s %= 86400;
    const hr = Math.floor(s / 3600); s %= 3600;
    const m = Math.floor(s / 60); s %= 60;
    return (d ? d + 'd ' : '') + (d || hr ? hr + 'h ' : '') + m + 'm ' + s + 's';
  }
  const time = (ms) => (ms === null || ms === undefined || ms < 0 ? '—' : new Date(ms).toISOString());
  const enc = encodeURIComponent;
  // A write control: only there when the console may change the broker.
  const writable = (el) => (state.writeEnabled ? el : null);
  function table(testid, headers, rows) {
    return h('table', { testid },
      h('thead', {}, h('tr', {}, headers.map((x) => h('th', { class: /^(size|messages|lag|offset|rate|partition|members|committed|high|log start|last stable|leader|port|log size|usable|total|used)/i.test(x) ? 'num' : null }, x)))),
      h('tbody', {}, rows));
  }

  // ---- API --------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, body, text) {
      const what = body && body.error ? body.error + (body.message ? ': ' + body.message : '') : text || 'HTTP ' + status;
      super(what);
      this.status = status;
      this.body = body;
    }
  }

  async function api(method, path, body) {
    const opts = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    const r = await fetch(path, opts);
    const text = await r.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
    if (!r.ok) throw new ApiError(r.status, data, text.slice(0, 300));
    return data;
  }
  const get = (path) => api('GET', path);
  const post = (path, body) => api('POST', path, body);

  function showError(e) {
    const box = document.getElementById('error');
    if (!e) { box.hidden = true; box.textContent = ''; return; }
    box.hidden = false;
    box.textContent = e instanceof ApiError ? `Error ${e.status}: ${e.message}` : String(e.message || e);
  }
  // Runs an action of a button, showing its error (and a success note in `note`).
  async function act(button, fn, note) {
    if (button) button.disabled = true;
    try {
      const msg = await fn();
      showError(null);
      if (note && msg) { note.textContent = msg; note.className = 'ok'; }
      return true;
    } catch (e) {
      showError(e);
      if (note) { note.textContent = e.message; note.className = 'error-inline'; }
      return false;
    } finally {
      if (button) button.disabled = false;
    }
  }
  // A refresh that only shows errors; stops updating when the view changed.
  function every(ms, fn) {
    const view = state.view;
    const run = async () => {
      if (view !== state.view) return;
      try { await fn(); } catch (e) { if (view === state.view) showError(e); }
    };
    state.timers.push(setInterval(run, ms));
    return run();
  }
  // A confirmation step in `where`: "text [Confirm] [Cancel]".
  function confirmStep(where, testid, text, onConfirm) {
    where.replaceChildren(h('div', { class: 'panel confirm', testid },
      h('span', {}, text),
      h('button', { class: 'danger', testid: testid + '-yes', onclick: async (ev) => {
        if (await act(ev.target, onConfirm)) where.replaceChildren();
      } }, 'Confirm'),
      h('button', { class: 'secondary', testid: testid + '-no', onclick: () => where.replaceChildren() }, 'Cancel')));
  }
  // "k=v" lines -> {k: v}
  function parseConfigs(text) {
    const out = {};
    for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
      const i = line.indexOf('=');
      if (i <= 0) throw new Error(`config "${line}": expected name=value`);
      out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
    return out;
  }

  // ---- bytes: base64 -> text, pretty JSON or hex ---------------------------

  function b64bytes(b64) {
    const s = atob(b64);
    const a = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
    return a;
  }
  function render(b64, format) {
    if (b64 === null || b64 === undefined) return h('span', { class: 'muted' }, 'null');
    const a = b64bytes(b64);
    if (format === 'hex') {
      return h('pre', {}, Array.from(a, (b) => b.toString(16).padStart(2, '0')).join(' '));
    }
    const text = new TextDecoder('utf-8').decode(a);
    if (format === 'json') {
      try { return h('pre', {}, JSON.stringify(JSON.parse(text), null, 2)); } catch (e) { /* not JSON: as text */ }
    }
    return h('pre', {}, text);
  }

  // A key or value framed with a Schema Registry id: the broker's decoding
  // (`schema`: {id, type, type_name?, json | error}) unless hex is asked for.
  function renderCell(b64, schema, format) {
    if (!schema || format === 'hex') return render(b64, format);
    const badge = h('div', { class: 'schema-badge', testid: 'msg-schema' },
      `${schema.type} · id ${schema.id}`, schema.type_name ? ' · ' + schema.type_name : '');
    if (schema.error !== undefined) {
      return h('div', {}, badge, h('div', { class: 'error-inline', testid: 'msg-decode-error' }, schema.error), render(b64, 'hex'));
    }
    return h('div', {}, badge, h('pre', { testid: 'msg-decoded' }, JSON.stringify(schema.json, null, format === 'json' ? 2 : 0)));
  }

  // ---- overview + live charts ---------------------------------------------

  async function viewOverview() {
    const view = state.view;
    const o = await get('/api/overview');
    if (view !== state.view) return;  // navigated away meanwhile
    const root = h('div', {},
      h('h1', {}, 'Overview'),
      h('dl', { class: 'kv', testid: 'overview' },
        h('dt', {}, 'Broker id'), h('dd', { testid: 'broker-id' }, o.broker_id),
        h('dt', {}, 'Cluster id'), h('dd', {}, o.cluster_id),
        h('dt', {}, 'Version'), h('dd', { testid: 'broker-version' }, o.version),
        h('dt', {}, 'Uptime'), h('dd', { testid: 'uptime' }, duration(o.uptime_ms)),
        h('dt', {}, 'Console'), h('dd', {}, o.write_enabled ? 'read-write' : 'read-only', ', auth: ', o.auth),
        h('dt', {}, 'HTTP'), h('dd', {}, (o.http_listeners || []).join(', '))),
      h('h2', {}, 'Live'), chartsPanel(),
      h('h2', {}, 'Listeners'),
      table('listeners', ['Name', 'Security protocol', 'Host', 'Port'],
        (o.listeners || []).map((l) => h('tr', {}, h('td', {}, l.name), h('td', {}, l.security_protocol),
          h('td', {}, l.host), h('td', { class: 'num' }, l.port)))),
      h('h2', {}, 'Log directories'),
      table('log-dirs', ['Path', 'Log size', 'Usable', 'Total', 'Used', 'Error'],
        (o.log_dirs || []).map((d) => h('tr', {}, h('td', {}, d.path), h('td', { class: 'num' }, bytes(d.log_bytes)),
          h('td', { class: 'num' }, bytes(d.usable_bytes)), h('td', { class: 'num' }, bytes(d.total_bytes)),
          h('td', { class: 'num' }, d.total_bytes ? (100 * (1 - d.usable_bytes / d.total_bytes)).toFixed(1) + ' %' : '—'),
          h('td', {}, d.error || '')))),
      h('h2', {}, 'Broker configuration'),
      configFilter(),
      table('broker-configs', ['Name', 'Value', 'Source'],
        (o.configs || []).map((c) => h('tr', { testid: 'broker-config-row', dataset: { name: c.name, source: c.source } },
          h('td', {}, c.name),
          h('td', {}, c.sensitive ? h('span', { class: 'muted' }, '(sensitive)') : c.value === null ? h('span', { class: 'muted' }, 'null') : c.value),
          h('td', { testid: 'config-source' }, c.source)))));
    main().replaceChildren(root);
    drawCharts();
  }

  // Narrows the broker's config table (some 150 rows) by name, or to the
  // values not at their default.
  function configFilter() {
    const text = h('input', { testid: 'config-filter', placeholder: 'filter by name' });
    const changed = h('input', { type: 'checkbox', testid: 'config-non-default' });
    const apply = () => {
      const q = text.value.trim().toLowerCase();
      for (const tr of document.querySelectorAll('[data-testid=broker-config-row]')) {
        tr.hidden = (q && !tr.dataset.name.toLowerCase().includes(q)) ||
          (changed.checked && tr.dataset.source === 'DEFAULT_CONFIG');
      }
    };
    text.addEventListener('input', apply);
    changed.addEventListener('change', apply);
    return h('div', { class: 'panel' }, h('label', {}, 'Filter', text),
      h('label', { class: 'inline' }, h('span', {}, changed, ' only values not at their default')));
  }

  function chartsPanel() {
    const chart = (id, title, legend) => h('div', { class: 'chart' },
      h('div', {}, h('strong', {}, title), ' ', h('span', { class: 'muted', testid: id + '-now' }, '')),
      h('canvas', { id, testid: id, width: 640, height: 180 }),
      h('div', { class: 'legend' }, legend.map(([name, color]) => h('span', {}, h('i', { style: { background: color } }), name))));
    return h('div', { class: 'charts' },
      chart('chart-bytes', 'Bytes per second', [['in', '#1f6feb'], ['out', '#f79009']]),
      chart('chart-latency', 'Request latency (ms)',
        [['produce p50', '#12b76a'], ['produce p99', '#067647'], ['fetch p50', '#9e77ed'], ['fetch p99', '#6941c6']]));
  }

  // The q-quantile of the requests counted between two polls, from the
  // difference of cumulative (Prometheus-style "le") bucket counts,
  // interpolated linearly in the bucket as Prometheus' histogram_quantile.
  function quantile(q, le, now, before) {
    if (!now || !le) return null;
    let counts = now.map((c, i) => c - ((before && before[i]) || 0));
    // Tolerate per-bucket (non-cumulative) counts: accumulate them.
    if (now.some((c, i) => i > 0 && c < now[i - 1])) {
      let acc = 0;
      counts = counts.map((c) => (acc += c));
    }
    const total = counts[counts.length - 1];
    if (!(total > 0)) return null;
    const rank = q * total;
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] >= rank) {
        const upper = Number(le[i]);
        const lower = i === 0 ? 0 : Number(le[i - 1]);
        if (!isFinite(upper)) return lower;  // in +Inf: the highest finite bound
        const inBucket = counts[i] - (i === 0 ? 0 : counts[i - 1]);
        const below = i === 0 ? 0 : counts[i - 1];
        return inBucket > 0 ? lower + (upper - lower) * (rank - below) / inBucket : upper;
      }
    }
    return null;
  }

  async function pollStats() {
    let s;
    try { s = await get('/api/stats'); } catch (e) { return; }  // the charts skip a failed poll
    const p = state.stats;
    state.stats = s;
    if (!p || s.time_ms <= p.time_ms) return;
    const dt = (s.time_ms - p.time_ms) / 1000;
    const lat = (api, q) => {
      const a = (s.latency || {})[api];
      const b = (p.latency || {})[api];
      return a ? quantile(q, a.le_ms, a.counts, b && b.counts) : null;
    };
    const ser = state.series;
    const push = (k, v) => { ser[k].push(v); if (ser[k].length > CHART_POINTS) ser[k].shift(); };
    push('t', s.time_ms);
    push('bin', Math.max(0, (s.bytes_in_total - p.bytes_in_total) / dt));
    push('bout', Math.max(0, (s.bytes_out_total - p.bytes_out_total) / dt));
    push('pp50', lat('Produce', 0.5));
    push('pp99', lat('Produce', 0.99));
    push('fp50', lat('Fetch', 0.5));
    push('fp99', lat('Fetch', 0.99));
    drawCharts();
  }

  function drawCharts() {
    const ser = state.series;
    const last = (k) => ser[k][ser[k].length - 1];
    const fmt = (v) => (v === null || v === undefined ? '—' : v < 10 ? v.toFixed(2) : v.toFixed(0));
    const bnow = document.querySelector('[data-testid=chart-bytes-now]');
    if (!bnow) return;  // not on the overview
    bnow.textContent = ser.t.length ? `in ${bytes(last('bin'))}/s, out ${bytes(last('bout'))}/s` : 'waiting for two polls…';
    document.querySelector('[data-testid=chart-latency-now]').textContent = ser.t.length
      ? `produce p50 ${fmt(last('pp50'))} p99 ${fmt(last('pp99'))}, fetch p50 ${fmt(last('fp50'))} p99 ${fmt(last('fp99'))}` : '';
    drawLines(document.getElementById('chart-bytes'), [[ser.bin, '#1f6feb'], [ser.bout, '#f79009']], bytes);
    drawLines(document.getElementById('chart-latency'),
      [[ser.pp50, '#12b76a'], [ser.pp99, '#067647'], [ser.fp50, '#9e77ed'], [ser.fp99, '#6941c6']], (v) => fmt(v) + ' ms');
  }

  // Lines of up to CHART_POINTS values each (null: a gap) on a canvas, with
  // the scale's top and a zero line.
  function drawLines(canvas, lines, label) {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 640;
    const ht = canvas.clientHeight || 180;
    canvas.width = w * dpr;
    canvas.height = ht * dpr;
    const g = canvas.getContext('2d');
    g.scale(dpr, dpr);
    g.clearRect(0, 0, w, ht);
    const padL = 70; const padT = 10; const padB = 16;
    let max = 0;
    for (const [vals] of lines) for (const v of vals) if (v !== null && v > max) max = v;
    max = max > 0 ? max * 1.1 : 1;
    g.strokeStyle = '#d9dde5'; g.fillStyle = '#667085'; g.font = '11px system-ui, sans-serif';
    g.beginPath(); g.moveTo(padL, padT); g.lineTo(w, padT); g.moveTo(padL, ht - padB); g.lineTo(w, ht - padB); g.stroke();
    g.fillText(label(max), 2, padT + 8);
    g.fillText(label(0), 2, ht - padB);
    g.fillText(`last ${CHART_POINTS * 2} s`, padL, ht - 3);
    const x = (i) => padL + (w - padL) * i / (CHART_POINTS - 1);
    const y = (v) => padT + (ht - padT - padB) * (1 - v / max);
    for (const [vals, color] of lines) {
      const off = CHART_POINTS - vals.length;
      g.strokeStyle = color; g.lineWidth = 1.5; g.beginPath();
      let pen = false;
      vals.forEach((v, i) => {
        if (v === null) { pen = false; return; }
        if (pen) g.lineTo(x(off + i), y(v)); else g.moveTo(x(off + i), y(v));
        pen = true;
      });
      g.stroke();
      // A value between two gaps (e.g. one poll with requests) is a dot.
      g.fillStyle = color;
      vals.forEach((v, i) => {
        const alone = v !== null && (i === 0 || vals[i - 1] === null) && (i === vals.length - 1 || vals[i + 1] === null);
        if (alone) g.fillRect(x(off + i) - 2, y(v) - 2, 4, 4);
      });
    }
  }

  // ---- topics ------------------------------------------------------------

  async function viewTopics() {
    const note = h('span', { testid: 'create-topic-result' });
    const confirmArea = h('div', {});
    const tableArea = h('div', {});
    const name = h('input', { testid: 'create-topic-name', placeholder: 'topic name', required: true });
    const parts = h('input', { testid: 'create-topic-partitions', type: 'number', min: 1, value: '1' });
    const configs = h('textarea', { testid: 'create-topic-configs', placeholder: 'cleanup.policy=compact\nretention.ms=86400000' });
    const form = writable(h('form', { testid: 'create-topic-form', onsubmit: (ev) => {
      ev.preventDefault();
      act(ev.submitter, async () => {
        const body = { name: name.value.trim(), partitions: Number(parts.value), replication_factor: 1,
          configs: parseConfigs(configs.value) };
        const r = await post('/api/topics/create', body);
        name.value = ''; configs.value = '';
        await refresh();
        return `created ${r.name}`;
      }, note);
    } },
    h('label', {}, 'Name', name), h('label', {}, 'Partitions', parts), h('label', {}, 'Configs (name=value lines)', configs),
    h('button', { type: 'submit', testid: 'create-topic-submit' }, 'Create topic'), note));
    const onDelete = (topic) => confirmStep(confirmArea, 'delete-topic-confirm', `Delete topic "${topic}" and all its messages?`,
      async () => { await post('/api/topics/delete', { name: topic }); await refresh(); });

    async function refresh() {
      const r = await get('/api/topics');
      const now = performance.now();
      const prev = state.topicTotals;
      const byName = {};
      for (const t of r.topics) byName[t.name] = t;
      const rate = (t) => {
        const p = prev && prev.byName[t.name];
        if (!p || now <= prev.time) return '—';
        const s = (now - prev.time) / 1000;
        return `${num(Math.max(0, (t.messages_in_total - p.messages_in_total) / s).toFixed(1))} msg/s, ` +
          `${bytes(Math.max(0, (t.bytes_in_total - p.bytes_in_total) / s))}/s`;
      };
      const rows = r.topics.sort((a, b) => a.name.localeCompare(b.name)).map((t) =>
        h('tr', { testid: 'topic-row', dataset: { topic: t.name } },
          h('td', {}, h('a', { href: '#/topic/' + enc(t.name), testid: 'topic-link' }, t.name), t.internal ? h('span', { class: 'muted' }, ' (internal)') : null),
          h('td', { class: 'num' }, t.partitions),
          h('td', { class: 'num' }, bytes(t.size_bytes)),
          h('td', { class: 'num', testid: 'topic-messages' }, num(t.messages)),
          h('td', { class: 'num', testid: 'topic-rate' }, rate(t)),
          h('td', {}, h('a', { href: '#/messages/' + enc(t.name), testid: 'topic-messages-link' }, 'messages'), ' ',
            writable(h('button', { class: 'secondary', testid: 'delete-topic', onclick: () => onDelete(t.name) }, 'Delete')))));
      state.topicTotals = { time: now, byName };
      tableArea.replaceChildren(
        h('p', { class: 'muted', testid: 'topic-count' }, `${r.topics.length} topics`),
        table('topics-table', ['Topic', 'Partitions', 'Size', 'Messages', 'Rate (in)', ''], rows));
      performance.mark('skiff:topics-rendered', { detail: r.topics.length });
    }
    main().replaceChildren(h('div', {}, h('h1', {}, 'Topics'), form, confirmArea, tableArea));
    await every(5000, refresh);
  }

  async function viewTopic(name) {
    const confirmArea = h('div', {});
    const body = h('div', {});
    const newName = h('input', { testid: 'config-new-name', placeholder: 'config name' });
    const newValue = h('input', { testid: 'config-new-value', placeholder: 'value' });
    const note = h('span', { testid: 'topic-config-result' });
    const alter = (btn, set, del) => act(btn, async () => {
      await post('/api/topic/configs', { name, set, delete: del });
      await refresh();
      return 'saved';
    }, note);
    const addForm = writable(h('form', { testid: 'config-set-form', onsubmit: (ev) => {
      ev.preventDefault();
      alter(ev.submitter, { [newName.value.trim()]: newValue.value }, []);
    } }, h('label', {}, 'Config', newName), h('label', {}, 'Value', newValue),
    h('button', { type: 'submit', testid: 'config-set-submit' }, 'Set'), note));

    // A tiered topic (remote.storage.enable) shows what is local and what is
    // in remote storage: offsets below "Local start" are read from the store.
    function partitionsTable(t) {
      const tiered = t.configs.some((c) => c.name === 'remote.storage.enable' && c.value === 'true');
      const cols = ['Partition', 'Leader', 'Log start'].concat(tiered ? ['Local start', 'Remote up to'] : [],
        ['High watermark', 'Last stable', 'Messages', tiered ? 'Local size' : 'Size']);
      return table('partitions-table', cols,
        t.partitions.map((p) => h('tr', { testid: 'partition-row', dataset: { partition: p.partition } },
          h('td', { class: 'num' }, p.partition), h('td', { class: 'num' }, p.leader),
          h('td', { class: 'num', testid: 'log-start-offset' }, num(p.log_start_offset)),
          tiered ? h('td', { class: 'num', testid: 'local-start-offset' }, num(p.local_log_start_offset)) : null,
          tiered ? h('td', { class: 'num', testid: 'remote-end-offset' },
            p.remote_end_offset < 0 ? '—' : num(p.remote_end_offset)) : null,
          h('td', { class: 'num', testid: 'high-watermark' }, num(p.high_watermark)),
          h('td', { class: 'num' }, num(p.last_stable_offset)),
          h('td', { class: 'num' }, num(p.high_watermark - p.log_start_offset)),
          h('td', { class: 'num' }, bytes(p.size_bytes)))));
    }

    async function refresh() {
      const t = await get('/api/topic?name=' + enc(name));
      const configRow = (c) => {
        const input = h('input', { value: c.sensitive ? '' : c.value === null ? '' : c.value, testid: 'config-value-input', size: 28 });
        const editable = state.writeEnabled && !c.read_only;
        return h('tr', { testid: 'topic-config-row', dataset: { name: c.name } },
          h('td', {}, c.name),
          h('td', { testid: 'config-value' }, editable ? input : c.sensitive ? '(sensitive)' : c.value),
          h('td', { testid: 'config-source' }, c.source),
          h('td', {}, editable ? [
            h('button', { class: 'secondary', testid: 'config-save', onclick: (ev) => alter(ev.target, { [c.name]: input.value }, []) }, 'Save'), ' ',
            c.source === 'DYNAMIC_TOPIC_CONFIG'
              ? h('button', { class: 'secondary', testid: 'config-delete', onclick: (ev) => alter(ev.target, {}, [c.name]) }, 'Reset to default') : null,
          ] : null));
      };
      body.replaceChildren(
        h('p', {}, 'Topic id ', h('code', {}, t.topic_id || '—'), t.internal ? ' (internal)' : '', ' · ',
          h('a', { href: '#/messages/' + enc(name), testid: 'topic-browse-messages' }, 'browse messages')),
        h('h2', {}, 'Partitions'),
        partitionsTable(t),
        h('h2', {}, 'Configuration'),
        table('topic-configs', ['Name', 'Value', 'Source', ''], t.configs.map(configRow)));
    }
    main().replaceChildren(h('div', {},
      h('h1', { testid: 'topic-name' }, 'Topic ', name),
      writable(h('button', { class: 'danger', testid: 'delete-topic', onclick: () =>
        confirmStep(confirmArea, 'delete-topic-confirm', `Delete topic "${name}" and all its messages?`,
          async () => { await post('/api/topics/delete', { name }); location.hash = '#/topics'; }) }, 'Delete topic')),
      confirmArea, body, addForm));
    await refresh();
  }

  // ---- messages ------------------------------------------------------------

  async function viewMessages(topic) {
    const view = state.view;
    const t = await get('/api/topic?name=' + enc(topic));
    if (view !== state.view) return;  // navigated away meanwhile
    let format = 'text';
    let last = null;
    const partition = h('select', { testid: 'msg-partition' }, h('option', { value: '' }, 'all'),
      t.partitions.map((p) => h('option', { value: String(p.partition) }, String(p.partition))));
    const order = h('select', { testid: 'msg-order' }, h('option', { value: 'newest' }, 'newest first'), h('option', { value: 'oldest' }, 'oldest first'));
    const from = h('select', { testid: 'msg-from' }, h('option', { value: '' }, 'end / start'),
      h('option', { value: 'offset' }, 'offset'), h('option', { value: 'timestamp' }, 'timestamp'));
    const fromValue = h('input', { testid: 'msg-from-value', placeholder: 'offset, or ms / 2026-01-31T12:00:00Z' });
    const limit = h('input', { testid: 'msg-limit', type: 'number', min: 1, max: 500, value: '50' });
    const key = h('input', { testid: 'msg-key', placeholder: 'exact key (text)' });
    const results = h('div', { testid: 'msg-results' });
    const toggle = h('span', { class: 'toggle', testid: 'msg-format' });
    const setFormat = (f) => { format = f; drawToggle(); if (last) drawMessages(last); };
    const drawToggle = () => toggle.replaceChildren(...['text', 'json', 'hex'].map((f) =>
      h('button', { type: 'button', class: f === format ? 'on' : null, testid: 'msg-format-' + f, onclick: () => setFormat(f) }, f)));
    drawToggle();

    function drawMessages(r) {
      results.replaceChildren(
        h('p', { class: 'muted', testid: 'msg-summary' }, `${r.messages.length} messages`, r.scanned !== undefined ? `, ${num(r.scanned)} scanned` : ''),
        table('messages-table', ['Partition', 'Offset', 'Timestamp', 'Key', 'Value', 'Headers'],
          r.messages.map((m) => h('tr', { testid: 'msg-row', dataset: { partition: m.partition, offset: m.offset } },
            h('td', { class: 'num' }, m.partition), h('td', { class: 'num', testid: 'msg-offset' }, m.offset),
            h('td', { title: m.timestamp_type }, time(m.timestamp)),
            h('td', { testid: 'msg-key-cell' }, renderCell(m.key_b64, m.key_schema, format)),
            h('td', { testid: 'msg-value-cell' }, renderCell(m.value_b64, m.value_schema, format)),
            h('td', { testid: 'msg-headers-cell' }, (m.headers || []).map((x) =>
              h('div', { class: 'header' }, h('code', {}, x.key), ': ', render(x.value_b64, format))))))));
    }
    async function load() {
      const q = ['topic=' + enc(topic), 'order=' + order.value, 'limit=' + enc(limit.value || '50')];
      if (partition.value !== '') q.push('partition=' + partition.value);
      const v = fromValue.value.trim();
      if (from.value === 'offset' && v) q.push('offset=' + enc(v));
      if (from.value === 'timestamp' && v) {
        const ms = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
        if (isNaN(ms)) throw new Error(`timestamp "${v}": milliseconds or an ISO date`);
        q.push('timestamp=' + ms);
      }
      if (key.value !== '') q.push('key=' + enc(key.value));
      last = await get('/api/messages?' + q.join('&'));
      drawMessages(last);
    }
    const browse = h('form', { testid: 'msg-browse-form', onsubmit: (ev) => { ev.preventDefault(); act(ev.submitter, load); } },
      h('label', {}, 'Partition', partition), h('label', {}, 'Order', order), h('label', {}, 'From', from),
      h('label', {}, 'Offset / timestamp', fromValue), h('label', {}, 'Limit', limit), h('label', {}, 'Key', key),
      h('button', { type: 'submit', testid: 'msg-load' }, 'Load'), h('label', {}, 'Show as', toggle));

    const pKey = h('input', { testid: 'produce-key', placeholder: 'key (empty: null)' });
    const pValue = h('textarea', { testid: 'produce-value', placeholder: 'value' });
    const pHeaders = h('textarea', { testid: 'produce-headers', placeholder: 'name: value (one per line)' });
    const pPart = h('select', { testid: 'produce-partition' }, h('option', { value: '-1' }, 'by key (default)'),
      t.partitions.map((p) => h('option', { value: String(p.partition) }, String(p.partition))));
    const pNote = h('span', { testid: 'produce-result' });
    const produce = writable(h('form', { testid: 'produce-form', onsubmit: (ev) => {
      ev.preventDefault();
      act(ev.submitter, async () => {
        const headers = pHeaders.value.split('\n').filter((l) => l.trim()).map((l) => {
          const i = l.indexOf(':');
          return i < 0 ? { key: l.trim(), value: null } : { key: l.slice(0, i).trim(), value: l.slice(i + 1).trim() };
        });
        const r = await post('/api/messages/produce', { topic, partition: Number(pPart.value),
          key: pKey.value === '' ? null : pKey.value, value: pValue.value, headers });
        return `produced to partition ${r.partition} at offset ${r.offset}`;
      }, pNote);
    } }, h('label', {}, 'Key', pKey), h('label', {}, 'Value', pValue), h('label', {}, 'Headers', pHeaders),
    h('label', {}, 'Partition', pPart), h('button', { type: 'submit', testid: 'produce-submit' }, 'Produce'), pNote));

    main().replaceChildren(h('div', {},
      h('h1', {}, 'Messages of ', h('a', { href: '#/topic/' + enc(topic) }, topic)),
      browse, results, writable(h('h2', {}, 'Produce a message')), produce));
    await load();
  }

  // ---- consumer groups ------------------------------------------------------

  async function viewGroups() {
    const area = h('div', {});
    main().replaceChildren(h('div', {}, h('h1', {}, 'Consumer groups'), area));
    await every(2000, async () => {
      const r = await get('/api/groups');
      area.replaceChildren(
        h('p', { class: 'muted' }, `${r.groups.length} groups`),
        table('groups-table', ['Group', 'State', 'Type', 'Protocol type', 'Members', 'Lag'],
          r.groups.sort((a, b) => a.group_id.localeCompare(b.group_id)).map((g) =>
            h('tr', { testid: 'group-row', dataset: { group: g.group_id } },
              h('td', {}, h('a', { href: '#/group/' + enc(g.group_id), testid: 'group-link' }, g.group_id)),
              h('td', { testid: 'group-state' }, g.state), h('td', {}, g.group_type), h('td', {}, g.protocol_type),
              h('td', { class: 'num' }, g.members), h('td', { class: 'num', testid: 'group-lag' }, num(g.lag))))));
    });
  }

  async function viewGroup(id) {
    let groupState = null;
    let topics = [];
    const info = h('div', {});
    const confirmArea = h('div', {});
    const to = h('select', { testid: 'reset-to' }, ['earliest', 'latest', 'timestamp'].map((x) => h('option', { value: x }, x)));
    const ts = h('input', { testid: 'reset-timestamp', placeholder: 'ms or 2026-01-31T12:00:00Z' });
    const topicSel = h('select', { testid: 'reset-topic' }, h('option', { value: '' }, 'every topic'));
    const note = h('span', { testid: 'reset-result' });
    const resetBtn = h('button', { type: 'submit', testid: 'reset-submit' }, 'Reset offsets');
    const hint = h('span', { class: 'muted', testid: 'reset-hint' });
    const reset = writable(h('form', { testid: 'reset-form', onsubmit: (ev) => {
      ev.preventDefault();
      act(resetBtn, async () => {
        const body = { id, to: to.value };
        if (topicSel.value) body.topic = topicSel.value;
        if (to.value === 'timestamp') {
          const v = ts.value.trim();
          body.timestamp = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
          if (isNaN(body.timestamp)) throw new Error(`timestamp "${v}": milliseconds or an ISO date`);
        }
        const r = await post('/api/group/reset', body);
        await refresh();
        return 'reset: ' + r.offsets.map((o) => `${o.topic}-${o.partition} → ${o.offset}`).join(', ');
      }, note);
    } }, h('label', {}, 'To', to), h('label', {}, 'Timestamp', ts), h('label', {}, 'Topic', topicSel), resetBtn, hint, note));

    async function refresh() {
      const g = await get('/api/group?id=' + enc(id));
      groupState = g.state;
      const lags = g.offsets.filter((o) => o.lag !== null && o.lag !== undefined);
      const total = lags.length ? lags.reduce((s, o) => s + o.lag, 0) : null;
      const newTopics = [...new Set(g.offsets.map((o) => o.topic))].sort();
      if (newTopics.join('\n') !== topics.join('\n')) {
        topics = newTopics;
        const keep = topicSel.value;
        topicSel.replaceChildren(h('option', { value: '' }, 'every topic'), topics.map((x) => h('option', { value: x }, x)));
        topicSel.value = topics.includes(keep) ? keep : '';
      }
      const share = g.group_type === 'share';
      const streams = g.group_type === 'streams';
      resetBtn.disabled = share || groupState !== 'Empty';
      hint.textContent = share ? 'a share group: kafka-share-groups --reset-offsets'
        : streams && groupState !== 'Empty'
          ? 'a streams group: only when it is Empty (stop the application), or kafka-streams-groups --reset-offsets'
          : streams ? 'a streams group: moves its input topics only'
            : groupState === 'Empty' ? '' : 'only when the group is Empty (stop its consumers first)';
      info.replaceChildren(
        h('dl', { class: 'kv' },
          h('dt', {}, 'State'), h('dd', { testid: 'group-state' }, g.state),
          h('dt', {}, 'Type'), h('dd', {}, [g.group_type, g.protocol_type, g.protocol].filter(Boolean).join(' / ')),
          h('dt', {}, 'Total lag'), h('dd', { testid: 'group-total-lag' }, num(total)),
          streams && [h('dt', {}, 'Group epoch'), h('dd', { testid: 'group-epoch' }, g.group_epoch),
            h('dt', {}, 'Assignment epoch'), h('dd', { testid: 'assignment-epoch' }, g.assignment_epoch)]),
        ...(streams ? streamsGroup(g) : membersTable(g)),
        ...(share ? shareOffsets(g.offsets) : committedOffsets(g.offsets)));
    }
    function membersTable(g) {
      return [h('h2', {}, 'Members'),
        table('members-table', ['Member', 'Client id', 'Host', 'Assignments'],
          g.members.map((m) => h('tr', { testid: 'member-row' }, h('td', {}, m.member_id), h('td', {}, m.client_id),
            h('td', {}, m.host), h('td', {}, (m.assignments || []).map((a) => `${a.topic}-${a.partition}`).join(', ')))))];
    }
    // A share group (KIP-932): each share partition's start offset, the
    // records in flight (acquired or awaiting redelivery) and the lag.
    function shareOffsets(offsets) {
      return [h('h2', {}, 'Share-partition offsets'),
        table('share-offsets-table', ['Topic', 'Partition', 'Start offset', 'In flight', 'Lag'],
          offsets.map((o) => h('tr', { testid: 'share-offset-row', dataset: { topic: o.topic, partition: o.partition } },
            h('td', {}, o.topic), h('td', { class: 'num' }, o.partition),
            h('td', { class: 'num', testid: 'share-start-offset' }, num(o.start_offset)),
            h('td', { class: 'num', testid: 'share-in-flight' }, num(o.in_flight)),
            h('td', { class: 'num', testid: 'share-lag' }, num(o.lag)))))];
    }
    function committedOffsets(offsets) {
      return [h('h2', {}, 'Committed offsets'),
        table('offsets-table', ['Topic', 'Partition', 'Committed', 'High watermark', 'Lag', 'Metadata'],
          offsets.map((o) => h('tr', { testid: 'offset-row', dataset: { topic: o.topic, partition: o.partition } },
            h('td', {}, o.topic), h('td', { class: 'num' }, o.partition),
            h('td', { class: 'num', testid: 'offset-committed' }, num(o.committed)),
            h('td', { class: 'num' }, num(o.high_watermark)),
            h('td', { class: 'num', testid: 'offset-lag' }, num(o.lag)), h('td', {}, o.metadata || ''))))];
    }
    const delBtn = writable(h('button', { class: 'danger', testid: 'delete-group', onclick: () =>
      confirmStep(confirmArea, 'delete-group-confirm', `Delete group "${id}" and its committed offsets?`,
        async () => { await post('/api/group/delete', { id }); location.hash = '#/groups'; }) }, 'Delete group'));
    main().replaceChildren(h('div', {}, h('h1', { testid: 'group-id' }, 'Group ', id), info,
      writable(h('h2', {}, 'Reset offsets')), reset, delBtn, confirmArea));
    await every(2000, refresh);
  }

  // ---- streams groups (KIP-1071) ----------------------------------------

  // A streams group's members with their tasks ("0_1": subtopology 0,
  // partition 1), its subtopologies' topics, and the processing graph the
  // application described (KIP-1331), drawn as an SVG per subtopology.
  function streamsGroup(g) {
    const tasks = (list) => (list || []).join(', ');
    const subs = (g.topology && g.topology.subtopologies) || [];
    const names = (list) => (list || []).join(', ');
    return [h('h2', {}, 'Members'),
      table('members-table', ['Member', 'Process', 'Client id', 'Host', 'User endpoint', 'Active tasks', 'Standby tasks', 'Warm-up tasks'],
        g.members.map((m) => h('tr', { testid: 'member-row', dataset: { member: m.member_id } },
          h('td', {}, m.member_id), h('td', {}, m.process_id), h('td', {}, m.client_id), h('td', {}, m.host),
          h('td', {}, m.user_endpoint || '—'), h('td', { testid: 'member-active-tasks' }, tasks(m.active_tasks)),
          h('td', { testid: 'member-standby-tasks' }, tasks(m.standby_tasks)),
          h('td', { testid: 'member-warmup-tasks' }, tasks(m.warmup_tasks))))),
      h('h2', {}, 'Subtopologies', g.topology ? ` (topology epoch ${g.topology.epoch})` : ''),
      table('subtopologies-table', ['Subtopology', 'Source topics', 'Repartition source topics', 'Repartition sink topics', 'Changelog topics'],
        subs.map((s) => h('tr', { testid: 'subtopology-row', dataset: { subtopology: s.subtopology_id } },
          h('td', {}, s.subtopology_id), h('td', { testid: 'subtopology-sources' }, names(s.source_topics)),
          h('td', {}, names(s.repartition_source_topics)), h('td', {}, names(s.repartition_sink_topics)),
          h('td', { testid: 'subtopology-changelogs' }, names(s.changelog_topics))))),
      h('h2', {}, 'Processing graph'), processingGraph(g)];
  }

  function processingGraph(g) {
    const d = g.topology_description;
    if (g.topology_description_status !== 'AVAILABLE' || !d) {
      return h('p', { class: 'muted', testid: 'topology-missing' },
        g.topology_description_status === 'NOT_STORED'
          ? 'The application has not sent its topology description yet (KIP-1331).'
          : `No topology description (${g.topology_description_status}).`);
    }
    return h('div', { testid: 'topology-graph' },
      d.subtopologies.map((s) => h('div', { class: 'subtopology', testid: 'graph-subtopology', dataset: { subtopology: s.subtopology_id } },
        h('h3', {}, 'Sub-topology ', s.subtopology_id), subtopologySvg(s.nodes))),
      d.global_stores.length ? h('div', { class: 'subtopology', testid: 'graph-global-stores' },
        h('h3', {}, 'Global stores'), d.global_stores.map((gs) => subtopologySvg([gs.source, gs.processor]))) : null);
  }

  const SVG = 'http://www.w3.org/2000/svg';
  function svgEl(tag, attrs, ...children) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
    for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
    return el;
  }
  const clip = (t, n) => (t.length > n ? t.slice(0, n - 1) + '…' : t);
  let svgCount = 0;

  // Nodes in columns by their depth from the sources (a node's column is one
  // past its deepest predecessor's), top to bottom in the order sent; an
  // arrow from each node to each successor.
  function subtopologySvg(nodes) {
    const byName = new Map(nodes.map((n) => [n.name, n]));
    const depth = new Map();
    const visit = (n, seen) => {
      if (depth.has(n.name)) return depth.get(n.name);
      let d = 0;
      for (const p of nodes) {
        if (p.successors.includes(n.name) && !seen.has(p.name)) d = Math.max(d, visit(p, new Set([...seen, n.name])) + 1);
      }
      depth.set(n.name, d);
      return d;
    };
    nodes.forEach((n) => visit(n, new Set([n.name])));
    const lines = (n) => [...n.source_topics.map((t) => '← ' + t), ...(n.sink_topic ? ['→ ' + n.sink_topic] : []),
      ...n.stores.map((st) => '▤ ' + st)];
    const W = 220, GAP = 44, VGAP = 16, LINE = 14;
    const boxH = (n) => 38 + LINE * lines(n).length;
    const colY = [];
    const pos = new Map();
    for (const n of nodes) {
      const c = depth.get(n.name);
      const y = colY[c] || 10;
      pos.set(n.name, { x: 10 + c * (W + GAP), y, h: boxH(n) });
      colY[c] = y + boxH(n) + VGAP;
    }
    const width = 20 + (colY.length) * (W + GAP) - GAP;
    const height = Math.max(...colY.map((y) => y || 0), 40);
    const marker = 'arrow' + (++svgCount);
    const colors = { SOURCE: '#dbeafe', PROCESSOR: '#f2f4f7', SINK: '#dcfae6' };
    const edges = [];
    for (const n of nodes) {
      const a = pos.get(n.name);
      for (const succ of n.successors) {
        const b = pos.get(succ);
        if (!b || !byName.has(succ)) continue;
        const x1 = a.x + W, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
        const path = x2 > x1 ? `M${x1},${y1} C${x1 + GAP / 2},${y1} ${x2 - GAP / 2},${y2} ${x2 - 2},${y2}`
          : `M${a.x + W / 2},${a.y + a.h} L${b.x + W / 2},${b.y - 2}`;
        edges.push(svgEl('path', { d: path, fill: 'none', stroke: '#667085', 'stroke-width': 1.4, 'marker-end': `url(#${marker})`,
          'data-testid': 'graph-edge', 'data-from': n.name, 'data-to': succ }));
      }
    }
    const boxes = nodes.map((n) => {
      const p = pos.get(n.name);
      return svgEl('g', { 'data-testid': 'graph-node', 'data-name': n.name, 'data-type': n.type },
        svgEl('title', {}, [n.name, n.type, ...lines(n)].join('\n')),
        svgEl('rect', { x: p.x, y: p.y, width: W, height: p.h, rx: 5, fill: colors[n.type] || '#fff', stroke: '#98a2b3' }),
        svgEl('text', { x: p.x + 8, y: p.y + 15, 'font-size': 10, fill: '#667085' }, n.type),
        svgEl('text', { x: p.x + 8, y: p.y + 30, 'font-size': 11, 'font-weight': 600, fill: '#1d2330' }, clip(n.name, 30)),
        lines(n).map((t, i) => svgEl('text', { x: p.x + 8, y: p.y + 45 + i * LINE, 'font-size': 10.5, fill: '#344054' }, clip(t, 36))));
    });
    return svgEl('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'graph', role: 'img' },
      svgEl('defs', {}, svgEl('marker', { id: marker, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        svgEl('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#667085' }))),
      edges, boxes);
  }

  // ---- schemas (the built-in Schema Registry) ----------------------------------

  // A schema's text laid out for reading and diffing: Avro and JSON Schema
  // are stored as one line of JSON, so they are indented; .proto text as is.
  function schemaText(v) {
    if (v.type === 'PROTOBUF') return v.schema;
    try { return JSON.stringify(JSON.parse(v.schema), null, 2); } catch (e) { return v.schema; }
  }

  // Line diff of a and b (longest common subsequence): [{op: ' '|'-'|'+', line}].
  function lineDiff(a, b) {
    const x = a.split('\n');
    const y = b.split('\n');
    if (x.length * y.length > 4e6) return [{ op: '!', line: 'too large to compare line by line' }];
    const n = x.length;
    const m = y.length;
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    const out = [];
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x[i] === y[j]) { out.push({ op: ' ', line: x[i] }); i++; j++; }
      else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) out.push({ op: '+', line: y[j++] });
      else out.push({ op: '-', line: x[i++] });
    }
    return out;
  }

  async function viewSchemas() {
    const area = h('div', {});
    main().replaceChildren(h('div', {}, h('h1', {}, 'Schemas'), area));
    await every(5000, async () => {
      const r = await get('/api/schemas');
      area.replaceChildren(
        h('p', { class: 'muted', testid: 'schemas-summary' }, `${num(r.total)} subjects`,
          r.total > r.subjects.length ? ` (the first ${num(r.subjects.length)} shown)` : ''),
        table('schemas-table', ['Subject', 'Type', 'Versions', 'Latest version', 'Latest id', 'Compatibility'],
          r.subjects.map((s) => h('tr', { testid: 'schema-row', dataset: { subject: s.subject } },
            h('td', {}, h('a', { href: '#/schema/' + enc(s.subject), testid: 'schema-link' }, s.subject)),
            h('td', { testid: 'schema-type' }, s.type), h('td', { class: 'num' }, s.versions),
            h('td', { class: 'num' }, s.latest_version), h('td', { class: 'num' }, s.latest_id),
            h('td', { testid: 'schema-compatibility' }, s.compatibility)))));
    });
  }

  async function viewSchema(subject) {
    const view = state.view;
    const s = await get('/api/schema?subject=' + enc(subject));
    if (view !== state.view) return;
    const versions = s.versions;
    const latest = versions[versions.length - 1];
    const options = (selected) => versions.map((v) =>
      h('option', { value: String(v.version), selected: v.version === selected }, `version ${v.version} (id ${v.id})`));
    const shown = h('select', { testid: 'schema-version' }, options(latest.version));
    const text = h('div', { testid: 'schema-text-area' });
    const drawText = () => {
      const v = versions.find((x) => String(x.version) === shown.value);
      text.replaceChildren(h('div', {},
        h('p', { class: 'muted' }, `${v.type}, id ${v.id}`),
        v.references.length ? h('p', { testid: 'schema-references' }, 'References: ', v.references.map((r, i) =>
          [i ? ', ' : '', h('a', { href: '#/schema/' + enc(r.subject) }, `${r.name} → ${r.subject} v${r.version}`)])) : null,
        h('pre', { class: 'schema', testid: 'schema-text' }, schemaText(v))));
    };
    shown.addEventListener('change', drawText);
    drawText();

    const older = h('select', { testid: 'diff-from' }, options(versions.length > 1 ? versions[versions.length - 2].version : latest.version));
    const newer = h('select', { testid: 'diff-to' }, options(latest.version));
    const diff = h('pre', { class: 'diff', testid: 'schema-diff' });
    const drawDiff = () => {
      const a = versions.find((x) => String(x.version) === older.value);
      const b = versions.find((x) => String(x.version) === newer.value);
      diff.replaceChildren(...lineDiff(schemaText(a), schemaText(b)).map((d) =>
        h('span', { class: d.op === '+' ? 'add' : d.op === '-' ? 'del' : null, testid: d.op === '+' ? 'diff-add' : d.op === '-' ? 'diff-del' : null },
          d.op + ' ' + d.line + '\n')));
    };
    older.addEventListener('change', drawDiff);
    newer.addEventListener('change', drawDiff);
    drawDiff();

    main().replaceChildren(h('div', {},
      h('h1', {}, 'Schema subject ', h('code', {}, subject)),
      h('dl', { class: 'kv' },
        h('dt', {}, 'Compatibility'), h('dd', { testid: 'subject-compatibility' }, s.compatibility,
          s.compatibility_own ? '' : h('span', { class: 'muted' }, ' (inherited)')),
        h('dt', {}, 'Versions'), h('dd', { testid: 'subject-versions' }, String(versions.length))),
      h('h2', {}, 'Schema'), h('form', { onsubmit: (ev) => ev.preventDefault() }, h('label', {}, 'Version', shown)), text,
      h('h2', {}, 'Diff between versions'),
      h('form', { onsubmit: (ev) => ev.preventDefault() }, h('label', {}, 'From', older), h('label', {}, 'To', newer)), diff));
  }

  // ---- clients (KIP-714) -------------------------------------------------------

  async function viewClients() {
    const area = h('div', {});
    main().replaceChildren(h('div', {}, h('h1', {}, 'Clients'),
      h('p', { class: 'muted' }, 'Clients that pushed metrics (KIP-714 client telemetry).'), area));
    await every(5000, async () => {
      const r = await get('/api/clients');
      area.replaceChildren(table('clients-table', ['Client id', 'Instance', 'Software', 'Peer', 'Metrics'],
        r.clients.map((c) => h('tr', { testid: 'client-row' },
          h('td', {}, c.client_id), h('td', {}, h('code', {}, c.client_instance_id)),
          h('td', {}, `${c.software_name || ''} ${c.software_version || ''}`), h('td', {}, c.peer),
          h('td', {}, h('details', {}, h('summary', {}, `${(c.metrics || []).length} metrics`),
            h('table', {}, (c.metrics || []).map((m) => h('tr', {}, h('td', {}, m.name), h('td', { class: 'num' }, m.value))))))))));
    });
  }

  // ---- router ------------------------------------------------------------------

  const routes = [
    [/^#\/overview$/, viewOverview, 'overview'],
    [/^#\/topics$/, viewTopics, 'topics'],
    [/^#\/topic\/(.+)$/, viewTopic, 'topics'],
    [/^#\/messages\/(.+)$/, viewMessages, 'topics'],
    [/^#\/groups$/, viewGroups, 'groups'],
    [/^#\/group\/(.+)$/, viewGroup, 'groups'],
    [/^#\/schemas$/, viewSchemas, 'schemas'],
    [/^#\/schema\/(.+)$/, viewSchema, 'schemas'],
    [/^#\/clients$/, viewClients, 'clients'],
  ];

  async function route() {
    for (const t of state.timers) clearInterval(t);
    state.timers = [];
    state.view++;
    const view = state.view;
    const hash = location.hash || '#/overview';
    showError(null);
    for (const [re, fn, nav] of routes) {
      const m = re.exec(hash);
      if (!m) continue;
      for (const a of document.querySelectorAll('header nav a')) a.classList.toggle('active', a.dataset.testid === 'nav-' + nav);
      main().replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
      try {
        await fn(...m.slice(1).map(decodeURIComponent));
      } catch (e) {
        if (view === state.view) {
          showError(e);
          main().replaceChildren(h('p', { class: 'muted', testid: 'view-failed' }, 'Could not load this view.'));
        }
      }
      return;
    }
    location.hash = '#/overview';
  }

  async function start() {
    try {
      const o = await get('/api/overview');
      state.writeEnabled = !!o.write_enabled;
    } catch (e) {
      showError(e);
    }
    const mode = document.getElementById('mode');
    mode.textContent = state.writeEnabled ? 'read-write' : 'read-only';
    mode.className = 'mode ' + (state.writeEnabled ? 'rw' : 'ro');
    document.body.dataset.writeEnabled = String(state.writeEnabled);
    window.addEventListener('hashchange', route);
    state.statsTimer = setInterval(pollStats, 2000);
    pollStats();
    await route();
    document.body.dataset.ready = 'true';
  }
  start();
})();
