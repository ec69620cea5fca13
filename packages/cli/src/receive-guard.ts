/**
 * Who may post traces: a token bucket per client address, an optional list of allowed origins
 * (pages of other sites cannot make their visitors' browsers post), an optional shared key.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';

export interface RateLimit {
  /** Traces a client may post per second, on average. */
  perSecond: number;
  /** Traces a client may post at once, after being idle. */
  burst: number;
  /** Clients remembered at once; beyond, the longest-known are forgotten (memory stays bounded). */
  maxClients?: number;
}

export const DEFAULT_RATE_LIMIT: Required<RateLimit> = { perSecond: 10, burst: 100, maxClients: 100_000 };

/** Token buckets by client: `take` says 0 when the client may go on, or the seconds until it may. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly limit: Required<RateLimit>;

  constructor(limit: RateLimit) {
    this.limit = { ...DEFAULT_RATE_LIMIT, ...limit };
  }

  take(client: string, now = Date.now()): number {
    const { perSecond, burst, maxClients } = this.limit;
    let bucket = this.buckets.get(client);
    if (!bucket) {
      if (this.buckets.size >= maxClients) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: burst, at: now };
      this.buckets.set(client, bucket);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
  }
}

/**
 * The client a request counts against: its address (an IPv6 address by its /64, which one
 * subscriber usually holds whole), or with `trustProxy` the address the proxy in front saw (the
 * last one of `x-forwarded-for`: the ones before it are the client's word).
 */
export function clientOf(req: IncomingMessage, trustProxy: boolean): string {
  let address = req.socket.remoteAddress ?? '';
  const forwarded = req.headers['x-forwarded-for'];
  if (trustProxy && typeof forwarded === 'string') address = forwarded.split(',').pop()!.trim();
  if (address.startsWith('::ffff:')) return address.slice(7);
  if (isIPv6(address)) return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
  return address;
}

function expandIPv6(address: string): string[] {
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  return [...left, ...new Array(8 - left.length - right.length).fill('0'), ...right];
}

/** An origin as browsers send it: scheme, host and port, lower case, no trailing slash. */
export function normalizeOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether the request carries the shared key, in the `x-jsprof-key` header or, for browsers
 * (beacons cannot set headers), the `key` query parameter of the collector's URL.
 */
export function hasKey(req: IncomingMessage, key: string): boolean {
  let given = req.headers['x-jsprof-key'];
  if (typeof given !== 'string') given = new URL(req.url ?? '/', 'http://collector').searchParams.get('key') ?? undefined;
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(key));
}
