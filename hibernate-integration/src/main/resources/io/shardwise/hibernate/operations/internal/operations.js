'use strict';
// Fetches /api/state every few seconds and redraws; no framework, no build step.
const REFRESH_MS = 3000;
let state = null;

function colourOfShard(index, count) {
  return `hsl(${Math.round((index * 360) / Math.max(count, 1) + 200) % 360}, 60%, 52%)`;
}

function colourOfTraffic(count, max) {
  if (!max || !count) return '#eef0f3';
  const heat = Math.log1p(count) / Math.log1p(max);
  return `hsl(${Math.round(50 - heat * 50)}, 90%, ${Math.round(88 - heat * 45)}%)`;
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text == null ? '' : String(text);
  if (className) td.className = className;
  return td;
}

function fill(tableId, rows, emptyText, columns) {
  const body = document.querySelector(`#${tableId} tbody`);
  body.replaceChildren();
  if (rows == null || rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell(rows == null ? 'not available' : emptyText, 'empty');
    td.colSpan = document.querySelectorAll(`#${tableId} th`).length;
    tr.appendChild(td);
    body.appendChild(tr);
    return;
  }
  for (const row of rows) body.appendChild(columns(row));
}

function percent(share) {
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

function drawGrid() {
  const grid = document.getElementById('grid');
  const count = state.bucketCount;
  if (grid.children.length !== count) {
    grid.replaceChildren();
    for (let b = 0; b < count; b++) {
      const div = document.createElement('div');
      div.className = 'cell';
      div.dataset.bucket = b;
      grid.appendChild(div);
    }
  }
  const byTraffic = document.querySelector('input[name=colour]:checked').value === 'traffic' && state.traffic;
  const max = state.traffic ? Math.max(...state.traffic) : 0;
  for (let b = 0; b < count; b++) {
    const div = grid.children[b];
    const owner = state.owners[b];
    const shard = state.shards[owner];
    const sessions = state.traffic ? state.traffic[b] : null;
    div.dataset.shard = shard ? shard.id : '';
    div.style.background = byTraffic ? colourOfTraffic(sessions, max) : colourOfShard(owner, state.shards.length);
    div.title = `bucket ${b} on ${shard ? shard.id : '?'}` + (sessions == null ? '' : `: ${sessions} sessions`);
  }
}

function draw() {
  document.getElementById('unit').textContent = state.unit;
  document.getElementById('map-version').textContent = `version ${state.mapVersion}, ${state.bucketCount} buckets`;
  drawGrid();
  const total = state.shards.reduce((sum, s) => sum + s.sessions, 0);
  fill('shards', state.shards, 'no shards', (s) => {
    const tr = document.createElement('tr');
    const swatch = cell('', 'swatch');
    const span = document.createElement('span');
    span.style.background = colourOfShard(state.shards.indexOf(s), state.shards.length);
    swatch.appendChild(span);
    tr.append(swatch, cell(s.id), cell(s.state), cell(s.buckets), cell(s.sessions), cell(total ? percent(s.sessions / total) : '-'));
    return tr;
  });
  fill('nodes', state.nodes, 'no nodes', (n) => {
    const tr = document.createElement('tr');
    tr.dataset.role = n.role;
    if (!n.healthy) tr.className = 'unhealthy';
    const lag = n.role === 'replica' ? (n.lagBytes < 0 ? 'unknown' : `${n.lagMillis} ms, ${n.lagBytes} B`) : '-';
    tr.append(cell(n.shard), cell(n.role, 'role'), cell(n.node), cell(n.state), cell(lag), cell(n.detail));
    return tr;
  });
  const hot = state.hotspots;
  document.getElementById('sample').textContent = hot
    ? `${hot.total} routed sessions, one key sampled in ${hot.sampleEvery}` : 'hotspot counting is off';
  fill('hot-keys', hot ? hot.keys : null, 'no key sampled yet', (k) => {
    const tr = document.createElement('tr');
    tr.append(cell(k.shard), cell(k.key, 'key'), cell(k.bucket), cell(k.sessions), cell(percent(k.share)));
    return tr;
  });
  const findings = document.getElementById('findings');
  findings.replaceChildren();
  for (const f of hot ? hot.findings : []) {
    const li = document.createElement('li');
    li.className = 'finding';
    li.textContent = f.advice;
    findings.appendChild(li);
  }
  const warnings = document.getElementById('key-warnings');
  warnings.replaceChildren();
  for (const w of state.keyWarnings) {
    const li = document.createElement('li');
    li.className = 'warning';
    li.textContent = w.message;
    warnings.appendChild(li);
  }
  const inDoubt = state.inDoubt.concat(state.inDoubtErrors.map((e) => ({ shard: e.shard, gid: `unreachable: ${e.error}` })));
  fill('in-doubt', inDoubt, 'none', (t) => {
    const tr = document.createElement('tr');
    tr.append(cell(t.shard), cell(t.gid), cell(t.prepared), cell(t.owner));
    return tr;
  });
  fill('sagas', state.sagas, 'none', (s) => {
    const tr = document.createElement('tr');
    tr.append(cell(s.id), cell(s.name), cell(s.state), cell(s.nextStep), cell(s.updatedAt), cell(s.lastError));
    return tr;
  });
  fill('resharding', state.resharding, 'no moves recorded', (w) => {
    const tr = document.createElement('tr');
    tr.append(cell(w.id), cell(w.source), cell(w.target), cell(w.buckets), cell(w.phase), cell(w.updatedAt), cell(w.lastError));
    return tr;
  });
  fill('routers', state.routers, 'no router with a lease registered', (r) => {
    const tr = document.createElement('tr');
    tr.append(cell(r.id), cell(r.unit), cell(r.version), cell(r.seenMillisAgo), cell(r.leaseMillis), cell(r.lease));
    return tr;
  });
}

async function refresh() {
  const status = document.getElementById('status');
  try {
    const response = await fetch('api/state', { cache: 'no-store' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    state = await response.json();
    draw();
    status.textContent = `updated ${new Date(state.generatedAt).toLocaleTimeString()}; control database: ${state.control}`;
    status.className = '';
  } catch (e) {
    status.textContent = `refresh failed (${e.message}); showing the last state`;
    status.className = 'stale';
  } finally {
    setTimeout(refresh, REFRESH_MS);
  }
}

document.querySelectorAll('input[name=colour]').forEach((input) => input.addEventListener('change', () => state && drawGrid()));
refresh();
