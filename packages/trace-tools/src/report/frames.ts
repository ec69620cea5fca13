/** How frames are named and placed for people. */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProfilerTrace } from '@jsprof/runtime';

/**
 * Where a function is, for people: a file path relative to `cwd` where it can be, else the URL;
 * `:line:column` when known (a minified bundle has all its functions on line 1).
 */
export function displayLocation(resource: string | null, line: number | null, column: number | null = null, cwd = process.cwd()): string {
  if (!resource) return '(native)';
  let where = resource;
  if (resource.startsWith('file:')) {
    try {
      const file = fileURLToPath(resource);
      const relative = path.relative(cwd, file);
      where = relative.startsWith('..') ? file : relative;
    } catch {
      // a file: URL Node cannot turn into a path (another host, say) is shown as it is
    }
  }
  // webpack names sources webpack://<project>/./src/app.js: the path in the project is what a reader looks for.
  const inProject = /^webpack:\/\/[^/]*\/(?:\.\/)?(.+)$/.exec(where);
  if (inProject) where = inProject[1];
  if (line == null) return where;
  return column == null ? `${where}:${line}` : `${where}:${line}:${column}`;
}

export function displayName(name: string): string {
  return name || '(anonymous)';
}

/** A frame as reports show it: the trace's fields, and its location for people. */
export interface FrameInfo {
  name: string;
  resource: string | null;
  line: number | null;
  column: number | null;
  location: string;
}

export function frameInfo(trace: ProfilerTrace, frameId: number): FrameInfo {
  const f = trace.frames[frameId];
  const resource = f.resourceId === undefined ? null : trace.resources[f.resourceId];
  const line = f.line ?? null;
  const column = f.column ?? null;
  return { name: f.name, resource, line, column, location: displayLocation(resource, line, column) };
}
