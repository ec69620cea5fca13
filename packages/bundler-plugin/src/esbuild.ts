/** `import jsprof from '@jsprof/bundler-plugin/esbuild'`, then `plugins: [jsprof({ threshold: 10 })]`. */
import { jsprofUnplugin } from './unplugin';

export = jsprofUnplugin.esbuild;
