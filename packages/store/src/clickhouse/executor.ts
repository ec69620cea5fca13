/**
 * How the ClickHouse store reaches an engine: SQL in, JSONEachRow out. The same statements run
 * through `@clickhouse/client` against a server, or through chdb (ClickHouse in-process) on one
 * machine and in the tests.
 */
import * as http from 'node:http';

export type InsertSettings = Record<string, string | number>;

export interface ClickHouseExecutor {
  readonly description: string;
  /** Runs a statement that returns nothing. */
  command(sql: string): Promise<void>;
  /** Runs a query; rows as JSONEachRow gives them (64-bit integers as strings). */
  query(sql: string): Promise<Record<string, unknown>[]>;
  /** Inserts rows (objects keyed by column) as JSONEachRow, with these settings for the insert. */
  insert(table: string, rows: object[], settings?: InsertSettings): Promise<void>;
  close(): Promise<void>;
}

/** What a ClickHouse server's client says went wrong; `unreachable` when no answer came at all. */
export class ClickHouseError extends Error {
  constructor(
    message: string,
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

/** The errors of a connection that got no answer: refused, reset, timed out, or no such host. */
const NO_ANSWER = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const unanswered = (error: Error) => NO_ANSWER.has((error as NodeJS.ErrnoException).code ?? '') || error.message === 'Timeout error.';

type Client = ReturnType<typeof import('@clickhouse/client').createClient>;

/**
 * What to say of an error answer with no text, as a proxy or another server gives it: the client
 * keeps no status, so the status of a `SELECT 1` of our own.
 */
async function emptyAnswer(client: Client): Promise<string> {
  try {
    const { http_status_code: status, stream } = await client.exec({ query: 'SELECT 1', ignore_error_response: true });
    stream.resume();
    if (status !== undefined && (status < 200 || status > 299)) return `${status} ${http.STATUS_CODES[status] ?? 'error'} (is this a ClickHouse server?)`;
  } catch {
    // no answer to that either: the error without its status
  }
  return 'an HTTP error with no message (is this a ClickHouse server?)';
}

function requireOptional<T>(name: string, what: string): T {
  try {
    require.resolve(name);
  } catch {
    throw new Error(`${what} needs the package ${name}, which is not installed: npm i ${name}`);
  }
  try {
    return require(name);
  } catch (error) {
    // Node's own message goes on with the stack of requiring modules, a line each.
    throw new Error(`${what} needs the package ${name}, which could not be loaded: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** A ClickHouse server over HTTP(S): `url` like http://user:password@host:8123. */
export function clickhouseClientExecutor(url: string): ClickHouseExecutor {
  const { createClient, ClickHouseLogLevel } = requireOptional<typeof import('@clickhouse/client')>('@clickhouse/client', 'a ClickHouse store');
  const client = createClient({
    url,
    clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
    // Errors are thrown, and said once by the caller: the client's own log would repeat them.
    log: { level: ClickHouseLogLevel.OFF },
  });
  const description = `ClickHouse ${new URL(url).origin}`;
  const said = <T>(work: () => Promise<T>): Promise<T> =>
    work().catch(async (error: Error) => {
      const message = error.message.trim() === '' ? await emptyAnswer(client) : error.message;
      throw new ClickHouseError(`${description}: ${message}`, unanswered(error));
    });
  return {
    description,
    command: (sql) => said(() => client.command({ query: sql }).then(() => undefined)),
    query: (sql) => said(async () => (await client.query({ query: sql, format: 'JSONEachRow' })).json()),
    insert: (table, rows, settings) => said(() => (rows.length ? client.insert({ table, values: rows, format: 'JSONEachRow', clickhouse_settings: settings }).then(() => undefined) : Promise.resolve())),
    close: () => client.close(),
  };
}

interface ChdbSession {
  queryAsync(sql: string, options: { format: string }): Promise<{ text(): string }>;
  insert(params: { table: string; values: Buffer; format: 'JSONEachRow'; settings?: InsertSettings }): Promise<unknown>;
  close(): void;
}

/**
 * ClickHouse in this process (the npm package chdb), its data in `dir` (a temporary directory when
 * omitted); `engineArguments` as on a `clickhouse local` command line (`--config-file=…`).
 */
export function chdbExecutor(dir?: string, engineArguments: string[] = []): ClickHouseExecutor {
  const { Session } = requireOptional<{ Session: new (path?: string, options?: object) => ChdbSession }>('chdb', 'an in-process ClickHouse store');
  const session = new Session(dir, { connectionArgs: ['--output_format_json_quote_64bit_integers=1', ...engineArguments] });
  return {
    description: `chdb ${dir ?? '(temporary)'}`,
    command: async (sql) => {
      await session.queryAsync(sql, { format: 'Null' });
    },
    query: async (sql) => {
      const text = (await session.queryAsync(sql, { format: 'JSONEachRow' })).text();
      return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
    },
    insert: async (table, rows, settings) => {
      if (rows.length === 0) return;
      await session.insert({ table, values: Buffer.from(rows.map((row) => JSON.stringify(row)).join('\n')), format: 'JSONEachRow', settings });
    },
    close: async () => session.close(),
  };
}
