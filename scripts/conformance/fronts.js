'use strict';
/**
 * The three jsprof front ends, as a function each: (code, sourceType, file, options) → code.
 * Each throws where the front refuses the input (a syntax error, or output it would not write).
 * `babel-plain` is Babel with no plugin at all: the control that tells a failure jsprof's Babel
 * plugin causes from one Babel's reprinting alone causes.
 */
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..');
const FRONTS = ['babel', 'estree', 'swc'];

const SETTINGS = [
  { name: 'threshold 1', options: { threshold: 1 } },
  { name: 'threshold 1, loops', options: { threshold: 1, loops: true } },
];

let babel;
let babelPlugin;
let estree;
let swc;

const transforms = {
  babel(code, sourceType, file, options) {
    babel ??= require('@babel/core');
    babelPlugin ??= require(path.join(REPO, 'packages/babel-plugin/dist')).default;
    const result = babel.transformSync(code, {
      babelrc: false,
      configFile: false,
      sourceType,
      plugins: [[babelPlugin, options]],
    });
    return result.code;
  },
  'babel-plain'(code, sourceType) {
    babel ??= require('@babel/core');
    return babel.transformSync(code, { babelrc: false, configFile: false, sourceType, plugins: [] }).code;
  },
  estree(code, sourceType, file, options) {
    estree ??= require(path.join(REPO, 'packages/estree-instrument/dist'));
    return estree.instrument({ code, program: estree.parseJs(code, file, sourceType), filename: file, sourceMap: false }, options).code;
  },
  swc(code, sourceType, file, options) {
    // @swc/core's parser decides script or module itself (the plugin passes `isModule: 'unknown'`).
    swc ??= require(path.join(REPO, 'packages/swc-plugin/dist'));
    return swc.instrument(code, { ...options, filename: file, sourceMap: false }).code;
  },
};

module.exports = { FRONTS, SETTINGS, transforms };
