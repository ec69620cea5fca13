/**
 * The receiving side of `sendTrace` (`@jsprof/runtime/send`): a `node:http` request handler that
 * stores each trace posted to it as a JSON file, `{ receivedAt, meta, trace }`. Bodies are bounded
 * before and after gunzip (a gzip bomb is refused), and anything that is not a trace gets a 4xx
 * with one line saying why.
 */
import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { writeAtomic } from './files';

export interface ReceiverOptions {
  /** Where the traces are written. */
  dir: string;
  /** Largest body accepted, as sent (default 1 MB). */
  maxBytes?: number;
  /** Largest body once gunzipped (default 32 MB). */
  maxInflatedBytes?: number;
  /** Called with the file written, or with the reason a body was refused. */
  onTrace?: (file: string) => void;
  onRefused?: (status: number, reason: string) => void;
}

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function parseBody(body: Buffer, maxInflated: number): { meta: unknown; trace: unknown } {
  let text = body;
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      text = zlib.gunzipSync(body, { maxOutputLength: maxInflated });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw new Refused(413, `inflates beyond ${maxInflated} bytes`);
      throw new Refused(400, 'not valid gzip');
    }
  }
  let value: any;
  try {
    value = JSON.parse(text.toString('utf8'));
  } catch {
    throw new Refused(400, 'not JSON');
  }
  const trace = value?.trace;
  const arrays = ['resources', 'frames', 'stacks', 'samples'];
  if (!trace || typeof trace !== 'object' || !arrays.every((k) => Array.isArray(trace[k]))) {
    throw new Refused(400, `not a trace: expected { meta, trace: { ${arrays.join(', ')} } }`);
  }
  const meta = value.meta && typeof value.meta === 'object' && !Array.isArray(value.meta) ? value.meta : {};
  return { meta, trace };
}

export function traceReceiver(options: ReceiverOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const maxBytes = options.maxBytes ?? 1 << 20;
  const maxInflated = options.maxInflatedBytes ?? 32 << 20;
  fs.mkdirSync(options.dir, { recursive: true });
  return (req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    const refuse = (status: number, reason: string) => {
      options.onRefused?.(status, reason);
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
      res.end(`${reason}\n`);
    };
    if (req.method === 'OPTIONS') return void res.writeHead(204, { 'access-control-allow-methods': 'POST' }).end();
    if (req.method !== 'POST') return refuse(405, 'POST a trace');
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        refuse(413, `larger than ${maxBytes} bytes`);
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      done = true;
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      try {
        const { meta, trace } = parseBody(Buffer.concat(chunks), maxInflated);
        const file = path.join(options.dir, `${Date.now()}-${Math.random().toString(36).slice(2, 10)}.json`);
        writeAtomic(file, JSON.stringify({ receivedAt: new Date().toISOString(), meta, trace }));
        options.onTrace?.(file);
        res.writeHead(204).end();
      } catch (error) {
        if (error instanceof Refused) refuse(error.status, error.message);
        else refuse(500, 'could not store the trace');
      }
    });
  };
}
