/** `import jsprof from '@jsprof/bundler-plugin/vite'`, then `plugins: [jsprof({ threshold: 10 })]`. */
import { jsprofUnplugin } from './unplugin';

export = jsprofUnplugin.vite;
