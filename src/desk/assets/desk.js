// aiproto desk: the page. Every message text is put into the page as text
// (textContent, text nodes), never as HTML: a hostile envelope stays words.
'use strict';

const $ = (id) => document.getElementById(id);

/** The token of the printed URL, taken from the fragment and the address
 * bar at once: it is exchanged, once, for the session cookie (login). */
const loginToken = (() => {
  const match = location.hash.match(/token=([A-Za-z0-9_-]+)/);
  if (match) history.replaceState(null, '', location.pathname);
  return match ? match[1] : null;
})();

/** Opens the session with the URL's token (a reload has its cookie already). */
async function login() {
  if (!loginToken) return true;
  try {
    const response = await fetch('/api/login', { method: 'POST', headers: { 'X-Aiproto-Token': loginToken } });
    if (response.ok) return true;
    const data = await response.json().catch(() => ({}));
    $('no-token').textContent = data.error || 'This address was refused.';
  } catch (e) {
    $('no-token').textContent = 'the desk does not answer (was it stopped?)';
  }
  $('no-token').hidden = false;
  return false;
}

/** An element with text children only. `props`: className, title, type, tabIndex, dataset, aria. */
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('aria-')) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  return node;
}

function setStatus(text, kind) {
  const status = $('status');
  status.textContent = text;
  status.className = kind || '';
}

/** POST /api/NAME: `{ok, status, data}`. */
async function api(name, body) {
  let response;
  try {
    response = await fetch('/api/' + name, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body || {}),
    });
  } catch (e) {
    return { ok: false, status: 0, data: { error: 'the desk does not answer (was it stopped?)' } };
  }
  let data;
  try { data = await response.json(); } catch (e) { data = { error: 'an answer that is not JSON' }; }
  if (response.status === 403) $('no-token').hidden = false;
  return { ok: response.ok, status: response.status, data };
}

function debounce(fn, ms) {
  let timer;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

// ---- state ---------------------------------------------------------------

const state = {
  pasted: '',
  read: null,          // the answer of /api/read
  selected: -1,        // the message replied to (index), -1: none
  replying: false,     // the composer answers state.selected
  answeringId: '',     // the id of the message answered, to follow it across pastes
  composed: '',        // the composed envelope
  signed: '',          // the composed envelope, signed ('' when not)
  signedVerifies: false, // whether the signed envelope verifies here
  myNames: new Set(),  // whom the keystore's keys sign for (upper case)
  askWho: '',          // the receiver of the message answered, when it is not you
  readSeq: 0,
  composeSeq: 0,
  composing: null,    // the compose in flight
};

// ---- reading a paste -----------------------------------------------------

const INVISIBLE = /[\p{Cf}\p{Zs}\p{Cc}\u2028\u2029]/u;

function codePoint(ch) {
  return 'U+' + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
}

async function readPaste() {
  const text = $('paste').value;
  state.pasted = text;
  const seq = ++state.readSeq;
  if (!text.trim()) {
    state.read = null;
    renderRead();
    document.body.dataset.read = String(seq);
    return;
  }
  const answer = await api('read', { text });
  if (seq !== state.readSeq) return;
  if (!answer.ok) {
    state.read = { error: answer.data.error, messages: [] };
  } else {
    state.read = answer.data;
  }
  state.selected = state.read.messages.length ? state.read.messages.length - 1 : -1;
  renderRead();
  document.body.dataset.read = String(seq);
  const count = state.read.messages.length;
  if (count) setStatus(`Read ${count} message${count > 1 ? 's' : ''}`, 'ok');
  if (state.replying) followReply();
}

/** After a new paste, a reply in progress goes on answering the same
 * message (found by its id) or, when it is gone, answers nothing until the
 * person picks one: never silently another. The text typed is kept. */
function followReply() {
  const messages = state.read ? state.read.messages : [];
  const again = state.answeringId
    ? messages.findIndex((m) => idOf(m) === state.answeringId)
    : -1;
  if (again >= 0) { startReply(again, false); return; }
  state.replying = false;
  state.answeringId = '';
  state.composed = '';
  state.signed = '';
  $('composed').textContent = '';
  $('compose-verdict').textContent = '';
  const said = 'The message you were answering is not in this paste: pick the one to answer (Alt+R, Alt+1…9); your text is kept';
  $('answering').textContent = said;
  setStatus(said, 'bad');
}

/** A pasted message's id, when it has one. */
function idOf(m) {
  const model = m && m.inspect && m.inspect.message;
  return model && model.id ? String(model.id) : '';
}

function findingsOf(read) {
  const findings = [];
  const add = (d, severity) => findings.push({ ...d, severity });
  if (read.input) (read.input.errors || []).forEach((d) => add(d, 'error'));
  for (const m of read.messages || []) {
    (m.verdict.errors || []).forEach((d) => add(d, 'error'));
    (m.verdict.warnings || []).forEach((d) => add(d, 'warn'));
  }
  return findings;
}

/** The pasted text line by line, each finding under its line, its column marked. */
function renderLines(text, read) {
  const list = $('lines');
  list.replaceChildren();
  if (!text) return;
  const lines = text.split(/\r\n|\n|\r/);
  const byLine = new Map();
  for (const f of findingsOf(read)) {
    const line = f.line || 1;
    if (!byLine.has(line)) byLine.set(line, []);
    byLine.get(line).push(f);
  }
  const inMessage = new Set();
  for (const m of read.messages || []) {
    for (let l = m.verdict.line; l <= (m.verdict.end_line || m.verdict.line); l++) inMessage.add(l);
  }
  const LIMIT = 4000;
  lines.slice(0, LIMIT).forEach((line, i) => {
    const no = i + 1;
    const found = byLine.get(no) || [];
    const severity = found.some((f) => f.severity === 'error') ? 'error' : (found.length ? 'warn' : '');
    const columns = new Set(found.map((f) => f.column).filter(Boolean));
    const textNode = el('span', { className: 'text' });
    Array.from(line).forEach((ch, c) => {
      if (columns.has(c + 1)) {
        const shown = INVISIBLE.test(ch) ? '\u27e8' + codePoint(ch) + '\u27e9' : ch;
        textNode.append(el('mark', { title: codePoint(ch) }, shown));
      } else {
        textNode.append(document.createTextNode(ch));
      }
    });
    const classes = [severity, inMessage.has(no) ? 'in-message' : ''].filter(Boolean).join(' ');
    list.append(el('li', { className: classes, dataset: { line: String(no) } }, el('span', { className: 'no' }, String(no)), textNode));
    for (const f of found) {
      list.append(el('li', { className: 'finding ' + f.severity, dataset: { line: String(no), code: f.code } },
        el('span', { className: 'code' }, f.code),
        `line ${no}${f.column ? ':' + f.column : ''} — ${f.message}`,
        f.hint ? el('span', { className: 'muted' }, ` (${f.hint})`) : null));
    }
  });
  if (lines.length > LIMIT) list.append(el('li', { className: 'finding warn' }, `… ${lines.length - LIMIT} more lines not shown`));
}

function renderRead() {
  const read = state.read;
  const summary = $('summary');
  const messages = $('messages');
  messages.replaceChildren();
  if (!read) {
    summary.textContent = '';
    summary.className = 'summary';
    $('lines').replaceChildren();
    return;
  }
  renderLines(state.pasted, read);
  if (read.error) {
    summary.textContent = read.error;
    summary.className = 'summary bad';
    return;
  }
  const count = read.messages.length;
  if (!count) {
    const why = read.input && read.input.errors[0] ? read.input.errors[0].message : 'no message found';
    summary.textContent = 'No message: ' + why;
    summary.className = 'summary bad';
    return;
  }
  const bad = read.messages.filter((m) => !m.verdict.valid).length;
  const cut = read.messages.filter((m) => !m.complete).length;
  const repairs = findingsOf(read).filter((f) => f.code && f.code.includes('REPAIR')).length;
  summary.textContent = `${count} message${count > 1 ? 's' : ''}: ${count - bad} valid` +
    (bad ? `, ${bad} invalid` : '') + (cut ? `, ${cut} cut off` : '') + (repairs ? `, ${repairs} repair${repairs > 1 ? 's' : ''} named below` : '');
  summary.className = 'summary ' + (bad ? 'bad' : 'ok');
  read.messages.forEach((m, i) => messages.append(messageCard(m, i)));
}

function timeOf(iso) {
  return iso ? ` (${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')})` : '';
}

function signatureLine(sig) {
  if (!sig) return '';
  if (sig.valid) return `verified: signed by ${sig.key_id} for ${sig.sender}`;
  if (sig.code === 'SIG-UNSIGNED') return 'not signed';
  return `${sig.code || 'not verified'}: ${sig.error || ''}`;
}

function messageCard(m, index) {
  const v = m.verdict;
  const inspected = m.inspect || {};
  const model = inspected.message;
  const card = el('article', { className: 'message' + (index === state.selected ? ' selected' : ''), tabIndex: 0, dataset: { index: String(index) } });
  const route = model ? `${model.sender || '?'} → ${model.recipient || '?'}` : (v.protocol || 'message');
  card.append(el('h3', {},
    el('span', {}, `#${index + 1}`),
    el('span', { className: 'route' }, route),
    model && model.intent ? el('span', { className: 'intent' }, model.intent) : null,
    el('span', { className: 'badge ' + (v.valid ? 'ok' : 'bad') }, v.valid ? 'valid' : 'invalid'),
    m.complete ? null : el('span', { className: 'badge bad' }, 'cut off before [[END]]'),
    el('span', { className: 'muted' }, `${v.protocol} ${v.version || ''} · lines ${v.line}–${v.end_line}`)));
  const fields = el('dl', { className: 'fields' });
  const field = (name, value) => { if (value) fields.append(el('dt', {}, name), el('dd', {}, value)); };
  const times = m.id_times || {};
  if (model) {
    field('message', model.id && model.id + timeOf(times.id));
    field('thread', model.thread && model.thread + timeOf(times.thread));
    field('parent', model.parent && model.parent + timeOf(times.parent));
    field('sent', model.timestamp);
    for (const block of model.meta || []) {
      for (const [key, value] of block.entries || []) field(`${block.namespace}.${key}`, value);
    }
  }
  field('signature', signatureLine(m.signature));
  card.append(fields);
  if (model && model.body) {
    const body = typeof model.body.value === 'string' ? model.body.value : JSON.stringify(model.body.value, null, 2);
    card.append(el('pre', { className: 'body' }, body));
  } else if (inspected.document) {
    card.append(el('pre', { className: 'body' }, JSON.stringify(inspected.document, null, 2)));
  }
  const problems = (v.errors || []).length + (v.warnings || []).length;
  if (problems) card.append(el('p', { className: 'muted' }, `${problems} finding${problems > 1 ? 's' : ''}, shown at their lines on the left`));
  const buttons = el('div', { className: 'buttons' });
  const reply = el('button', { type: 'button' }, 'Reply');
  reply.addEventListener('click', () => startReply(index, true));
  buttons.append(reply);
  const target = v.protocol === 'crosstalk' ? 'hsp' : 'crosstalk';
  const convert = el('button', { type: 'button' }, target === 'crosstalk' ? 'Show as Crosstalk' : 'Show as HSP JSON');
  convert.addEventListener('click', () => showConverted(card, index, target));
  buttons.append(convert);
  // The relay's step, for an envelope to someone else (one to you is yours
  // to answer).
  const toYou = model && model.recipient && state.myNames.has(String(model.recipient).toUpperCase());
  if (v.protocol === 'crosstalk' && !toYou) {
    const handOnButton = el('button', { type: 'button' }, 'Hand on with the primer');
    handOnButton.addEventListener('click', () => handOn(index));
    buttons.append(handOnButton);
  }
  const archive = el('button', { type: 'button' }, 'Archive pasted');
  archive.addEventListener('click', () => archiveText(state.pasted, 'the pasted messages'));
  buttons.append(archive);
  card.append(buttons);
  card.addEventListener('focus', () => select(index));
  return card;
}

function select(index) {
  state.selected = index;
  document.querySelectorAll('.message').forEach((c) => c.classList.toggle('selected', Number(c.dataset.index) === index));
}

async function showConverted(card, index, target) {
  const answer = await api('convert', { text: state.pasted, to: target });
  const old = card.querySelector('.converted');
  if (old) old.remove();
  const box = el('div', { className: 'converted' });
  if (!answer.ok) {
    box.append(el('p', { className: 'verdict bad' }, answer.data.error));
  } else {
    const mine = answer.data.messages.find((m) => m.index === index) || answer.data.messages[0];
    box.append(el('h4', {}, `As ${target}`), el('pre', { className: 'envelope' }, mine ? mine.text : ''));
    const dropped = mine && mine.dropped ? mine.dropped : [];
    if (dropped.length) box.append(el('p', { className: 'muted' }, 'Not carried over: ' + dropped.map((d) => d.field || JSON.stringify(d)).join(', ')));
  }
  card.append(box);
}

// ---- replying ------------------------------------------------------------

function composeRequest() {
  const request = { protocol: $('c-version').value };
  const from = $('c-from').value.trim();
  const to = $('c-to').value.trim();
  if (from) request.from = from;
  if (to) request.to = to;
  if ($('c-intent').value) request.intent = $('c-intent').value;
  const meta = $('c-meta').value.split('\n').map((l) => l.trim()).filter(Boolean);
  if (meta.length) request.meta = meta;
  request.body = $('c-body').value;
  if (state.replying && state.selected >= 0) {
    request.reply_to = state.pasted;
    request.pick = String(state.selected + 1);
  }
  return request;
}

async function compose() {
  state.composing = composeOnce();
  return state.composing;
}

async function composeOnce() {
  const seq = ++state.composeSeq;
  const verdict = $('compose-verdict');
  // A message to someone else is never answered as them without a word:
  // the person says who they reply as.
  if (state.replying && state.askWho && !$('c-from').value.trim()) {
    state.signed = '';
    state.composed = '';
    $('composed').textContent = '';
    const names = [...state.myNames].join(', ') || 'no one yet';
    verdict.className = 'verdict bad who';
    verdict.textContent = `This message is to ${state.askWho}, not to you: who do you reply as? ` +
      `Write your name in From (your keys sign for ${names}).`;
    return;
  }
  const answer = await api('compose', composeRequest());
  if (seq !== state.composeSeq) return;
  state.signed = '';
  verdict.replaceChildren();
  if (answer.ok) {
    state.composed = answer.data.text;
    verdict.className = 'verdict ok';
    verdict.append(`valid ${answer.data.protocol} ${answer.data.version} · thread ${answer.data.thread || '—'} · parent ${answer.data.parent || '—'}`);
    const answered = answer.data.answered;
    if (answered) {
      $('c-from').placeholder = answered.receiver;
      $('c-to').placeholder = answered.sender;
    }
  } else {
    state.composed = (answer.data.details && answer.data.details.text) || '';
    verdict.className = 'verdict bad';
    verdict.append(answer.data.error);
    const records = (answer.data.details && answer.data.details.messages) || [];
    for (const r of records) {
      for (const d of r.errors || []) verdict.append(el('div', {}, el('span', { className: 'code' }, d.code), d.message));
    }
  }
  $('composed').textContent = state.composed;
}
// Composing follows typing after a pause; an action on the reply (sign,
// copy, archive, a new reply) first settles it, so it never acts on an
// envelope that a late compose then replaces.
let composeTimer = null;
function composeSoon() {
  clearTimeout(composeTimer);
  composeTimer = setTimeout(() => { composeTimer = null; compose(); }, 200);
}
async function composeSettled() {
  if (composeTimer) {
    clearTimeout(composeTimer);
    composeTimer = null;
    await compose();
  }
  if (state.composing) await state.composing;
}

function startReply(index, focus) {
  if (!state.read || index < 0 || index >= state.read.messages.length) {
    setStatus('Nothing to reply to: paste a message first', 'bad');
    return;
  }
  select(index);
  state.replying = true;
  const m = state.read.messages[index];
  state.answeringId = idOf(m);
  const model = m.inspect && m.inspect.message;
  const route = model ? `${model.sender} → ${model.recipient}` : m.verdict.protocol;
  $('answering').textContent = `Answering #${index + 1} (${route}${model && model.intent ? ', ' + model.intent : ''})` +
    (m.complete ? '' : ' — it was cut off: ask for it whole');
  $('c-from').value = '';
  $('c-to').value = '';
  // Addressed to one of the names your keys sign for: you answer as it.
  // Otherwise (or with no key) the composer asks who you are.
  const receiver = model && model.recipient ? String(model.recipient) : '';
  state.askWho = receiver && !state.myNames.has(receiver.toUpperCase()) ? receiver : '';
  clearTimeout(composeTimer);
  composeTimer = null;
  compose();
  if (focus) (state.askWho ? $('c-from') : $('c-body')).focus();
}

async function sign() {
  await composeSettled();
  const key = $('sign-key').value;
  if (!key) { setStatus('Choose a key to sign with (aiproto keygen makes one)', 'bad'); return; }
  if (!state.composed) { setStatus('Nothing composed to sign', 'bad'); return; }
  const answer = await api('sign', { text: state.composed, key });
  if (!answer.ok) { setStatus(answer.data.error, 'bad'); return; }
  state.signed = answer.data.text;
  $('composed').textContent = state.signed;
  const here = (answer.data.verified_here || [])[0];
  state.signedVerifies = Boolean(here && here.valid);
  const verdict = $('compose-verdict');
  verdict.className = 'verdict ' + (here && here.valid ? 'ok' : 'bad');
  verdict.textContent = here && here.valid
    ? `signed with ${key}; verifies here for ${here.sender}`
    : `signed with ${key}, but it would not verify here: ${here ? here.error : ''}`;
  setStatus(state.signedVerifies ? 'Signed' : 'Signed, but it would not verify here', state.signedVerifies ? 'ok' : 'bad');
}

/** A signed reply that does not verify here now (checked again at the
 * moment: the keystore may have changed since it was signed) goes out only
 * when the person says so. */
async function unverifiedConfirmed(what) {
  if (!state.signed) return true;
  const answer = await api('verify', { text: state.signed });
  const first = answer.ok && answer.data.messages && answer.data.messages[0];
  state.signedVerifies = Boolean(answer.ok && answer.data.valid);
  if (state.signedVerifies) return true;
  const why = (first && first.error) || answer.data.error || 'it does not verify';
  if (window.confirm(`This signed reply does not verify here (${why}). ${what} it anyway?`)) return true;
  setStatus(`Not ${what === 'Copy' ? 'copied' : 'archived'}: the signature does not verify here`, 'bad');
  return false;
}

async function copy() {
  await composeSettled();
  const envelope = state.signed || state.composed;
  if (!envelope) { setStatus('Nothing composed to copy', 'bad'); return; }
  if (!(await unverifiedConfirmed('Copy'))) return;
  let text = envelope;
  if ($('with-primer').checked) {
    const answer = await api('primer', { reply_to: envelope });
    if (!answer.ok) { setStatus(answer.data.error, 'bad'); return; }
    text = answer.data.text;
  }
  try {
    await navigator.clipboard.writeText(text);
    setStatus($('with-primer').checked ? 'Copied, with the primer' : 'Copied', 'ok');
  } catch (e) {
    setStatus('The browser refused the clipboard: select the envelope and copy it', 'bad');
  }
}

async function archiveText(text, what) {
  if (!text) { setStatus('Nothing to archive', 'bad'); return; }
  const answer = await api('archive', { text });
  if (!answer.ok) { setStatus(answer.data.error, 'bad'); return; }
  const again = answer.data.already_there.length;
  setStatus(`Archived ${what}: ${answer.data.appended} added` + (again ? `, ${again} already there` : ''), 'ok');
  loadTree();
}

/** The relay's step: the pasted envelope handed to the other chat with
 * the primer (`primer --reply-to`), the pasted messages archived first. */
async function handOn(index) {
  const primer = await api('primer', { reply_to: state.pasted, pick: String(index + 1) });
  if (!primer.ok) { setStatus(primer.data.error, 'bad'); return; }
  const archived = await api('archive', { text: state.pasted });
  if (!archived.ok) { setStatus(`Not handed on: the pasted messages cannot be archived: ${archived.data.error}`, 'bad'); return; }
  loadTree();
  try {
    await navigator.clipboard.writeText(primer.data.text);
  } catch (e) {
    setStatus('The browser refused the clipboard: nothing copied', 'bad');
    return;
  }
  const again = archived.data.already_there.length;
  setStatus(`Copied #${index + 1} for the other chat, with the primer; archived the pasted messages: ` +
    `${archived.data.appended} added` + (again ? `, ${again} already there` : ''), 'ok');
}

/** Alt+A: the pasted messages and the reply, in that order (a reply's
 * parent is then in the archive before it). */
async function archiveReply() {
  await composeSettled();
  const reply = state.signed || state.composed;
  const pasted = state.read && state.read.messages.length ? state.pasted : '';
  if (!reply && !pasted) { setStatus('Nothing to archive', 'bad'); return; }
  if (reply && !(await unverifiedConfirmed('Archive'))) return;
  let added = 0;
  let there = 0;
  const refused = [];
  const parts = [[pasted, 'the pasted messages'], [reply, 'the reply']].filter(([text]) => text);
  for (const [text, what] of parts) {
    const answer = await api('archive', { text });
    if (!answer.ok) { refused.push(`${what}: ${answer.data.error}`); continue; }
    added += answer.data.appended;
    there += answer.data.already_there.length;
  }
  loadTree();
  const what = parts.map(([, w]) => w).join(' and ');
  if (refused.length) {
    setStatus(`Not all archived (${added} added): ${refused.join('; ')}`, 'bad');
    return;
  }
  setStatus(`Archived ${what}: ${added} added` + (there ? `, ${there} already there` : ''), 'ok');
}

// ---- the archive's tree ----------------------------------------------------

function treeNode(node) {
  const button = el('button', { type: 'button', className: 'node', dataset: { id: node.id || '' }, title: `line ${node.line} of ${node.source}` },
    el('span', { className: 'route' }, `${node.sender || '?'} → ${node.receiver || '?'}`),
    el('span', { className: 'intent' }, node.intent || ''),
    node.summary || '');
  button.addEventListener('click', () => openArchived(node.id));
  const item = el('li', {}, button);
  if (node.children && node.children.length) item.append(el('ul', {}, node.children.map(treeNode)));
  return item;
}

async function loadTree() {
  const answer = await api('thread', {});
  const tree = $('tree');
  tree.replaceChildren();
  if (!answer.ok) { tree.append(el('p', { className: 'problem' }, answer.data.error)); return; }
  const records = answer.data.records || [];
  if (!records.length) { tree.append(el('p', { className: 'muted' }, 'The archive is empty.')); return; }
  const list = el('ul');
  for (const r of records) {
    if (r.type === 'tree') list.append(treeNode(r.root));
    else list.append(el('li', { className: 'problem' }, problemText(r)));
  }
  tree.append(list);
}

// What a thread problem means, in the person's words: who wrote the
// message, what it answers, and the id it was most likely meant to answer.
function problemText(r) {
  const messages = r.messages || [];
  const who = (m) => `${m.sender} → ${m.receiver}${m.id ? ' ' + m.id : ''}`;
  if (r.problem === 'orphan' && messages.length) {
    const text = `${who(messages[0])} answers ${r.id}, which is not in this archive`;
    return r.did_you_mean
      ? `${text}: did you mean ${r.did_you_mean}? Correct its parent line (and sign it again if it was signed).`
      : `${text} (archive the message it answers, or check its parent line).`;
  }
  if (r.problem === 'duplicate-id') {
    return `${messages.length} different messages carry the id ${r.id}: ${messages.map((m) => `${m.sender} → ${m.receiver}`).join(', ')}.`;
  }
  if (r.problem === 'cycle') {
    return `these messages answer each other in a loop: ${messages.map((m) => m.id).join(' → ')}.`;
  }
  return `${r.problem}${r.id ? ' ' + r.id : ''}`;
}

async function openArchived(id) {
  if (!id) return;
  const answer = await api('archived', { id });
  if (!answer.ok) { setStatus(answer.data.error, 'bad'); return; }
  $('paste').value = answer.data.text;
  state.replying = false;
  await readPaste();
  setStatus(`Opened ${id} from the archive`, 'ok');
}

// ---- start-up and keys ------------------------------------------------------

async function loadRegistry() {
  const answer = await api('registry', {});
  if (!answer.ok) return;
  const fill = () => {
    const version = $('c-version').value.endsWith('1.0') ? '1.0' : '1.1';
    const select = $('c-intent');
    const current = select.value;
    select.replaceChildren(el('option', { value: '' }, '(default)'),
      ...answer.data.intents[version].map((i) => el('option', { value: i }, i)));
    select.value = [...select.options].some((o) => o.value === current) ? current : '';
  };
  fill();
  $('c-version').addEventListener('change', fill);
  $('c-meta').placeholder = answer.data.meta.slice(0, 2).map((m) => `${m.namespace}.${m.key}=${m.values[0]}`).join('\n');
  $('c-meta').title = 'Known keys: ' + answer.data.meta.map((m) => `${m.namespace}.${m.key} (${m.values.join(' | ')})`).join('; ');
}

async function loadKeys() {
  const answer = await api('keys', {});
  if (!answer.ok) return;
  const select = $('sign-key');
  for (const key of answer.data.keys) {
    for (const name of key.signs_for) state.myNames.add(String(name).toUpperCase());
    const label = key.signs_for.length ? `${key.id} (signs for ${key.signs_for.join(', ')})` : key.id;
    select.append(el('option', { value: key.id }, label));
  }
}

function moveInTree(step) {
  const nodes = [...document.querySelectorAll('.node')];
  const at = nodes.indexOf(document.activeElement);
  if (at < 0) return false;
  const next = nodes[Math.max(0, Math.min(nodes.length - 1, at + step))];
  if (next) next.focus();
  return true;
}

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && $('help').open) { $('help').close(); return; }
  if (!e.altKey && e.key === '?' && !/INPUT|TEXTAREA|SELECT/.test(document.activeElement.tagName)) {
    $('help').showModal(); e.preventDefault(); return;
  }
  if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && moveInTree(e.key === 'ArrowDown' ? 1 : -1)) { e.preventDefault(); return; }
  if (!e.altKey || e.ctrlKey || e.metaKey) return;
  const actions = {
    KeyP: () => $('paste').focus(),
    KeyR: () => startReply(state.selected >= 0 ? state.selected : (state.read ? state.read.messages.length - 1 : -1), true),
    KeyS: sign,
    KeyC: copy,
    KeyA: archiveReply,
    KeyT: () => { const first = document.querySelector('.node'); if (first) first.focus(); else $('tree').focus(); },
  };
  const digit = e.code.match(/^Digit([1-9])$/);
  if (digit) {
    const index = Number(digit[1]) - 1;
    const card = document.querySelector(`.message[data-index="${index}"]`);
    if (card) { card.focus(); e.preventDefault(); }
    return;
  }
  if (actions[e.code]) { e.preventDefault(); actions[e.code](); }
});

document.addEventListener('DOMContentLoaded', async () => {
  if (!(await login())) return;
  const readSoon = debounce(readPaste, 150);
  $('paste').addEventListener('input', readSoon);
  $('composer').addEventListener('input', composeSoon);
  $('composer').addEventListener('submit', (e) => e.preventDefault());
  $('sign').addEventListener('click', sign);
  $('copy').addEventListener('click', copy);
  $('archive').addEventListener('click', archiveReply);
  $('help-button').addEventListener('click', () => $('help').showModal());
  const info = await api('info', {});
  if (info.ok) $('archive-name').textContent = 'archive: ' + info.data.archive;
  await Promise.all([loadRegistry(), loadKeys(), loadTree()]);
  $('paste').focus();
  document.body.dataset.ready = '1';
});
