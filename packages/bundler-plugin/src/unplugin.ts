/**
 * jsprof's checks as an unplugin: one transform for vite, rollup and esbuild. It runs after the
 * build's own transforms (`enforce: 'post'`: TypeScript and JSX are already JavaScript in vite and
 * rollup), instruments each module with the policy every front end shares, and returns the edit's
 * source map for the bundler to chain. esbuild hands plugins the files as loaded, before its own
 * transforms, so there only JavaScript files are instrumented by default. Each script the build
 * writes gets its function table beside it, and says so at its end (TABLE_REGISTRATION).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createUnplugin } from 'unplugin';
import { TABLE_REGISTRATION, instrument, parseJs } from '@jsprof/estree-instrument';
import { normalizeOptions } from '@jsprof/policy';
import type { JsprofPluginOptions } from './index';
import { SCRIPT_OUTPUT, functionTableFor } from './function-table';
import { isJsprofRuntime } from './own-files';

const SCRIPTS = /\.[cm]?[jt]sx?$/;
const JAVASCRIPT = /\.[cm]?js$/;

export const jsprofUnplugin = createUnplugin<JsprofPluginOptions | undefined>((options = {}, meta) => {
  const { test = meta.framework === 'esbuild' ? JAVASCRIPT : SCRIPTS, exclude, ...policy } = options;
  normalizeOptions(policy); // bad options fail when the config loads, not in the middle of a build
  const fileOf = (id: string) => id.split('?')[0];
  return {
    name: 'jsprof',
    enforce: 'post',
    transformInclude: (id) => !id.startsWith('\0') && test.test(fileOf(id)) && !exclude?.test(id) && !isJsprofRuntime(fileOf(id)),
    transform(code, id) {
      const file = fileOf(id);
      const result = instrument({ code, program: parseJs(code, file), filename: file }, { ...policy, runtime: 'global' });
      return result.changed ? { code: result.code, map: result.map } : null;
    },
    // Function tables describe the scripts as they will run: after minification, from the final output.
    // Each script says it has one (TABLE_REGISTRATION), at its end, outside any wrapper.
    rollup: { generateBundle: emitFunctionTables, footer: TABLE_REGISTRATION },
    vite: { generateBundle: emitFunctionTables, footer: TABLE_REGISTRATION },
    esbuild: {
      setup(build) {
        if (build.initialOptions.write === false) return;
        const footer = build.initialOptions.footer?.js;
        build.initialOptions.footer = { ...build.initialOptions.footer, js: footer ? `${footer}\n${TABLE_REGISTRATION}` : TABLE_REGISTRATION };
        build.initialOptions.metafile = true;
        build.onEnd((result) => {
          if (!result.metafile) return;
          const cwd = build.initialOptions.absWorkingDir ?? process.cwd();
          for (const output of Object.keys(result.metafile.outputs).filter((f) => SCRIPT_OUTPUT.test(f))) {
            const file = path.resolve(cwd, output);
            const map = result.metafile.outputs[`${output}.map`] ? fs.readFileSync(`${file}.map`, 'utf8') : undefined;
            const table = functionTableFor(file, fs.readFileSync(file, 'utf8'), map);
            if (table) fs.writeFileSync(...table);
          }
        });
      },
    },
  };
});

function emitFunctionTables(this: { emitFile(file: { type: 'asset'; fileName: string; source: string }): string }, _: unknown, bundle: Record<string, any>) {
  for (const chunk of Object.values(bundle)) {
    const table = chunk.type === 'chunk' && SCRIPT_OUTPUT.test(chunk.fileName) ? functionTableFor(chunk.fileName, chunk.code, chunk.map) : null;
    if (table) this.emitFile({ type: 'asset', fileName: table[0], source: table[1] });
  }
}
