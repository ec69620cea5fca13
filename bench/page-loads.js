'use strict';
/**
 * Loading a bench page and getting what it measured, the same way in every browser bench: a page
 * sets `self.__result` and then `self.__done`. Firefox and WebKit pages are opened through
 * Playwright (loadOnce). Chromium pages are loaded by a Chromium started for the page, with no
 * DevTools session (loadInOwnChromium): Playwright's turns on V8's capture of a detailed stack for
 * every Error made (Runtime.enable: for the console), which asks V8 where each call is, and V8
 * answers by parsing the function again: for a library's top-level code, the whole file
 * (typescript.js: about 280 ms at the first sample, in every way that samples). A user's browser
 * without DevTools open does none of that. Such a page first waits on a launcher page until the
 * browser has started, then posts its result back (PAGE_HEAD).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { CHROMIUM, ARGS: CHROMIUM_ARGS } = require('../fixtures/chromium');

const LAUNCH_DELAY_MS = 500;
const posted = new Map();
let pageIds = 0;

const LAUNCHER = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
<script>setTimeout(() => location.replace(new URLSearchParams(location.search).get('next')), ${LAUNCH_DELAY_MS});</script></body></html>`;

/** The script every bench page starts with: it posts the result where the page was loaded by loadInOwnChromium, and gives `__fail`. */
const PAGE_HEAD = `<script>
  (function post() {
    const id = new URLSearchParams(location.search).get('post');
    if (!id) return;
    if (!self.__done) return void setTimeout(post, 5);
    fetch('/result?id=' + id, { method: 'POST', body: JSON.stringify(self.__result) });
  })();
  function __fail(error) { self.__result = { error: String(error) }; self.__done = true; }
  self.onerror = (message, source, line) => __fail(message + ' (' + source + ':' + line + ')');
</script>`;

/** Loads `url` (which has a query) once in a Chromium started for it, without DevTools; resolves to what the page posts. */
async function loadInOwnChromium(origin, url, timeout) {
  const id = String(++pageIds);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-bench-chromium-'));
  const result = new Promise((resolve) => posted.set(id, resolve));
  const next = `${url}&post=${id}`;
  const browser = spawn(CHROMIUM, [...CHROMIUM_ARGS, `--user-data-dir=${profile}`, `${origin}/launch?${new URLSearchParams({ next })}`], { stdio: 'ignore', detached: true });
  const exited = new Promise((resolve) => {
    browser.once('close', resolve);
    browser.once('error', resolve);
  });
  browser.once('error', (error) => posted.get(id)?.({ error: `cannot start ${CHROMIUM}: ${error.message}` }));
  const timer = setTimeout(() => posted.get(id)?.({ error: `no result within ${timeout} ms` }), timeout);
  try {
    return await result;
  } finally {
    clearTimeout(timer);
    posted.delete(id);
    try {
      process.kill(-browser.pid, 'SIGKILL'); // its whole process group: the renderer and the rest
    } catch {
      // already gone, or never started
    }
    await exited;
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
  }
}

/**
 * Resolves once the page has set `__done` (the page's result in `__result`), or after `ms` with an
 * error: an expression for `page.evaluate`.
 */
const waitForResult = (ms) => `new Promise((resolve) => {
  const t0 = Date.now();
  const poll = () => (self.__done ? resolve(self.__result) : Date.now() - t0 > ${ms} ? resolve({ error: 'no result within ${ms} ms' }) : setTimeout(poll, 5));
  poll();
})`;

/** Opens a fresh page at `url` in a Playwright browser, waits for its result, closes it. */
async function loadOnce(browser, url, timeout) {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    return await page.evaluate(waitForResult(timeout));
  } finally {
    await page.close();
  }
}

/**
 * A tiny http server on 127.0.0.1 for `handle(url) → { body, type, headers? } | undefined`, which also
 * serves the launcher page (/launch) and takes the results pages post; it keeps the path of every
 * other request in `requests`. Nothing is cacheable (`no-store`), in every engine alike.
 */
async function serve(handle) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'POST' && url.pathname === '/result') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        res.writeHead(204).end();
        let result;
        try {
          result = JSON.parse(body);
        } catch {
          result = { error: `the page posted no result (${JSON.stringify(body.slice(0, 100))})` };
        }
        posted.get(url.searchParams.get('id'))?.(result);
      });
      return;
    }
    if (url.pathname === '/launch') return void res.writeHead(200, { 'content-type': 'text/html' }).end(LAUNCHER);
    requests.push(url.pathname);
    const found = handle(url);
    if (!found) return void res.writeHead(404).end();
    res.writeHead(200, { ...found.headers, 'content-type': found.type, 'cache-control': 'no-store' }).end(found.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections(); // a browser's keep-alive connections would hold it open
    });
  return { origin: `http://127.0.0.1:${server.address().port}`, requests, close };
}

module.exports = { PAGE_HEAD, loadInOwnChromium, loadOnce, serve };
