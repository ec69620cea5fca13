/**
 * Playwright sends `page.evaluate(fn)`'s function to the page as its text. Under `jsprof run` the
 * function has checks, which the page has no runtime for: the text it sends must be the one written.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, jsprof, tempDir } from './helpers';

const PROGRAM = `const { launchChromium } = require(${JSON.stringify(path.join(ROOT, 'fixtures/chromium'))});
function sumOfSquares(n) {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += i * i;
  if (sum > 1e9) return -1;
  return sum;
}
(async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    console.log(JSON.stringify({ inPage: await page.evaluate(sumOfSquares, 10), text: String(sumOfSquares) }));
  } finally {
    await browser.close();
  }
})();
`;

test('page.evaluate(fn) runs the function in Chromium under jsprof run (Playwright, itself instrumented)', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'app.js'), PROGRAM);
  const run = jsprof(['run', '-q', '--threshold', '1', '--out', path.join(dir, 'trace.json'), 'app.js'], { cwd: dir, env: { JSPROF_CACHE_DIR: path.join(dir, 'cache') } });
  expect([run.status, run.stderr]).toEqual([0, '']);
  const cached = fs.readdirSync(path.join(dir, 'cache')).filter((f) => f.endsWith('.js'));
  expect(cached.some((f) => fs.readFileSync(path.join(dir, 'cache', f), 'utf8').includes('function sumOfSquares(n) { if (--__jsprof$c'))).toBe(true);
  expect(JSON.parse(run.stdout)).toEqual({ inPage: 285, text: PROGRAM.slice(PROGRAM.indexOf('function sumOfSquares'), PROGRAM.indexOf('\n(async')) });
}, 60_000);
