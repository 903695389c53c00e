// logbook ui: the web view's one script, served by `logbook ui` itself. It
// reads the JSON API of the server it came from, with the token of its own
// address, and shows every string from a journal as text (never as markup).
'use strict';
(() => {
  const token = new URLSearchParams(location.search).get('token') || '';
  const withToken = (path) => `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
  const main = document.getElementById('main');
  const where = document.getElementById('where');

  /** An element; string and number children are text nodes, null and false are left out. */
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'style') for (const [p, x] of Object.entries(v)) el.style.setProperty(p, x);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    const add = (c) => {
      if (c === null || c === undefined || c === false) return;
      if (Array.isArray(c)) c.forEach(add);
      else if (c instanceof Node) el.append(c);
      else el.append(document.createTextNode(String(c)));
    };
    children.forEach(add);
    return el;
  }

  const runHref = (id) => withToken(`/runs/${encodeURIComponent(id)}`);
  const numbers = new Intl.NumberFormat('en-US');
  const count = (n) => numbers.format(Number(n));

  function formatDuration(ms) {
    const t = Math.max(0, ms);
    if (t < 1000) return `${Math.round(t)} ms`;
    if (t < 60000) return `${(t / 1000).toFixed(t < 10000 ? 2 : 1)} s`;
    const s = Math.round(t / 1000);
    if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
    const m = Math.round(s / 60);
    return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
  }

  function ago(iso) {
    const t = Date.parse(iso);
    if (Number.isNaN(t)) return iso;
    const s = Math.round((Date.now() - t) / 1000);
    if (s < 5) return 'just now';
    if (s < 90) return `${s} s ago`;
    if (s < 5400) return `${Math.round(s / 60)} min ago`;
    if (s < 129600) return `${Math.round(s / 3600)} h ago`;
    return new Date(t).toLocaleDateString();
  }

  /** A time from the journal, in the reader's own zone; as written when it is not one. */
  function when(iso) {
    const t = Date.parse(iso);
    return Number.isNaN(t) ? iso : h('span', { title: iso }, new Date(t).toLocaleString());
  }

  const status = (s) => h('span', { class: `status ${/^[a-z_]+$/.test(s) ? s : ''}` }, s);

  async function getJson(path) {
    const res = await fetch(withToken(path));
    const body = await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }));
    if (!res.ok) throw new Error(body.error || `${res.status}`);
    return body;
  }

  function failure(message) {
    main.replaceChildren(h('div', { class: 'banner bad' }, message));
  }

  // ---- the runs page ------------------------------------------------------

  /**
   * Rows of the runs table drawn with the filters and the count, more than a
   * screen holds; the others are added a batch at a time once that frame is
   * painted, so a long list shows its top as soon as that is laid out.
   */
  const FIRST_ROWS = 60;
  const MORE_ROWS = 300;

  function runsPage() {
    document.title = 'logbook runs';
    let runs = [];
    /** Counts the draws: rows still being added for an earlier one stop. */
    let drawn = 0;
    const query = h('input', { type: 'search', placeholder: 'filter by id, prompt or model', 'aria-label': 'filter', id: 'filter' });
    const statusSelect = h('select', { 'aria-label': 'status', id: 'status-filter' }, h('option', { value: '' }, 'every status'));
    const body = h('tbody');
    const shown = h('span', { class: 'muted', elementtiming: 'runs-listed' });
    const table = h(
      'table',
      { class: 'runs' },
      h('thead', {}, h('tr', {}, ['Run', 'Status', 'Model', 'Prompt', 'Tokens', 'Updated'].map((t, i) => h('th', { class: i >= 4 ? 'num' : null }, t)))),
      body,
    );
    const empty = h('div');
    main.replaceChildren(h('h1', {}, 'Runs'), h('div', { class: 'filters' }, query, statusSelect, shown), table, empty);

    function draw() {
      const statuses = [...new Set(runs.map((r) => r.status))].sort();
      const chosen = statusSelect.value;
      statusSelect.replaceChildren(h('option', { value: '' }, 'every status'), ...statuses.map((s) => h('option', { value: s, selected: s === chosen }, s)));
      const q = query.value.trim().toLowerCase();
      const rows = runs.filter(
        (r) => (chosen === '' || r.status === chosen) && (q === '' || [r.id, r.prompt, r.model].some((f) => f.toLowerCase().includes(q))),
      );
      shown.textContent = `${count(rows.length)} of ${count(runs.length)} runs`;
      empty.replaceChildren(
        ...(runs.length === 0
          ? [h('div', { class: 'banner' }, 'No runs in this store yet. Start one with ', h('code', {}, 'logbook run "your question"'), ' and it appears here.')]
          : rows.length === 0
            ? [h('div', { class: 'muted' }, 'No run matches the filter.')]
            : []),
      );
      const row = (r) =>
        h(
          'tr',
          { 'data-run': r.id },
          h(
            'td',
            {},
            h('a', { href: runHref(r.id), class: 'mono' }, r.id),
            r.earlier ? h('span', { class: 'earlier', title: 'earlier runs of this conversation: on its page' }, ` +${count(r.earlier)} earlier`) : null,
            r.here ? h('span', { class: 'here', title: 'started in this directory' }, ' · here') : null,
          ),
          h('td', {}, status(r.status)),
          h('td', { class: 'mono' }, r.model),
          h('td', { class: 'prompt' }, r.problem ? h('span', { class: 'bad' }, r.problem) : r.prompt || h('span', { class: 'muted' }, '(none)')),
          h('td', { class: 'num' }, r.counters ? `${count(r.counters.in_tokens)} in · ${count(r.counters.out_tokens)} out` : '—'),
          h('td', { class: 'num', title: r.updated }, ago(r.updated)),
        );
      const mine = ++drawn;
      // Only the first draw comes in batches: a redraw (a filter, a change) replaces the rows at once, leaving the page where it was.
      if (body.childElementCount > 0) {
        body.replaceChildren(...rows.map(row));
        return;
      }
      body.replaceChildren(...rows.slice(0, FIRST_ROWS).map(row));
      const more = (from) => {
        if (mine !== drawn || from >= rows.length) return;
        body.append(...rows.slice(from, from + MORE_ROWS).map(row));
        setTimeout(() => more(from + MORE_ROWS), 0);
      };
      // After the frame that paints the first rows.
      requestAnimationFrame(() => setTimeout(() => more(FIRST_ROWS), 0));
    }
    query.addEventListener('input', draw);
    statusSelect.addEventListener('change', draw);
    /** The listing last drawn, as JSON. */
    let told = '';
    getJson('/api/runs').then(
      (d) => {
        told = JSON.stringify(d);
        where.textContent = d.location;
        runs = d.runs;
        draw();
      },
      (err) => failure(err.message),
    );
    const events = new EventSource(withToken('/api/runs/events'));
    events.addEventListener('runs', (e) => {
      // The stream's first listing is most often the one the page just drew.
      if (e.data === told) return;
      told = e.data;
      const d = JSON.parse(e.data);
      where.textContent = d.location;
      runs = d.runs;
      draw();
    });
  }

  // ---- a run's timeline ---------------------------------------------------

  /** Long stretches where nothing ran (a run taken up again days later) are drawn short. */
  const LONG_GAP_MS = 30000;

  /** Where on the track a time falls (0 to 100), gaps drawn short. */
  function axis(entries, start, end) {
    const spans = entries.filter((e) => e.time).map((e) => e.time).sort((a, b) => a.start - b.start);
    const gaps = [];
    let reached = start;
    for (const s of spans) {
      if (s.start - reached > LONG_GAP_MS) gaps.push({ from: reached, to: s.start });
      reached = Math.max(reached, s.end);
    }
    if (end - reached > LONG_GAP_MS) gaps.push({ from: reached, to: end });
    const gapLength = gaps.reduce((n, g) => n + (g.to - g.from), 0);
    const real = Math.max(1, end - start - gapLength);
    const drawnGap = gaps.length === 0 ? 0 : real * 0.04;
    const total = real + drawnGap * gaps.length;
    return (t) => {
      let at = t - start;
      for (const g of gaps) {
        if (t >= g.to) at -= g.to - g.from - drawnGap;
        else if (t > g.from) at -= ((t - g.from) / (g.to - g.from)) * (g.to - g.from - drawnGap);
      }
      return Math.min(100, Math.max(0, (at / total) * 100));
    };
  }

  /** From the first time the entries hold to the last (a timeline part of a long run is drawn over its own span). */
  function span(entries) {
    let start;
    let end;
    const take = (t) => {
      if (t === undefined) return;
      start = start === undefined ? t : Math.min(start, t);
      end = end === undefined ? t : Math.max(end, t);
    };
    for (const e of entries) {
      if (e.time) {
        take(e.time.start);
        take(e.time.end);
      }
      if (e.kind === 'marker') take(e.at);
    }
    return { start, end };
  }

  function timelineNode(timeline) {
    const entries = timeline.entries;
    const flight = entries.find((e) => e.kind === 'inflight' && e.start !== undefined);
    const now = Date.now();
    const own = timeline.start === undefined && timeline.end === undefined ? span(entries) : timeline;
    const start = own.start ?? flight?.start ?? now;
    const end = Math.max(own.end ?? start, flight ? now : start, start + 1);
    const pos = axis(entries, start, end);
    const grid = h('div', { class: 'timeline', id: 'timeline' });
    const bar = (cls, from, to) => {
      const left = pos(from);
      return h('div', { class: 'track' }, h('div', { class: `bar ${cls}`, style: { left: `${left}%`, width: `${Math.max(0.3, pos(to) - left)}%` } }));
    };
    for (const e of entries) {
      const inherited = e.inherited ? ' inherited' : '';
      if (e.kind === 'marker') {
        const text = [e.label, e.at !== undefined ? ` · ${new Date(e.at).toLocaleTimeString()}` : '', e.message ? ` · ${e.message}` : ''].join('');
        grid.append(h('div', { class: `marker ${e.marker}`, 'data-seq': e.seq }, text));
      } else if (e.kind === 'inflight') {
        const label = e.what === 'tool' ? `${e.name} (running)` : e.what === 'input' ? 'waiting for input' : 'model call (answering)';
        const since = e.start ?? now;
        grid.append(
          h('div', { class: 'label' }, label),
          bar(`${e.what} inflight`, since, now),
          h('div', { class: 'took', 'data-since': since }, e.start !== undefined ? `${formatDuration(now - since)} so far` : 'running'),
          h('div', { class: 'tokens' }, ''),
        );
      } else {
        const label =
          e.kind === 'model' ? `model call ${e.turn}` : e.kind === 'tool' ? `${e.name}${e.withheld ? ` (${e.withheld.replace('_', ' ')})` : ''}` : 'operator\u2019s turn';
        const cls = `${e.kind}${e.kind === 'tool' && e.isError ? ' failed' : ''}`;
        const tokens =
          e.kind === 'model'
            ? `${count(e.inTokens)} in · ${count(e.outTokens)} out${e.cacheReadTokens ? ` · ${count(e.cacheReadTokens)} cached` : ''}`
            : e.kind === 'tool'
              ? e.callId
              : '';
        grid.append(
          h('div', { class: `label${inherited}`, title: label, 'data-seq': e.seq }, label),
          e.time ? bar(cls, e.time.start, e.time.end) : h('div', { class: `track${inherited}` }),
          h('div', { class: `took${inherited}` }, e.time ? formatDuration(e.time.end - e.time.start) : '—'),
          h('div', { class: `tokens${inherited} mono` }, tokens),
        );
        if (e.kind === 'tool' && e.children) grid.append(h('div', { class: 'nested' }, timelineNode(e.children)));
      }
    }
    if (entries.length === 0) grid.append(h('div', { class: 'muted' }, 'nothing has run yet'));
    return grid;
  }

  // ---- a run's transcript -------------------------------------------------

  const sideOf = (item) =>
    item.kind === 'prompt' || item.kind === 'user' ? 'user' : item.kind === 'pending' || item.kind === 'end' || item.kind === 'elided' ? 'marker' : 'assistant';

  function itemNode(item, key, running) {
    switch (item.kind) {
      case 'prompt':
      case 'user':
        return h('div', { class: `item ${item.kind}` }, h('div', { class: 'text' }, item.text));
      case 'text': {
        if (typeof item.html !== 'string') return h('div', { class: 'item' }, h('div', { class: 'text' }, item.text));
        // The model's Markdown, rendered by the server as the HTML export renders it: every piece of it escaped there.
        const md = h('div', { class: 'item md' });
        md.innerHTML = item.html;
        return md;
      }
      case 'thinking':
        return item.text === ''
          ? h('div', { class: 'item thinking muted' }, 'Thinking (redacted)')
          : h('details', { class: 'item thinking', 'data-key': key }, h('summary', {}, 'Thinking'), h('div', { class: 'text' }, item.text));
      case 'provider':
        return h('div', { class: 'item muted' }, 'Provider block ', h('code', {}, item.providerKind));
      case 'model':
        return h('div', { class: 'item muted' }, `Model call · ${formatDuration(item.took)}`);
      case 'call': {
        const note = item.note ? { awaiting: 'awaits approval', denied: 'denied by the operator', not_rerun: 'not re-run after an interruption', stopped: 'stopped by the operator' }[item.note] : item.answered ? '' : 'no result yet';
        return h(
          'div',
          { class: 'item call' },
          h('div', { class: 'head' }, 'Tool call ', h('code', { class: 'muted' }, item.id), item.took !== undefined ? h('span', { class: 'muted' }, ` · ${formatDuration(item.took)}`) : null),
          h('pre', {}, item.line || `» ${item.name} ${item.input}`),
          note ? h('div', { class: 'muted' }, `(${note})`) : null,
        );
      }
      case 'result': {
        const lines = item.output === '' ? 0 : item.output.replace(/\n$/, '').split('\n').length;
        const head = [item.isError ? 'Error result ' : 'Result ', h('code', { class: 'muted' }, item.id), lines ? h('span', { class: 'muted' }, ` · ${lines} line${lines === 1 ? '' : 's'}`) : null];
        const cls = `item result${item.isError ? ' failed' : ''}`;
        if (item.output === '') return h('div', { class: cls }, head, h('span', { class: 'muted' }, ' · no output'));
        return h('details', { class: cls, 'data-key': key }, h('summary', {}, head), h('pre', {}, item.output));
      }
      case 'pending':
        // While a writer holds the run, it is completing the turn now.
        return h('div', { class: 'marker' }, `In-flight turn: ${item.answered} of ${item.total} tool calls answered; ${running ? 'running' : 'a resume completes it first'}`);
      case 'end':
        return h('div', { class: 'marker' }, `Run ${item.reason}`, item.message ? h('pre', {}, item.message) : null);
      default:
        return h('div', { class: 'item muted' }, item.kind);
    }
  }

  /**
   * The nodes of one group of the transcript (the items of one message),
   * headed where the conversation changes sides; `flow` carries the side the
   * group before ended on, and is moved on.
   */
  function groupNode(group, flow, open, running) {
    const box = h('div', { class: 'group', 'data-at': group.at });
    group.items.forEach((item, i) => {
      const s = sideOf(item);
      if (s !== flow.side && s !== 'marker') box.append(h('div', { class: 'turn' }, item.kind === 'prompt' ? 'Prompt' : s === 'user' ? 'User' : flow.inFlight ? 'Assistant (in flight)' : 'Assistant'));
      if (item.kind === 'pending') flow.inFlight = true;
      flow.side = s;
      const key = `${group.at}:${i}:${item.kind}:${item.id || ''}`;
      const node = itemNode(item, key, running);
      if (open.has(key)) node.open = true;
      box.append(node);
    });
    return box;
  }

  // ---- a run's page -------------------------------------------------------

  /** Drops what `list` holds from key `from` on and adds `items` (a change the server sent: view-diff.ts). */
  function applyChange(list, keyOf, change) {
    const kept = list.filter((x) => keyOf(x) < change.from);
    return kept.concat(change.items);
  }

  /** How often a run's page asks again what it spent, at most, while the run changes. */
  const FACTS_MS = 2000;

  function runPage(id) {
    document.title = `logbook run ${id}`;
    const head = h('div');
    const approval = h('div');
    const continuation = h('div');
    const timelineMore = h('div');
    const timeline = h('div');
    const transcriptMore = h('div');
    const transcript = h('div', { class: 'transcript', id: 'transcript' });
    const gone = h('div');
    const streaming = h('div');
    const workspace = h('section', { class: 'workspace', id: 'workspace', hidden: true });
    main.replaceChildren(gone, head, approval, continuation, h('h2', {}, 'Timeline'), timelineMore, timeline, workspace, h('h2', {}, 'Transcript'), transcriptMore, transcript, streaming);
    const base = `/api/runs/${encodeURIComponent(id)}`;
    let awaitedCall = null;
    /** What the page holds: the run's head, this ui's facts and continuation, and the parts of the transcript and timeline it was sent. */
    let view = null;
    let facts = { answerable: false };
    let continued = null;
    let groups = [];
    let entries = [];
    /** Where the parts held start: the first message and the first record seq (earlier ones come on demand). */
    let messagesFrom = null;
    let recordsFrom = null;
    /** The answer streaming now, as the server last sent it (never journaled): shown until cleared or its record arrives. */
    let live = null;

    function drawLive() {
      if (live !== null && view !== null && view.lastSeq > live.after) live = null; // its record is here
      if (live === null) return streaming.replaceChildren();
      streaming.replaceChildren(
        h('section', { class: 'live', id: 'live' }, h('div', { class: 'live-mark' }, '\u2026 streaming, not yet journaled'), h('div', { class: 'text' }, live.text)),
      );
    }

    function drawApproval(v) {
      const call = v.awaiting && !(continued && continued.state === 'running') ? v.awaiting : null;
      const key = call ? call.callId : null;
      if (key === awaitedCall) return; // kept as it is, with a reason being typed
      awaitedCall = key;
      if (call === null) {
        approval.replaceChildren();
        return;
      }
      const reason = h('textarea', { placeholder: 'reason for a denial (the model reads it)', 'aria-label': 'reason', id: 'reason' });
      const said = h('div', { class: 'muted' });
      const answer = async (action) => {
        for (const b of buttons) b.disabled = true;
        said.textContent = action === 'approve' ? 'approving…' : 'denying…';
        const res = await fetch(`${base}/answer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-logbook-token': token },
          body: JSON.stringify({ callId: call.callId, action, ...(action === 'deny' && reason.value.trim() ? { reason: reason.value } : {}) }),
        }).catch((err) => ({ ok: false, json: async () => ({ error: err.message }) }));
        if (!res.ok) {
          const body = await res.json().catch(() => ({}));
          said.textContent = body.error || 'the answer was not taken';
          said.className = 'bad';
          for (const b of buttons) b.disabled = false;
        } else said.textContent = 'continuing the run in the ui process…';
      };
      const buttons = [
        h('button', { class: 'approve', id: 'approve', onclick: () => answer('approve') }, 'Approve'),
        h('button', { class: 'deny', id: 'deny', onclick: () => answer('deny') }, 'Deny'),
      ];
      approval.replaceChildren(
        h(
          'section',
          { class: 'panel approval', id: 'approval' },
          h('h2', {}, 'Awaits an approval'),
          h('div', {}, 'Call ', h('code', {}, call.callId), ' of ', h('code', {}, call.name)),
          call.resolved ? h('div', { class: 'muted' }, 'runs ', h('code', {}, call.resolved)) : null,
          h('pre', {}, call.input),
          facts.answerable
            ? [h('div', { class: 'actions' }, buttons[0], reason, buttons[1]), said]
            : h(
                'div',
                { class: 'muted' },
                'This ui was started without a config, so it cannot continue the run: start it with ',
                h('code', {}, 'logbook ui --config FILE'),
                ', or answer with ',
                h('code', {}, `logbook run --resume ${v.id} --approve ${call.callId}`),
                '.',
              ),
        ),
      );
    }

    /** What the run's page says beside its records (its spend, compactions and conversation), fetched when the run changed, at most every FACTS_MS. */
    let said = null;
    let asked = 0;
    let askedFor = '';
    function askFacts() {
      const version = `${view.lastSeq}:${view.status}`;
      if (version === askedFor) return;
      const wait = Math.max(0, asked + FACTS_MS - Date.now());
      setTimeout(() => {
        const now = `${view.lastSeq}:${view.status}`;
        if (now === askedFor) return;
        askedFor = now;
        asked = Date.now();
        getJson(`${base}/facts`).then(
          (f) => {
            said = f;
            drawHead();
          },
          () => {},
        );
      }, wait);
    }

    /**
     * The run's workspace changes, turn by turn (`session diff` as the server finds them): the last
     * window, earlier ones on demand, asked again when the run changed; each span's diff fetched when opened.
     */
    let changes = new Map();
    let changesFrom = null;
    let missing = [];
    let changesAskedFor = '';
    let changesAsked = 0;
    const diffs = new Map();
    function askChanges() {
      const version = `${view.lastSeq}:${view.status}`;
      if (version === changesAskedFor) return;
      const wait = Math.max(0, changesAsked + FACTS_MS - Date.now());
      setTimeout(() => {
        const now = `${view.lastSeq}:${view.status}`;
        if (now === changesAskedFor) return;
        changesAskedFor = now;
        changesAsked = Date.now();
        getJson(`${base}/changes`).then(
          (part) => {
            for (const span of part.spans) changes.set(span.index, span);
            changesFrom = changesFrom === null ? part.from : Math.min(changesFrom, part.from);
            missing = part.missing;
            drawChanges();
          },
          (err) => {
            workspace.hidden = false;
            workspace.replaceChildren(h('h2', {}, 'Workspace changes'), h('div', { class: 'bad' }, err.message));
          },
        );
      }, wait);
    }

    function diffNode(span) {
      const key = `${span.index}:${span.to}`;
      const box = h('div', { class: 'diff-box' });
      const show = (text) => box.replaceChildren(text === '' ? h('div', { class: 'muted' }, 'no lines to show') : h('pre', { class: 'diff' }, text));
      if (diffs.has(key)) {
        show(diffs.get(key));
        return box;
      }
      const button = h('button', { class: 'more show-diff', 'data-change': span.index }, 'Show the diff');
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          const got = await getJson(`${base}/changes/${span.index}`);
          diffs.set(key, got.diff);
          show(got.diff);
        } catch (err) {
          box.replaceChildren(h('div', { class: 'bad' }, err.message));
        }
      });
      box.append(button);
      return box;
    }

    const STATUS_WORDS = { added: 'added', modified: 'changed', deleted: 'removed', type_changed: 'changed type' };

    function drawChanges() {
      const spans = [...changes.values()].sort((a, b) => a.index - b.index);
      workspace.hidden = spans.length === 0 && missing.length === 0;
      if (workspace.hidden) return workspace.replaceChildren();
      const more = h('div');
      workspace.replaceChildren(
        h('h2', {}, 'Workspace changes'),
        ...missing.map((m) => h('div', { class: 'missing muted' }, `No snapshot after seq ${m.seq} (turn ${m.turn}, ${m.moment}): ${m.problem}`)),
        more,
        ...spans.map((span) =>
          h(
            'div',
            { class: `change ${span.by}`, 'data-change': span.index, 'data-turn': span.turn },
            h('div', { class: 'heading' }, span.heading),
            h(
              'ul',
              { class: 'files' },
              span.files.map((f) => h('li', {}, h('span', { class: 'change-kind muted' }, STATUS_WORDS[f.status] || f.status), ' ', h('code', {}, f.name), ' ', h('span', { class: 'muted' }, f.counts))),
            ),
            diffNode(span),
          ),
        ),
      );
      if (changesFrom !== null && changesFrom > 0) {
        const button = h('button', { class: 'more', id: 'earlier-changes' }, `Show earlier changes (${count(changesFrom)} before these)`);
        button.addEventListener('click', async () => {
          button.disabled = true;
          try {
            const part = await getJson(`${base}/changes?before=${changesFrom}`);
            for (const span of part.spans) changes.set(span.index, span);
            changesFrom = part.from;
            drawChanges();
          } catch (err) {
            more.replaceChildren(h('div', { class: 'bad' }, err.message));
          }
        });
        more.append(button);
      }
    }

    const link = (id) => h('a', { href: runHref(id), class: 'mono' }, id);
    const relation = (r) => (r.relation.kind === 'first' ? 'the first run' : r.relation.kind === 'fork' ? `forked from ${r.relation.from} at seq ${r.relation.at}` : `continues ${r.relation.from} (compacted at seq ${r.relation.at})`);

    function conversationNode(conversation, current) {
      return h(
        'section',
        { class: 'conversation', id: 'conversation' },
        h('h2', {}, `Conversation: ${count(conversation.runs.length)} runs, ${conversation.spent} in all`),
        h(
          'ol',
          {},
          conversation.runs.map((r) =>
            h(
              'li',
              { class: r.id === current ? 'current' : null, 'data-run': r.id },
              r.id === current ? h('span', { class: 'mono' }, r.id, ' (this run)') : link(r.id),
              ' ',
              status(r.status),
              h('span', { class: 'muted' }, ` ${relation(r)} · ${r.spent === null ? 'cannot be read' : r.spent}`),
            ),
          ),
        ),
      );
    }

    function drawHead() {
      const v = view;
      gone.replaceChildren();
      const c = v.counters;
      const f = said || {};
      const rows = [
        ['status', status(v.status)],
        v.message ? ['message', v.message] : null,
        ['model', `${v.model} (${v.provider})`],
        v.origin ? ['forked from', h('span', {}, link(v.origin.from), ` at seq ${v.origin.at}`)] : null,
        f.continues ? ['continues', h('span', {}, 'run ', link(f.continues.from), `, compacted at seq ${f.continues.at}; ${f.continues.saved}`)] : null,
        f.compacted ? ['compacted', h('span', {}, `at seq ${f.compacted.at}, into run `, link(f.compacted.into), `; ${f.compacted.saved}`)] : null,
        f.spent ? ['spent', f.spent] : null,
        ['created', when(v.created)],
        ['updated', when(v.updated)],
        ['model calls', count(c.llm_calls)],
        ['tool calls', `${count(c.tool_calls)} (${count(c.remote_tool_calls)} remote)`],
        ['tokens', `${count(c.in_tokens)} in, ${count(c.out_tokens)} out, ${count(c.cache_read_tokens)} cache read, ${count(c.cache_create_tokens)} cache created`],
      ].filter(Boolean);
      head.replaceChildren(
        h('h1', {}, 'Run ', h('code', {}, v.id)),
        h('dl', { class: 'facts' }, rows.map(([k, val]) => [h('dt', {}, k), h('dd', {}, val)])),
        ...(f.conversation ? [conversationNode(f.conversation, v.id)] : []), // replaceChildren writes a null as the text "null"
      );
      drawApproval(v);
      askFacts();
      askChanges();
    }

    function drawContinuation() {
      const k = continued;
      continuation.replaceChildren(
        ...(k
          ? [h(
              'section',
              { class: 'panel', id: 'continuation' },
              h('div', { class: 'heading' }, `${k.action === 'approve' ? 'Approved' : 'Denied'} call `, h('code', {}, k.callId), `: ${k.state === 'running' ? 'continuing the run in the ui process…' : `done, exit ${k.code}`}`),
              h('pre', { id: 'output' }, k.output || '…'),
            )]
          : []),
      );
      if (view) drawApproval(view);
    }

    /** A button that fetches the part before the one held, or nothing when the page holds the run from its start. */
    function moreButton(box, held, label, load) {
      if (held === null || held <= 0) return box.replaceChildren();
      const button = h('button', { class: 'more', id: box === transcriptMore ? 'earlier-messages' : 'earlier-steps' }, label);
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          await load();
        } catch (err) {
          box.replaceChildren(h('div', { class: 'bad' }, err.message));
        }
      });
      box.replaceChildren(button);
    }

    function drawTimeline() {
      timeline.replaceChildren(timelineNode({ entries }));
      moreButton(timelineMore, recordsFrom === null ? null : recordsFrom - 2, `Show earlier steps (records 2 to ${count((recordsFrom || 2) - 1)})`, async () => {
        const part = await getJson(`${base}/timeline?before=${recordsFrom}`);
        entries = part.entries.filter((e) => e.seq < recordsFrom).concat(entries);
        recordsFrom = part.from;
        drawTimeline();
      });
    }

    /** The transcript's groups from index `i` on drawn again (what before them is kept), details left open staying open. */
    function drawGroups(i) {
      const open = new Set([...transcript.querySelectorAll('details[open]')].map((d) => d.dataset.key));
      for (const node of [...transcript.children]) if (!node.classList.contains('group')) node.remove();
      for (const node of [...transcript.children].slice(i)) node.remove();
      const flow = { side: null, inFlight: false };
      for (const g of groups.slice(0, i)) {
        for (const item of g.items) {
          flow.side = sideOf(item);
          if (item.kind === 'pending') flow.inFlight = true;
        }
      }
      const running = view !== null && view.status === 'running';
      transcript.append(...groups.slice(i).map((g) => groupNode(g, flow, open, running)));
      moreButton(transcriptMore, messagesFrom, `Show earlier messages (${count(messagesFrom || 0)} before these)`, async () => {
        const part = await getJson(`${base}/transcript?before=${messagesFrom}`);
        const earlier = part.groups.filter((g) => g.at < messagesFrom);
        groups = earlier.concat(groups);
        messagesFrom = part.from;
        const scrolled = document.body.scrollHeight - window.scrollY;
        drawGroups(0);
        window.scrollTo(0, document.body.scrollHeight - scrolled); // the message read stays where it was
      });
      if (transcript.childElementCount === 0) transcript.append(h('div', { class: 'muted' }, 'nothing yet'));
    }

    const atBottom = () => window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
    const events = new EventSource(withToken(`${base}/events`));
    events.addEventListener('page', (e) => {
      facts = JSON.parse(e.data);
      where.textContent = facts.location || '';
    });
    events.addEventListener('head', (e) => {
      const was = view && view.status;
      view = JSON.parse(e.data);
      drawHead();
      drawLive();
      if (was !== null && was !== view.status && groups.some((g) => g.items.some((i) => i.kind === 'pending'))) drawGroups(groups.length - 1);
    });
    events.addEventListener('live', (e) => {
      const following = atBottom();
      live = JSON.parse(e.data);
      drawLive();
      if (following && live !== null) window.scrollTo(0, document.body.scrollHeight);
    });
    events.addEventListener('continuation', (e) => {
      continued = JSON.parse(e.data);
      drawContinuation();
    });
    events.addEventListener('timeline', (e) => {
      const change = JSON.parse(e.data);
      recordsFrom = recordsFrom === null ? change.from : Math.min(recordsFrom, change.from);
      entries = applyChange(entries, (x) => x.seq, change);
      drawTimeline();
    });
    events.addEventListener('transcript', (e) => {
      const change = JSON.parse(e.data);
      const following = atBottom();
      messagesFrom = messagesFrom === null ? change.from : Math.min(messagesFrom, change.from);
      const kept = groups.filter((g) => g.at < change.from).length;
      groups = applyChange(groups, (g) => g.at, change);
      drawGroups(kept);
      if (following && view && view.status === 'running') window.scrollTo(0, document.body.scrollHeight);
    });
    events.addEventListener('gone', (e) => {
      const message = JSON.parse(e.data).error;
      if (view === null) failure(message);
      else gone.replaceChildren(h('div', { class: 'banner bad' }, message));
    });
    // A step in flight: its bar and its time grow as it runs.
    setInterval(() => {
      if (entries.some((e) => e.kind === 'inflight')) timeline.replaceChildren(timelineNode({ entries }));
    }, 500);
  }

  document.getElementById('home').setAttribute('href', withToken('/'));
  const m = /^\/runs\/([^/]+)$/.exec(location.pathname);
  if (m) runPage(decodeURIComponent(m[1]));
  else runsPage();
})();
