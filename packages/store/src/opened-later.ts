/**
 * A store whose server could not be reached when it was named: opened at its first use, and again
 * at each use until that succeeds. Until then each use fails as the opening did, so a collector's
 * writer keeps its traces and tries again, as through any outage.
 */
import type { FunctionRow } from './identity';
import type { TraceRows } from './rows';
import type { Filter, GroupBy, Store } from './store';

export class StoreOpenedLater implements Store {
  private opened: Store | null = null;
  private opening: Promise<Store> | null = null;

  constructor(
    private readonly open: () => Promise<Store>,
    readonly description: string,
    /** Closes what `open` uses while no store has been opened. */
    private readonly closeUnopened: () => Promise<void>,
  ) {}

  private store(): Promise<Store> {
    if (this.opened) return Promise.resolve(this.opened);
    this.opening ??= this.open().then(
      (store) => (this.opened = store),
      (error) => {
        this.opening = null;
        throw error;
      },
    );
    return this.opening;
  }

  storedTraces = async (traceIds: string[]) => (await this.store()).storedTraces(traceIds);
  write = async (rows: TraceRows[]) => (await this.store()).write(rows);
  viewCounts = async (filter: Filter, groupBy: GroupBy) => (await this.store()).viewCounts(filter, groupBy);
  functionTotals = async (filter: Filter, groupBy: GroupBy) => (await this.store()).functionTotals(filter, groupBy);
  stackTotals = async (filter: Filter) => (await this.store()).stackTotals(filter);
  functions = async (functionIds: string[]): Promise<FunctionRow[]> => (await this.store()).functions(functionIds);
  rawTraces = async (afterTraceId: string, limit: number) => (await this.store()).rawTraces(afterTraceId, limit);

  close(): Promise<void> {
    return this.opened ? this.opened.close() : this.closeUnopened();
  }
}
