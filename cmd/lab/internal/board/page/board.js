// The class board's page: draws the snapshot of GET /api/v1/board and
// draws it again whenever the board says the class changed.
//
// Three rules shape this file:
//  - Attendees choose their names and write their hands' texts, and spec
//    names come from their clones: all of it is untrusted. It only ever
//    reaches the page as textContent or a title attribute, never as HTML.
//  - The board's clock is the only clock: "12 min on the stage" and "3 min
//    ago" are computed from the snapshot's `now`, not from this browser's,
//    which may be set differently from the instructor's laptop.
//  - The instructor clicks while the page redraws (a busy room changes it
//    several times a second), so redrawing keeps the elements a click may
//    be on (rows, hands' buttons) and only changes what is inside them.

(() => {
  'use strict';

  // class.go's RepeatChecks: a stuck flag "repeat" names the spec, not how
  // many checks it failed in a row.
  const REPEAT_CHECKS = 3;
  // How often the page asks without being told: time alone makes someone
  // quiet or slow, and moves the minutes on the stage.
  const POLL_MS = 10000;
  // How long to wait before opening the event stream again after the board
  // answered it with something that is not a stream (a 403, a restart).
  const RECONNECT_MS = 3000;
  const LANG_KEY = 'cronlab-board-lang';
  // How many of a failing check's spec names the timeline lists.
  const FIRST_FAILING = 3;

  // Every visible string, in both languages. The Chinese follows the
  // project's glossary (docs/glossary.zh-CN.md): a spec of the tests is
  // 测试用例, a stage 阶段, a hint 提示, a check 检查, an attendee 学员.
  const STRINGS = {
    en: {
      title: 'cronlab class board',
      classCode: 'class code',
      csv: 'export CSV',
      live: 'live',
      connecting: 'connecting…',
      reconnecting: 'reconnecting…',
      notConnected: 'not connected',
      attendees: (n, left) => (n === 1 ? '1 attendee' : `${n} attendees`) + (left ? ` (and ${left} who left)` : ''),
      attendee: 'attendee',
      nobody: 'No attendee has joined yet: they run bin/lab join with the class code.',
      stageTitle: (id, title) => `stage ${id}: ${title}`,
      left: 'left',
      stuck: 'stuck',
      repeat: (spec, hint) => `same spec failing ${REPEAT_CHECKS} checks in a row: ${spec}` + (hint ? ` (hint ${hint})` : ''),
      slow: (m, p) => `on this stage ${m} min, above the class's 75th percentile (${p} min)`,
      quiet: (m) => `no check for ${m} min`,
      minutes: (m) => (m < 1 ? '<1 min' : `${m} min`),
      noCompile: 'does not compile',
      cellPassed: (c) => `passed: ${c.passed} of ${c.ran} specs; ${checks(c.checks)}`,
      cellFailing: (c) => `${c.passed} of ${c.ran} specs passed; ${checks(c.checks)}`,
      cellNoCompile: (c) => `does not compile: ${c.compileErrors} compiler ${c.compileErrors === 1 ? 'error' : 'errors'}; ${checks(c.checks)}`,
      checks: (n) => (n === 1 ? '1 check' : `${n} checks`),
      onStageTitle: (m) => `on this stage for ${m} min`,
      hand: (text) => `raised hand: ${text}`,
      handsTitle: 'Raised hands',
      noHands: 'No raised hand.',
      done: 'done',
      ago: (m) => (m < 1 ? 'just now' : `${m} min ago`),
      stage: (id) => `stage ${id}`,
      hint: (id) => `hint ${id}`,
      failingTitle: 'What the room fails right now',
      noFailing: 'Nothing fails right now.',
      ofOnStage: (n, of, stage) => `${n} of ${of} on stage ${stage}`,
      failingNames: (names) => names.join(', '),
      timelineTitle: 'Timeline',
      close: 'close',
      loading: 'loading…',
      nothingYet: 'No check and no hand yet.',
      tlPassed: 'passed',
      tlFailed: (failed, of) => `${failed} failed of ${of}`,
      tlNoSpecs: 'no spec ran',
      tlNoCompile: 'does not compile',
      tlNoCompileRest: (passed, of) => `does not compile; the rest: ${passed} of ${of} specs passed`,
      tlLowered: 'lowered',
      tlLoweredBy: { attendee: 'lowered', instructor: 'lowered by you', passed: 'lowered: passed this stage since' },
      tlMore: (n) => `and ${n} more`,
      tlHints: (n) => `hints seen: ${n}`,
      tlHand: 'raised a hand',
      legendPassed: 'passed',
      legendFailing: 'specs passed of those that ran',
      legendNoCompile: 'does not compile',
      legendCurrent: 'current stage, with the time on it',
      legendNone: 'not started',
      noKey: "This page needs the board's key: open the URL that bin/lab board printed",
      unreachable: 'The board does not answer; trying again…',
    },
    zh: {
      title: 'cronlab 班级看板',
      classCode: '班级代码',
      csv: '导出 CSV',
      live: '实时',
      connecting: '正在连接…',
      reconnecting: '正在重新连接…',
      notConnected: '未连接',
      attendees: (n, left) => `${n} 名学员` + (left ? `，${left} 名已离开` : ''),
      attendee: '学员',
      nobody: '还没有学员加入：学员用班级代码运行 bin/lab join。',
      stageTitle: (id, title) => `第 ${id} 阶段：${title}`,
      left: '已离开',
      stuck: '卡住了',
      repeat: (spec, hint) => `同一个测试用例连续 ${REPEAT_CHECKS} 次检查都失败：${spec}` + (hint ? `（提示 ${hint}）` : ''),
      slow: (m, p) => `在这个阶段已 ${m} 分钟，超过全班的第 75 百分位（${p} 分钟）`,
      quiet: (m) => `${m} 分钟没有检查`,
      minutes: (m) => (m < 1 ? '<1 分钟' : `${m} 分钟`),
      noCompile: '不能编译',
      cellPassed: (c) => `通过：${c.ran} 个测试用例中 ${c.passed} 个通过；${checks(c.checks)}`,
      cellFailing: (c) => `${c.ran} 个测试用例中 ${c.passed} 个通过；${checks(c.checks)}`,
      cellNoCompile: (c) => `不能编译：${c.compileErrors} 个编译错误；${checks(c.checks)}`,
      checks: (n) => `${n} 次检查`,
      onStageTitle: (m) => `在这个阶段已 ${m} 分钟`,
      hand: (text) => `举手：${text}`,
      handsTitle: '举手',
      noHands: '没有人举手。',
      done: '已处理',
      ago: (m) => (m < 1 ? '刚刚' : `${m} 分钟前`),
      stage: (id) => `第 ${id} 阶段`,
      hint: (id) => `提示 ${id}`,
      failingTitle: '全班此刻没通过的测试用例',
      noFailing: '此刻没有失败的测试用例。',
      ofOnStage: (n, of, stage) => `第 ${stage} 阶段 ${of} 人中有 ${n} 人`,
      failingNames: (names) => names.join('、'),
      timelineTitle: '时间线',
      close: '关闭',
      loading: '正在加载…',
      nothingYet: '还没有检查，也没有举手。',
      tlPassed: '通过',
      tlFailed: (failed, of) => `${of} 个测试用例中 ${failed} 个失败`,
      tlNoSpecs: '没有运行任何测试用例',
      tlNoCompile: '不能编译',
      tlNoCompileRest: (passed, of) => `不能编译；其余部分：${of} 个测试用例中 ${passed} 个通过`,
      tlLowered: '已放下',
      tlLoweredBy: { attendee: '已放下', instructor: '由你放下', passed: '已放下：之后通过了这个阶段' },
      tlMore: (n) => `还有 ${n} 个`,
      tlHints: (n) => `已看提示：${n}`,
      tlHand: '举手',
      legendPassed: '通过',
      legendFailing: '通过的测试用例 / 运行的测试用例',
      legendNoCompile: '不能编译',
      legendCurrent: '当前阶段，及在其上的时间',
      legendNone: '未开始',
      noKey: '这个页面需要看板的密钥：请打开 bin/lab board 打印的网址',
      unreachable: '看板没有响应；正在重试…',
    },
  };

  const key = new URLSearchParams(location.search).get('key') || '';

  const state = {
    lang: initialLang(),
    snap: null, // the snapshot drawn last
    error: null, // {kind: 'noKey' | 'unreachable' | 'refused', en, zh}
    live: false,
    // Whether the event stream was ever open: before it, the page is
    // connecting, not reconnecting.
    wasLive: false,
    timeline: null, // the open panel: {id, lastSeq, data}
  };

  // The elements that survive redraws (see the third rule above), by
  // attendee id, and by attendee:seq for hands.
  const rows = new Map();
  const whyRows = new Map();
  const handItems = new Map();

  // --- small helpers --------------------------------------------------

  function t(name, ...args) {
    const s = STRINGS[state.lang][name];
    return typeof s === 'function' ? s(...args) : s;
  }

  function checks(n) {
    return t('checks', n);
  }

  const $ = (sel) => document.querySelector(sel);

  // el builds an element; text goes in as textContent, so an attendee's
  // text can never become markup.
  function el(tag, props = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'dataset') Object.assign(e.dataset, v);
      else if (k === 'className') e.className = v;
      else e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
  }

  // syncChildren makes nodes the children of parent, in order, moving only
  // what is out of place: a node under the pointer stays attached, and the
  // click the instructor is making still lands.
  function syncChildren(parent, nodes) {
    nodes.forEach((node, i) => {
      if (parent.children[i] !== node) parent.insertBefore(node, parent.children[i] || null);
    });
    while (parent.children.length > nodes.length) parent.lastElementChild.remove();
  }

  // Go writes times with nanoseconds; Date.parse is only required to read
  // milliseconds.
  function parseTime(s) {
    return Date.parse(String(s).replace(/(\.\d{3})\d+/, '$1'));
  }

  function minutesSince(at) {
    return Math.max(0, Math.floor((parseTime(state.snap.now) - parseTime(at)) / 60000));
  }

  function clock(at) {
    const d = new Date(parseTime(at));
    return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  }

  function initialLang() {
    try {
      const saved = localStorage.getItem(LANG_KEY);
      if (saved === 'en' || saved === 'zh') return saved;
    } catch (e) {
      // Storage may be off (a private window): the browser's language then.
    }
    return (navigator.language || '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
  }

  // --- talking to the board -------------------------------------------

  class Refused extends Error {
    constructor(status, body) {
      super(`HTTP ${status}`);
      this.status = status;
      this.body = body || {};
    }
  }

  // api calls the board with the key, and throws Refused with the board's
  // reason when it says no.
  async function api(path, init) {
    const url = path + (path.includes('?') ? '&' : '?') + 'key=' + encodeURIComponent(key);
    const resp = await fetch(url, Object.assign({ cache: 'no-store' }, init));
    if (!resp.ok) {
      let body = null;
      try {
        body = await resp.json();
      } catch (e) {
        // not the board's JSON: a proxy's page, say; the status is enough
      }
      throw new Refused(resp.status, body);
    }
    return resp;
  }

  function setError(err) {
    // A missing key and a wrong one (a board of another --db) are told
    // apart by the board, in both languages: show its words.
    if (err instanceof Refused && err.status === 403) state.error = { kind: 'noKey', en: err.body.error, zh: err.body.errorZh };
    else if (err instanceof Refused) state.error = { kind: 'refused', en: err.body.error || err.message, zh: err.body.errorZh || err.body.error || err.message };
    else state.error = { kind: 'unreachable' };
    drawError();
  }

  // refresh fetches the snapshot and draws it. Never two at once: a change
  // told during a fetch may not be in its answer, so one more fetch follows,
  // however many changes were told meanwhile.
  let fetching = false;
  let fetchAgain = false;
  async function refresh() {
    if (fetching) {
      fetchAgain = true;
      return;
    }
    fetching = true;
    try {
      do {
        fetchAgain = false;
        await loadSnapshot();
      } while (fetchAgain);
    } finally {
      fetching = false;
    }
  }

  async function loadSnapshot() {
    try {
      const snap = await (await api('/api/v1/board')).json();
      state.snap = snap;
      state.error = null;
      draw();
    } catch (err) {
      setError(err);
    }
  }

  let source = null;
  function connect() {
    source = new EventSource('/api/v1/events?key=' + encodeURIComponent(key));
    source.addEventListener('open', () => setLive(true));
    source.addEventListener('changed', () => {
      setLive(true);
      refresh();
    });
    source.addEventListener('error', () => {
      setLive(false);
      // EventSource reconnects by itself when the stream breaks or the
      // board is down, but gives up for good on an answer that is not a
      // stream (a 403, a proxy's error page): then a new one, after a
      // pause. The snapshot's fetch says why, if the board says anything.
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        setTimeout(connect, RECONNECT_MS);
        refresh();
      }
    });
  }

  function setLive(live) {
    state.live = live;
    state.wasLive = state.wasLive || live;
    const e = $('#live');
    // Without the key the stream never comes: "reconnecting" would promise
    // what cannot happen. Before it first came, nothing was lost yet.
    const shut = !live && state.error && state.error.kind === 'noKey';
    const how = live ? 'live' : shut ? 'off' : state.wasLive ? 'reconnecting' : 'connecting';
    e.dataset.state = how;
    e.textContent = t({ live: 'live', off: 'notConnected', reconnecting: 'reconnecting', connecting: 'connecting' }[how]);
    const csv = $('#csv');
    if (csv) csv.hidden = shut;
  }

  async function lowerHand(h, button) {
    button.disabled = true;
    try {
      await api(`/api/v1/attendees/${encodeURIComponent(h.attendee)}/hands/${encodeURIComponent(h.seq)}/lower`, { method: 'POST' });
      refresh(); // the event would come too; this does not wait for it
    } catch (err) {
      button.disabled = false;
      setError(err);
    }
  }

  // --- drawing ----------------------------------------------------------

  function draw() {
    drawStatic();
    drawError();
    const s = state.snap;
    // Until the first snapshot, the panels say they are loading: "no raised
    // hand" or "nothing fails" would be said of a class not read yet.
    for (const e of document.querySelectorAll('.loading')) e.hidden = !!s;
    if (!s) return;
    drawHeader(s);
    drawMatrix(s);
    drawHands(s);
    drawFailing(s);
    followTimeline(s);
    // Tests and the curious read which snapshot is on screen.
    document.body.dataset.version = String(s.version);
  }

  // drawStatic puts the page's own texts in the language chosen.
  function drawStatic() {
    document.documentElement.lang = state.lang === 'zh' ? 'zh-CN' : 'en';
    document.title = t('title');
    for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = t(e.dataset.i18n);
    for (const b of document.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === state.lang));
    setLive(state.live);
  }

  function drawError() {
    const e = $('#error');
    const err = state.error;
    // Without the key nothing below can be filled: do not show an empty
    // board that looks like a class nobody joined.
    $('#main').hidden = !!err && err.kind === 'noKey' && !state.snap;
    e.hidden = !err;
    if (!err) return;
    e.dataset.kind = err.kind;
    if (err.en) e.textContent = state.lang === 'zh' ? (err.zh || err.en) : err.en;
    else e.textContent = t(err.kind);
    setLive(state.live);
  }

  function drawHeader(s) {
    $('#code').textContent = s.code || '';
    $('.code').hidden = !s.code;
    const present = s.attendees.filter((a) => !a.left).length;
    $('#count').textContent = t('attendees', present, s.attendees.length - present);
  }

  function stageTitle(st) {
    return t('stageTitle', st.num || st.id, (state.lang === 'zh' && st.titleZh) || st.title);
  }

  // Messages name a stage by its slug (scheduling); people read its number
  // (06), which is its place in today's list. nums is filled from the
  // snapshot's stages each time the matrix is drawn.
  const nums = new Map();
  function num(id) {
    return nums.get(id) || id;
  }

  function drawMatrix(s) {
    const table = $('#matrix');
    table.style.setProperty('--stages', String(s.stages.length));
    const head = el('tr', {}, el('th', { className: 'name', scope: 'col', text: t('attendee') }), el('th', { className: 'flags', scope: 'col' }));
    for (const st of s.stages) {
      nums.set(st.id, st.num || st.id);
      head.append(el('th', { scope: 'col', title: stageTitle(st), dataset: { stage: st.id }, text: num(st.id) }));
    }
    table.tHead.replaceChildren(head);

    // Who left stays on the board (what they did is still the class's),
    // after everyone present.
    const ordered = s.attendees.filter((a) => !a.left).concat(s.attendees.filter((a) => a.left));
    const nodes = [];
    const seen = new Set();
    for (const a of ordered) {
      seen.add(a.id);
      nodes.push(drawRow(a, s));
      if (a.stuck && a.stuck.length) nodes.push(drawWhy(a, s.stages.length + 2));
    }
    for (const id of rows.keys()) if (!seen.has(id)) rows.delete(id);
    for (const id of whyRows.keys()) if (!seen.has(id)) whyRows.delete(id);
    syncChildren(table.tBodies[0], nodes);
    $('#nobody').hidden = s.attendees.length > 0;
  }

  function drawRow(a, s) {
    let tr = rows.get(a.id);
    if (!tr) {
      tr = el('tr', { tabindex: '0' });
      rows.set(a.id, tr);
    }
    tr.dataset.attendee = String(a.id);
    tr.dataset.name = a.name;
    const stuck = !!(a.stuck && a.stuck.length);
    tr.className = [a.left && 'left', stuck && 'is-stuck', state.timeline && state.timeline.id === a.id && 'selected'].filter(Boolean).join(' ');

    const name = el('th', { scope: 'row', className: 'name', title: a.name }, el('span', { className: 'who', text: a.name }));
    if (a.left) name.append(el('span', { className: 'left-mark', text: t('left') }));

    const flags = el('td', { className: 'flags' });
    if (a.hand) flags.append(el('span', { className: 'hand', title: t('hand', a.hand.text), text: '✋' }));
    if (stuck) {
      flags.append(el('span', {
        className: 'stuck',
        dataset: { reasons: a.stuck.map((x) => x.reason).join(' ') },
        title: a.stuck.map(reasonText).join('\n'),
        text: t('stuck'),
      }));
    }

    const cells = s.stages.map((st) => drawCell(a, st));
    tr.replaceChildren(name, flags, ...cells);
    return tr;
  }

  function drawCell(a, st) {
    const c = a.cells && a.cells[st.id];
    const td = el('td', { dataset: { stage: st.id, state: c ? c.state : 'none' } });
    if (c && c.state === 'passed') {
      td.append(el('span', { className: 'mark', text: '✓' }));
      td.title = t('cellPassed', c);
    } else if (c && c.compileErrors > 0) {
      td.classList.add('nocompile');
      td.dataset.compileErrors = String(c.compileErrors);
      td.append(el('span', { className: 'mark', text: t('noCompile') }));
      td.title = t('cellNoCompile', c);
    } else if (c) {
      td.append(el('span', { className: 'mark', text: `${c.passed}/${c.ran}` }));
      td.title = t('cellFailing', c);
    }
    // Someone who left has no current stage: their clock stopped.
    if (!a.left && a.current === st.id) {
      td.classList.add('current');
      if (a.onStage !== undefined) {
        const m = Math.floor(a.onStage / 60);
        td.append(el('span', { className: 'on', text: t('minutes', m) }));
        td.title = (td.title ? td.title + '\n' : '') + t('onStageTitle', m);
      }
    }
    return td;
  }

  // A spec's name in the page's language: the board sends the Chinese one
  // beside the English when the clone's names files have it.
  function specName(x) {
    return (state.lang === 'zh' && x.specZh) || x.spec;
  }

  function reasonText(r) {
    switch (r.reason) {
      case 'repeat': return t('repeat', specName(r), r.hint);
      case 'slow': return t('slow', Math.round(r.minutes), Math.round(r.p75));
      case 'quiet': return t('quiet', Math.round(r.minutes));
      default: return r.reason; // a reason newer than this page: at least its name
    }
  }

  // drawWhy is the line under a stuck attendee's row that says why, in
  // words: the reasons are what the instructor walks over with.
  function drawWhy(a, span) {
    let tr = whyRows.get(a.id);
    if (!tr) {
      tr = el('tr', { className: 'why' });
      whyRows.set(a.id, tr);
    }
    tr.dataset.why = String(a.id);
    const td = el('td', { colspan: String(span) });
    for (const r of a.stuck) td.append(el('span', { className: 'reason', dataset: { reason: r.reason }, text: reasonText(r) }));
    tr.replaceChildren(td);
    return tr;
  }

  function drawHands(s) {
    const nodes = [];
    const seen = new Set();
    for (const h of s.hands) {
      const k = `${h.attendee}:${h.seq}`;
      seen.add(k);
      let item = handItems.get(k);
      if (!item) {
        const button = el('button', { type: 'button', className: 'done' });
        button.addEventListener('click', () => lowerHand(h, button));
        const body = el('div', { className: 'body' });
        item = { li: el('li', { dataset: { attendee: String(h.attendee), seq: String(h.seq) } }, body, button), body, button };
        handItems.set(k, item);
      }
      item.button.textContent = t('done');
      const meta = el('div', { className: 'meta' }, el('strong', { className: 'who', text: h.name }));
      if (h.stage) meta.append(el('span', { className: 'stage', text: t('stage', num(h.stage)) }));
      meta.append(el('span', { className: 'ago', text: t('ago', minutesSince(h.at)) }));
      item.body.replaceChildren(meta, el('p', { className: 'text', text: h.text }));
      nodes.push(item.li);
    }
    for (const k of handItems.keys()) if (!seen.has(k)) handItems.delete(k);
    syncChildren($('#hands'), nodes);
    $('#hands-empty').hidden = nodes.length > 0;
  }

  function drawFailing(s) {
    const items = s.failing.map((f) => {
      const share = f.of ? f.attendees / f.of : 0;
      const bar = el('span', { className: 'bar' });
      bar.style.width = `${Math.round(share * 100)}%`;
      const meta = el('div', { className: 'meta' },
        el('span', { className: 'count', text: t('ofOnStage', f.attendees, f.of, num(f.stage)) }));
      if (f.hint) meta.append(el('span', { className: 'hint', text: t('hint', f.hint) }));
      meta.append(el('span', { className: 'pkg', text: f.package }));
      return el('li', {
        dataset: { stage: f.stage, spec: f.spec, count: String(f.attendees), of: String(f.of) },
        title: t('failingNames', f.names || []),
      }, el('div', { className: 'spec', text: specName(f) }), meta, el('div', { className: 'track' }, bar));
    });
    $('#failing').replaceChildren(...items);
    $('#failing-empty').hidden = items.length > 0;
  }

  // --- the timeline panel ----------------------------------------------

  let timelineRequest = 0;

  function openTimeline(id) {
    const a = state.snap && state.snap.attendees.find((x) => x.id === id);
    if (!a) return;
    state.timeline = { id, lastSeq: a.lastSeq, data: null, name: a.name };
    for (const [rid, tr] of rows) tr.classList.toggle('selected', rid === id);
    $('#timeline').hidden = false;
    drawTimeline();
    loadTimeline();
  }

  function closeTimeline() {
    state.timeline = null;
    timelineRequest++; // an answer on its way is for a closed panel
    $('#timeline').hidden = true;
    for (const tr of rows.values()) tr.classList.remove('selected');
  }

  async function loadTimeline() {
    const tl = state.timeline;
    const mine = ++timelineRequest;
    try {
      const data = await (await api(`/api/v1/attendees/${encodeURIComponent(tl.id)}/timeline`)).json();
      if (mine !== timelineRequest) return; // the panel moved on meanwhile
      tl.data = data;
      drawTimeline();
    } catch (err) {
      if (mine === timelineRequest) setError(err);
    }
  }

  // followTimeline loads the open timeline again when its attendee sent
  // something since.
  function followTimeline(s) {
    const tl = state.timeline;
    if (!tl) return;
    const a = s.attendees.find((x) => x.id === tl.id);
    if (a && a.lastSeq !== tl.lastSeq) {
      tl.lastSeq = a.lastSeq;
      loadTimeline();
    }
    drawTimeline();
  }

  function drawTimeline() {
    const tl = state.timeline;
    if (!tl) return;
    const data = tl.data;
    $('#timeline-name').textContent = data ? data.name : tl.name;
    const status = $('#timeline-status');
    const list = $('#timeline-entries');
    if (!data) {
      status.textContent = t('loading');
      status.hidden = false;
      list.replaceChildren();
      return;
    }
    status.textContent = t('nothingYet');
    status.hidden = data.entries.length > 0;
    // Newest first: the instructor opens it to see what just happened.
    const entries = data.entries.slice().reverse().map(drawEntry);
    list.replaceChildren(...entries);
  }

  // The board says what a check came to (timeline.go's outcome): code that
  // does not compile is said first, as the matrix's cell says it, even when
  // the rest ran and none of it failed.
  function checkResult(e) {
    const specs = e.specs || 0;
    switch (e.outcome) {
      case 'passed': return t('tlPassed');
      case 'nocompile': return specs ? t('tlNoCompileRest', specs - (e.failed || 0), specs) : t('tlNoCompile');
      case 'nospecs': return t('tlNoSpecs');
      default: return t('tlFailed', e.failed || 0, specs);
    }
  }

  function drawEntry(e) {
    const kind = e.kind === 'check' ? { passed: 'passed', nocompile: 'nocompile' }[e.outcome] || 'failing' : e.kind;
    const li = el('li', { className: kind, dataset: { kind: e.kind, seq: String(e.seq) } });
    const head = el('div', { className: 'head' },
      el('time', { datetime: e.at, text: clock(e.at) }),
      el('span', { className: 'stage', text: e.stage ? t('stage', num(e.stage)) : '' }));
    li.append(head);
    if (e.kind === 'check') {
      const result = checkResult(e);
      head.append(el('span', { className: 'result', text: result }));
      const failing = e.failing || [];
      if (failing.length) {
        const ul = el('ul', { className: 'specs' });
        for (const name of failing.slice(0, FIRST_FAILING)) ul.append(el('li', { text: name }));
        if (failing.length > FIRST_FAILING) ul.append(el('li', { className: 'more', text: t('tlMore', failing.length - FIRST_FAILING) }));
        li.append(ul);
      }
      if (e.hintsSeen) li.append(el('div', { className: 'hints', text: t('tlHints', e.hintsSeen) }));
    } else if (e.kind === 'hand') {
      // Who lowered it: the attendee, the instructor (the page's reader),
      // or the board, when the attendee passed the stage it was raised on.
      const by = e.lowered ? t('tlLoweredBy')[e.loweredBy] || t('tlLowered') : '';
      head.append(el('span', { className: 'result', text: '✋ ' + t('tlHand') + (by ? ` (${by})` : '') }));
      li.append(el('p', { className: 'text', text: e.text || '' }));
    }
    return li;
  }

  // --- wiring -----------------------------------------------------------

  function setLang(lang) {
    state.lang = lang;
    try {
      localStorage.setItem(LANG_KEY, lang);
    } catch (e) {
      // not remembered, still switched
    }
    draw();
    drawTimeline();
  }

  function rowOf(target) {
    const tr = target.closest('tr[data-attendee], tr[data-why]');
    return tr ? Number(tr.dataset.attendee || tr.dataset.why) : null;
  }

  function start() {
    for (const b of document.querySelectorAll('[data-lang]')) b.addEventListener('click', () => setLang(b.dataset.lang));
    $('#csv').href = '/api/v1/export.csv?key=' + encodeURIComponent(key);
    const body = $('#matrix').tBodies[0];
    body.addEventListener('click', (ev) => {
      const id = rowOf(ev.target);
      if (id !== null) openTimeline(id);
    });
    body.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' && ev.key !== ' ') return;
      const id = rowOf(ev.target);
      if (id === null) return;
      ev.preventDefault();
      openTimeline(id);
    });
    $('#timeline-close').addEventListener('click', closeTimeline);
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && state.timeline) closeTimeline();
    });

    drawStatic();
    if (!key) {
      // No key in the address: the board would refuse every call.
      state.error = { kind: 'noKey' };
      drawError();
      return;
    }
    refresh();
    connect();
    setInterval(refresh, POLL_MS);
  }

  start();
})();
