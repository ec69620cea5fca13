/** fixtures/apps/browser-app built by the bundlers and served on 127.0.0.1, for the browser tests. */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const APP = path.resolve(__dirname, '../../../fixtures/apps/browser-app');

/** Builds the app with each bundler into `<root>/<bundler>/`; each page's absolute paths get that prefix. Returns the root. */
export function buildApp(bundlers: readonly string[]): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'jsprof-app-'));
  for (const bundler of bundlers) {
    const run = spawnSync(process.execPath, [path.join(APP, 'build.mjs'), bundler, path.join(root, bundler)], { encoding: 'utf8', timeout: 120_000 });
    if (run.status !== 0) throw new Error(`${bundler}: ${run.stderr}`);
    const page = path.join(root, bundler, 'index.html');
    fs.writeFileSync(page, fs.readFileSync(page, 'utf8').replace(/src="\/(?!\/)/g, `src="/${bundler}/`));
  }
  return root;
}

/** Serves `root` (a directory's index.html for its path), with the headers `headers` gives for each request. */
export async function serve(root: string, headers: (url: URL) => Record<string, string> = () => ({})): Promise<{ server: http.Server; origin: string }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const file = path.join(root, url.pathname.endsWith('/') ? `${url.pathname}index.html` : url.pathname);
    if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
    const type = file.endsWith('.html') ? 'text/html' : file.endsWith('.json') ? 'application/json' : 'text/javascript';
    res.writeHead(200, { 'content-type': type, ...headers(url) }).end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
