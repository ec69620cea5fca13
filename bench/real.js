'use strict';
/**
 * Real packages nobody here wrote, for the benches that need more than this repository's
 * dependencies: installed once into bench/out/real (not part of `npm ci`).
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const REAL = path.join(__dirname, 'out', 'real');

/** Installs `specs` (name@version) into bench/out/real unless each is there; returns the directory. */
function ensureReal(specs) {
  const missing = specs.filter((spec) => {
    const name = spec.slice(0, spec.lastIndexOf('@'));
    const file = path.join(REAL, 'node_modules', name, 'package.json');
    return !fs.existsSync(file) || JSON.parse(fs.readFileSync(file, 'utf8')).version !== spec.slice(spec.lastIndexOf('@') + 1);
  });
  if (missing.length) {
    process.stderr.write(`bench: installing ${missing.join(', ')} into ${path.relative(process.cwd(), REAL) || REAL}\n`);
    fs.mkdirSync(REAL, { recursive: true });
    if (!fs.existsSync(path.join(REAL, 'package.json'))) fs.writeFileSync(path.join(REAL, 'package.json'), '{"private": true}\n');
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', ...missing], { cwd: REAL, stdio: 'inherit' });
    if (install.status !== 0) throw new Error(`npm install of ${missing.join(', ')} failed`);
  }
  return REAL;
}

module.exports = { REAL, ensureReal };
