// `aiproto desk` in a real browser: Debian's Chromium driven by
// playwright-core (no browser download). Pastes what chat UIs hand over and
// checks what the page shows, replies, copies, archives, signs, converts,
// and shows that a hostile envelope runs nothing and no request leaves
// 127.0.0.1. Saves a screenshot of each main state.
//
// usage: NODE_PATH=…/node_modules node desk_browser.cjs AIPROTO CHROMIUM SCREENSHOT_DIR
'use strict';

const { chromium } = require('playwright-core');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const [aiproto, browserPath, shots] = process.argv.slice(2);
if (!aiproto || !browserPath || !shots) {
  console.error('usage: desk_browser.cjs AIPROTO CHROMIUM SCREENSHOT_DIR');
  process.exit(2);
}
const repo = path.resolve(__dirname, '..', '..');
const damage = path.join(repo, 'tests', 'fixtures', 'chat-damage');
fs.mkdirSync(shots, { recursive: true });

let failures = 0;
function check(ok, what) {
  if (ok) {
    console.log(`ok   ${what}`);
  } else {
    failures += 1;
    console.log(`FAIL ${what}`);
  }
}

const REQUEST = `[[CLAUDE→CHATGPT v1]]
session: 2025-10-09T16Z abc123
thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K
message: 01J9J3DBC4N7P2Q3R5S7T9W1V2
intent: REQUEST
body: |
  Please review the pagination patch.
sig: none
[[END]]
`;
const SECOND = `[[CLAUDE→CHATGPT v1]]
session: 2025-10-09T16Z abc123
thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K
parent: 01J9J3DBC4N7P2Q3R5S7T9W1V2
message: 01J9J3DF8WQ0R2T4V6X8Z0B2D4
intent: REQUEST
body: |
  And the cursor encoding, please.
sig: none
[[END]]
`;
// What a chat reply looks like: prose, a code fence, more prose.
const TRANSCRIPT = `Sure — here are both messages for ChatGPT.\n\n\`\`\`\n${REQUEST}\`\`\`\n\nAnd a follow-up:\n\n${SECOND}\nLet me know.\n`;
const HOSTILE = `[[CLAUDE→CHATGPT v1]]
session: 2025-10-09T16Z abc123
thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K
message: 01J9J3DK0000000000000000NK
intent: REQUEST

meta: review
Link: <a href="javascript:window.__pwned=4">click</a>
Note: javascript:window.__pwned=3 <img src=x onerror="window.__pwned=7">

body: |
  <script>window.__pwned = 1</script>
  <img src=x onerror="window.__pwned = 2">
  [click me](javascript:window.__pwned=5) <a href="javascript:window.__pwned=6">here</a>
  <iframe src="https://example.com/"></iframe>
sig: none
[[END]]
`;

/** The command line's stdout (its exit code is not the point here). */
function cli(home, args, input) {
  const run = spawnSync(aiproto, args, { env: { ...process.env, AIPROTO_HOME: home }, input, encoding: 'utf8' });
  if (run.error) throw run.error;
  return run.stdout;
}

async function startDesk(home, archive) {
  const child = spawn(aiproto, ['desk', '--listen', '127.0.0.1:0', '--archive', archive], {
    env: { ...process.env, AIPROTO_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`aiproto desk exited with ${code}`)));
  });
  return { child, url: url.trim() };
}

async function main() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'desk-home-'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'desk-work-'));
  const archive = path.join(work, 'project.crosstalk');
  cli(home, ['keygen', '-q', '--id', 'chatgpt-key', '--signs-for', 'CHATGPT']);
  const { child, url } = await startDesk(home, archive);
  process.on('exit', () => child.kill('SIGINT'));
  const origin = new URL(url).origin;
  check(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{43}$/.test(url), `the desk prints its URL with a token (${origin})`);

  const browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1500, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  const violations = [];
  page.on('console', (m) => { if (/Content Security Policy/.test(m.text())) violations.push(m.text()); });

  // Pastes, then waits until the page has shown what the desk read.
  const paste = async (text) => {
    const before = await page.evaluate(() => document.body.dataset.read || '0');
    await page.locator('#paste').fill(text);
    await page.waitForFunction((seq) => (document.body.dataset.read || '0') !== seq, before);
  };
  const shot = (name) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });

  await page.goto(url);
  check(!page.url().includes('token='), 'the token leaves the address bar once read');
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  const cookies = await context.cookies(origin);
  const session = cookies.find((c) => c.name === 'aiproto_desk');
  check(session && session.httpOnly && session.sameSite === 'Strict', 'the token was exchanged for an HttpOnly, SameSite=Strict cookie');
  // The printed URL works once: the copy a browser's history keeps opens nothing.
  const second = await browser.newContext();
  const again = await second.newPage();
  await again.goto(url);
  await again.waitForFunction(() => !document.querySelector('#no-token').hidden);
  check((await again.locator('#no-token').innerText()).includes('used already'), 'the token URL opened a second time is refused');
  await second.close();
  // A reload keeps the session (the cookie), with no token in sight.
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  check(!page.url().includes('token='), 'a reload works on the cookie alone');
  check((await page.locator('#archive-name').innerText()).endsWith('project.crosstalk'), 'the header names the archive');
  check(await page.evaluate(() => document.activeElement.id === 'paste'), 'the paste area has the focus on load');

  // 1. A transcript with two envelopes: both parsed.
  await paste(TRANSCRIPT);
  const cards = page.locator('.message');
  check(await cards.count() === 2, 'a transcript with two envelopes shows two messages');
  const firstCard = await cards.nth(0).innerText();
  check(firstCard.includes('CLAUDE → CHATGPT') && firstCard.includes('REQUEST') && firstCard.includes('valid'), 'the first message shows its route, intent and verdict');
  check(firstCard.includes('01J9J3DBC4N7P2Q3R5S7T9W1V2 (2024-10-06 23:42:37Z)'), 'ids are shown with their times');
  check((await cards.nth(1).innerText()).includes('parent'), 'the second shows its parent');
  check((await page.locator('#summary').innerText()).startsWith('2 messages: 2 valid'), 'the summary counts them');
  await shot('1-two-envelopes');

  // 2. A cut-off envelope is flagged, at its line.
  const cut = REQUEST.slice(0, REQUEST.indexOf('sig:'));
  await paste(cut);
  check(await page.locator('.badge', { hasText: 'cut off before [[END]]' }).count() === 1, 'a cut-off envelope is flagged as cut off');
  check(await page.locator('.badge', { hasText: /^invalid$/ }).count() === 1, 'and is invalid');
  check(await page.locator('li.finding.error[data-code="CT-END-MISSING"]').count() === 1, 'CT-END-MISSING is shown at its line');
  await shot('2-cut-off');

  // 3. Each kind of chat damage: every finding `validate` reports is shown
  // under its line, and a repair's invisible character by its code point.
  for (const file of fs.readdirSync(damage).filter((f) => /\.(txt|md|crosstalk)$/.test(f) && f !== 'README.md').sort()) {
    const text = fs.readFileSync(path.join(damage, file), 'utf8');
    const expected = JSON.parse(cli(home, ['validate', '--format', 'json', '-'], text).split('\n')[0] || '{}');
    await paste(text);
    const shown = await page.$$eval('li.finding', (items) => items.map((li) => `${li.dataset.line} ${li.dataset.code} ${li.textContent}`));
    const findings = [...(expected.errors || []), ...(expected.warnings || [])];
    const missing = findings.filter((f) => !shown.some((s) => s.startsWith(`${f.line} ${f.code}`) && s.includes(f.message)));
    check(findings.length > 0 && missing.length === 0, `${file}: ${findings.map((f) => `${f.line}:${f.column} ${f.code}`).join(', ')} shown at their lines`);
    if (file === 'nbsp-everywhere.txt') {
      const marks = await page.$$eval('#lines mark', (m) => m.map((x) => x.textContent));
      check(marks.includes('\u27e8U+00A0\u27e9'), 'the no-break space is marked by its code point');
      const line1 = await page.locator('li.finding[data-line="1"]').innerText();
      check(line1.includes('U+00A0 NO-BREAK SPACE read as a space'), 'the repair is named ("U+00A0 NO-BREAK SPACE read as a space")');
      await shot('3-repairs');
    }
  }

  // 4. Reply, keyboard only: Alt+R answers the last envelope.
  await paste(TRANSCRIPT);
  await page.locator('#paste').focus();
  await page.keyboard.press('Alt+KeyR');
  check(await page.evaluate(() => document.activeElement.id === 'c-body'), 'Alt+R puts the cursor in the reply body');
  await page.keyboard.type('Cursor pagination looks right.\nShip it.');
  await page.waitForFunction(() => document.querySelector('#composed').textContent.includes('Ship it.'));
  await page.waitForLoadState('networkidle');
  const reply = await page.locator('#composed').innerText();
  check(reply.startsWith('[[CHATGPT→CLAUDE v1]]'), 'the reply reverses the route');
  check(reply.includes('thread: 01J9J3D3M6A4M3WQX8G1ZQ0S7K') && reply.includes('parent: 01J9J3DF8WQ0R2T4V6X8Z0B2D4'), 'the reply keeps the thread and answers the last envelope');
  check((await page.locator('#compose-verdict').innerText()).startsWith('valid crosstalk 1.1'), 'the reply is validated as it is typed');
  // Alt+1 then Alt+R answers the first one instead.
  await page.keyboard.press('Alt+Digit1');
  await page.keyboard.press('Alt+KeyR');
  await page.keyboard.type(' ');
  await page.waitForFunction(() => document.querySelector('#composed').textContent.includes('parent: 01J9J3DBC4N7P2Q3R5S7T9W1V2'));
  check(true, 'Alt+1, Alt+R answers the first envelope');
  await page.keyboard.press('Alt+Digit2');
  await page.keyboard.press('Alt+KeyR');
  await page.waitForFunction(() => document.querySelector('#composed').textContent.includes('parent: 01J9J3DF8WQ0R2T4V6X8Z0B2D4'));
  await page.waitForLoadState('networkidle');
  await shot('4-reply');

  // 5. Sign with a key bound to the reply's sender, then copy.
  await page.locator('#sign-key').selectOption('chatgpt-key');
  await page.keyboard.press('Alt+KeyS');
  await page.waitForFunction(() => document.querySelector('#composed').textContent.includes('sig: ed25519'));
  check((await page.locator('#compose-verdict').innerText()).includes('verifies here for CHATGPT'), 'the signed reply verifies with the keystore');
  const signed = await page.locator('#composed').innerText();
  const replyId = signed.match(/^message: (\S+)$/m)[1];
  // Checked again when it goes out: with its key gone from the keystore
  // meanwhile, Copy asks first (the test says no) and copies nothing.
  const publicKey = path.join(home, 'keys', 'chatgpt-key.pub');
  fs.renameSync(publicKey, publicKey + '.away');
  await page.keyboard.press('Alt+KeyC');
  await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('Not copied'));
  check(dialogs.length === 1 && dialogs[0].includes('does not verify here'), `a reply that does not verify here is copied only if the person says so (${dialogs.join('; ')})`);
  fs.renameSync(publicKey + '.away', publicKey);
  await page.keyboard.press('Alt+KeyC');
  await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('Copied'));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  check(copied.trim() === signed.trim(), 'Alt+C puts the signed envelope on the clipboard (read back)');
  await page.locator('#with-primer').check();
  await page.keyboard.press('Alt+KeyC');
  await page.waitForFunction(() => document.querySelector('#status').textContent === 'Copied, with the primer');
  const withPrimer = await page.evaluate(() => navigator.clipboard.readText());
  check(withPrimer.startsWith('We talk through AI Crosstalk envelopes') && withPrimer.includes(signed.trim()), 'with the toggle, the primer comes first and the envelope inside');
  if (!withPrimer.includes(signed.trim())) console.log(JSON.stringify({ withPrimer, signed }));
  await page.locator('#with-primer').uncheck();

  // 6. Archive twice: once in the file; the tree shows it; a click opens it.
  // Alt+A archives what its help says: the pasted messages, then the reply.
  await page.keyboard.press('Alt+KeyA');
  await page.waitForFunction(() => /^Archived the pasted messages and the reply: 3 added$/.test(document.querySelector('#status').textContent));
  await page.keyboard.press('Alt+KeyA');
  await page.waitForFunction(() => /^Archived the pasted messages and the reply: 0 added, 3 already there/.test(document.querySelector('#status').textContent));
  const kept = fs.readFileSync(archive, 'utf8');
  check(kept.split(replyId).length - 1 === 1, 'archived twice, the reply is in the file once');
  check(kept.indexOf('01J9J3DF8WQ0R2T4V6X8Z0B2D4') < kept.indexOf(replyId), 'the pasted messages go into the archive before the reply');
  await page.locator('.message').nth(0).getByRole('button', { name: 'Archive pasted' }).click();
  await page.waitForFunction(() => /^Archived the pasted messages: 0 added, 2 already there/.test(document.querySelector('#status').textContent));
  await page.waitForFunction(() => document.querySelectorAll('.node').length === 3);
  const tree = await page.locator('#tree').innerText();
  check(tree.indexOf('CLAUDE → CHATGPT') < tree.indexOf('CHATGPT → CLAUDE'), 'the tree shows the request above its reply');
  await shot('5-archive-tree');
  const readBefore = await page.evaluate(() => document.body.dataset.read);
  await page.keyboard.press('Alt+KeyT');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForFunction((seq) => document.body.dataset.read !== seq, readBefore);
  check((await page.locator('#paste').inputValue()).includes(replyId), 'Alt+T, arrows and Enter open the reply from the tree');
  check((await page.locator('.message').innerText()).includes('verified: signed by chatgpt-key for CHATGPT'), 'a tree node opens the archived message, its signature verified');

  // 6b. A message to someone else: the reply asks who you are instead of
  // writing as its receiver.
  await paste(REQUEST.replace('[[CLAUDE→CHATGPT v1]]', '[[CLAUDE→GEMINI v1]]'));
  await page.keyboard.press('Alt+KeyR');
  await page.waitForFunction(() => document.querySelector('#compose-verdict').textContent.includes('who do you reply as'));
  check((await page.locator('#composed').innerText()).trim() === '', 'nothing is written as GEMINI');
  check(await page.evaluate(() => document.activeElement.id === 'c-from'), 'the cursor waits in From');
  await page.keyboard.type('CHATGPT');
  await page.waitForFunction(() => document.querySelector('#composed').textContent.startsWith('[[CHATGPT→CLAUDE v1]]'));
  check(true, 'once the person names themselves, the reply is theirs');
  await shot('5b-who-are-you');

  // 6c. A message whose parent was retyped with a slip: archived, the tree
  // says whom it answers and which id it was most likely meant to answer.
  const slip = replyId.slice(0, -1) + (replyId.endsWith('Z') ? 'Y' : 'Z');
  const orphan = REQUEST.replace(/message: \S+/, 'message: 01J9J3DZZZZZZZZZZZZZZZZZZZ')
    .replace('intent: REQUEST', `parent: ${slip}\nintent: REQUEST`);
  await paste(orphan);
  await page.locator('.message').nth(0).getByRole('button', { name: 'Archive pasted' }).click();
  await page.waitForFunction(() => [...document.querySelectorAll('#tree .problem')].some((p) => p.textContent.includes('did you mean')));
  const said = await page.locator('#tree .problem').innerText();
  check(said.includes(`answers ${slip}, which is not in this archive: did you mean ${replyId}?`), `the orphan is explained: ${said}`);

  // 6d. The relay's step on the desk: a pasted envelope handed to the other
  // chat with the primer, the paste archived. Here the person is CHATGPT
  // (their key signs for it): an envelope to them is theirs to answer, not
  // to hand on, so it has no such button.
  await paste(TRANSCRIPT);
  check(await page.getByRole('button', { name: 'Hand on with the primer' }).count() === 0, 'envelopes to the person are not offered to hand on');
  await paste(TRANSCRIPT.replaceAll('[[CLAUDE→CHATGPT v1]]', '[[CLAUDE→GEMINI v1]]')
    .replaceAll('01J9J3DBC4N7P2Q3R5S7T9W1V2', '01J9J3DGEM1N1000000000000A')
    .replaceAll('01J9J3DF8WQ0R2T4V6X8Z0B2D4', '01J9J3DGEM1N1000000000000B'));
  await page.evaluate(() => { document.querySelector('#status').textContent = ''; });
  await page.locator('.message').nth(0).getByRole('button', { name: 'Hand on with the primer' }).click();
  await page.waitForFunction(() => document.querySelector('#status').textContent !== '');
  const handOnSaid = await page.locator('#status').innerText();
  check(handOnSaid.startsWith('Copied #1 for the other chat, with the primer'), `Hand on says what it did: ${handOnSaid}`);
  const handed = await page.evaluate(() => navigator.clipboard.readText());
  check(handed.startsWith('We talk through AI Crosstalk envelopes') && handed.includes('Please review the pagination patch.')
    && !handed.includes('And the cursor encoding'), 'Hand on copies the primer with the envelope picked, not the other one');
  check(/\[\[GEMINI→CLAUDE v1\]\]/.test(handed) && handed.includes('parent: 01J9J3DGEM1N1000000000000A'), 'the primer has the other chat answer that envelope as GEMINI');
  check(handOnSaid.includes('archived the pasted messages: 2 added'), 'and archives the paste');
  await shot('6d-hand-on');

  // 6e. A reply in progress and a new paste: it follows the same message
  // while it is pasted, and answers nothing (text kept) when it is gone.
  await paste(TRANSCRIPT);
  await page.keyboard.press('Alt+KeyR');
  await page.keyboard.type('Still about the cursor.');
  await page.waitForFunction(() => document.querySelector('#composed').textContent.includes('Still about the cursor.'));
  await paste(TRANSCRIPT.replace('Let me know.', 'Let me know soon.'));
  await page.waitForFunction(() => document.querySelector('#composed').textContent.includes('parent: 01J9J3DF8WQ0R2T4V6X8Z0B2D4'));
  check(true, 'an edit of the paste keeps the reply on the message it answers');
  await paste(REQUEST.replace('[[CLAUDE→CHATGPT v1]]', '[[CLAUDE→GEMINI v1]]').replace(/message: \S+/, 'message: 01J9J3DQQQQQQQQQQQQQQQQQQQ'));
  await page.waitForFunction(() => document.querySelector('#answering').textContent.includes('not in this paste'));
  check((await page.locator('#composed').innerText()).trim() === '', 'a paste without the message answered leaves nothing composed to copy');
  check((await page.locator('#c-body').inputValue()).includes('Still about the cursor.'), 'and the text typed is kept');
  await page.keyboard.press('Alt+KeyC');
  await page.waitForFunction(() => document.querySelector('#status').textContent === 'Nothing composed to copy');
  check(true, 'Copy then copies nothing stale');
  // A status saying there is nothing to reply to does not outlive a good paste.
  await paste('no envelope here');
  await page.keyboard.press('Alt+KeyR');
  await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('Nothing to reply to'));
  await paste(TRANSCRIPT);
  check((await page.locator('#status').innerText()) === 'Read 2 messages', 'a later good paste replaces "Nothing to reply to"');

  // 7. Convert: an HSP message shown as the Crosstalk a chat can read.
  const hsp = cli(home, ['convert', '--to', 'hsp', '-'], REQUEST);
  await paste(hsp);
  check((await page.locator('.message h3').innerText()).includes('hsp'), 'HSP JSON is read as HSP');
  await page.getByRole('button', { name: 'Show as Crosstalk' }).click();
  await page.waitForSelector('.converted pre');
  const asCrosstalk = await page.locator('.converted pre').innerText();
  check(asCrosstalk.startsWith('[[CLAUDE→CHATGPT v1]]') && asCrosstalk.includes('Please review the pagination patch.'), 'and shown as a Crosstalk envelope');

  // 8. A hostile envelope: its text is shown, nothing runs.
  await paste(HOSTILE);
  await page.waitForTimeout(300);
  const pwned = await page.evaluate(() => window.__pwned);
  check(pwned === undefined, 'no script of the envelope ran');
  const injected = await page.$$eval('#messages img, #messages script, #messages iframe, #messages a, #lines img, #lines script, #lines a, #lines iframe', (n) => n.length);
  check(injected === 0, 'no element was made from the envelope');
  const shown = await page.locator('.message').innerText();
  check(shown.includes('<script>window.__pwned = 1</script>') && shown.includes('review.Link') && shown.includes('<a href="javascript:window.__pwned=4">click</a>'), 'the markup of body and meta is shown as text');
  check(await page.locator('.message .badge', { hasText: /^valid$/ }).count() === 1, 'the hostile envelope is itself valid Crosstalk');
  await page.keyboard.press('Alt+KeyR');
  await page.keyboard.type('No.');
  await page.waitForFunction(() => document.querySelector('#composed').textContent.includes('No.'));
  check(await page.evaluate(() => window.__pwned) === undefined, 'replying to it runs nothing either');
  await shot('6-hostile');

  check(dialogs.length === 1, `no other dialog opened (${dialogs.join('; ')})`);
  check(pageErrors.length === 0, `no script error (${pageErrors.join('; ')})`);
  check(violations.length === 0, `no Content-Security-Policy violation (${violations.join('; ')})`);
  const foreign = requests.filter((r) => !r.startsWith(origin + '/'));
  check(requests.length > 20 && foreign.length === 0, `all ${requests.length} requests went to ${origin} (${foreign.join(', ')})`);

  // 9. The same page from another origin cannot call the API.
  const stranger = await context.newPage();
  await stranger.goto('about:blank');
  const status = await stranger.evaluate(async (api) => {
    try {
      const r = await fetch(api, { method: 'POST', mode: 'no-cors', body: '{}' });
      return r.type;
    } catch (e) {
      return 'blocked';
    }
  }, `${origin}/api/info`);
  check(status === 'opaque' || status === 'blocked', 'a page of another origin gets nothing back');

  await browser.close();
  child.kill('SIGINT');
  if (failures) {
    console.log(`${failures} check(s) failed`);
    process.exit(1);
  }
  console.log(`desk: all checks passed; screenshots in ${shots}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
