// The page `aiproto conformance … --format html` writes, opened in Debian's
// Chromium (playwright-core, no browser download): a deliberately imperfect
// HSP parser is graded, and the page must show the grade table, the causes,
// the failures grouped by spec section (each vector with its file, what was
// expected and what came back), run no script and fetch nothing.
//
// usage: NODE_PATH=…/node_modules node conformance_page.cjs AIPROTO CHROMIUM SCREENSHOT_DIR
'use strict';

const { chromium } = require('playwright-core');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const [aiproto, browserPath, shots] = process.argv.slice(2);
if (!aiproto || !browserPath || !shots) {
  console.error('usage: conformance_page.cjs AIPROTO CHROMIUM SCREENSHOT_DIR');
  process.exit(2);
}
fs.mkdirSync(shots, { recursive: true });
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures += 1;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'aiproto-conformance-page-'));
// An HSP checker of a few lines: any JSON object will do.
const parser = path.join(work, 'naive.py');
fs.writeFileSync(parser, [
  'import json, sys',
  'try:',
  '    d = json.load(open(sys.argv[1]))',
  'except Exception:',
  '    sys.exit(1)',
  'sys.exit(0 if isinstance(d, dict) else 1)',
  '',
].join('\n'));
const page_file = path.join(work, 'conformance.html');
const run = spawnSync(aiproto, ['conformance', 'parser', '-p', 'hsp', '--format', 'html', '--',
  'python3', parser, '{}'], { encoding: 'utf8', env: { ...process.env, AIPROTO_HOME: work } });
check(run.status === 1, `the imperfect parser fails the run (exit ${run.status}) ${run.stderr.slice(-300)}`);
fs.writeFileSync(page_file, run.stdout);

(async () => {
  const browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
  const page = await browser.newPage();
  const requests = [];
  const errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + page_file);

  check((await page.textContent('h1')).includes('Conformance kit'), 'the page has its title');
  const hsp = await page.$$eval('#grades tr', (rows) => rows.map((r) => r.innerText));
  check(hsp.some((r) => r.startsWith('hsp') && r.includes('none')), `the grade: ${hsp.join(' | ')}`);
  const causes = await page.textContent('#causes');
  check(causes.includes('CONF-ACCEPTED'), 'the causes are counted');
  const sections = await page.$$('details.section');
  check(sections.length >= 5, `failures grouped in ${sections.length} spec sections`);
  // Closed at first; one click opens a section and shows its vectors.
  const first = sections[0];
  check(!(await first.evaluate((d) => d.open)), 'a section starts closed');
  await first.$eval('summary', (s) => s.click());
  const shown = await first.$$eval('.vector', (vs) => vs.filter((v) => v.offsetParent !== null).length);
  check(shown > 0, `an opened section shows its ${shown} vectors`);
  const one = await page.$('[id="hsp/invalid/fact-confidence-above-1"]');
  check(one !== null, 'a known failure has its own block');
  if (one) {
    const text = await one.evaluate((v) => v.textContent);
    check(text.includes('hsp/invalid/fact-confidence-above-1.json') && text.includes('expected')
      && text.includes('reject') && text.includes('accepted'),
      'it names its file, what was expected and what came back');
  }
  check(await page.evaluate(() => document.scripts.length === 0), 'the page holds no script');
  check(requests.length === 1, `nothing fetched beyond the page itself: ${requests.join(', ')}`);
  check(errors.length === 0, `no errors in the console: ${errors.join('; ')}`);
  await page.screenshot({ path: path.join(shots, 'conformance-page.png'), fullPage: false });
  await browser.close();
  if (failures > 0) {
    console.log(`${failures} check(s) failed`);
    process.exit(1);
  }
  console.log('conformance: the HTML page shows the grade and the grouped failures in Chromium');
})().catch((e) => { console.error(e); process.exit(1); });
