/** `import jsprof from '@jsprof/bundler-plugin/rollup'`, then `plugins: [jsprof({ threshold: 10 })]`. */
import { jsprofUnplugin } from './unplugin';

export = jsprofUnplugin.rollup;
