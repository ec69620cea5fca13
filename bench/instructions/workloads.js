'use strict';
/**
 * What bench/instructions.js runs each library through, one round each (a checksum back), the
 * numbers of rounds it compares, and how many checks apart its sampled run takes samples: about 25
 * a round (outside valgrind, acorn's round takes about 160 ms, markdown-it's 25 ms and js-yaml's
 * 8 ms, so all are sampled more often than every 10 ms: compare the cost of a sample), and how
 * many rounds a process of bench/rounds.js runs (`wallRounds`: about two seconds on this machine).
 *
 * The rounds compared come after V8 has compiled the hot code: markdown-it's second round runs 716
 * million instructions, its third 428 million, and from the twentieth on 223 million, so rounds 1 to
 * 3 measured mostly compilation and tier-up, not the checks. Under a predictable garbage collection
 * schedule (bench/instructions.js), acorn's round over rounds 3 to 6 and over 6 to 10 differed by 4%.
 */
const fs = require('node:fs');
const path = require('node:path');

const NODE_MODULES = path.resolve(__dirname, '../../node_modules');
const read = (file) => fs.readFileSync(path.join(NODE_MODULES, file), 'utf8');

const ACORN_SOURCES = [
  ['@babel/parser/lib/index.js', 'script'],
  ['acorn/dist/acorn.js', 'script'],
  ['js-yaml/dist/js-yaml.js', 'script'],
  ['markdown-it/dist/markdown-it.mjs', 'module'],
].map(([file, sourceType]) => ({ code: read(file), sourceType }));

const RECORDS = Array.from({ length: 400 }, (_, i) => ({
  id: `rec-${i}`,
  name: `record ${i}: "quoted" & more`,
  n: i * 7.5,
  ok: i % 3 === 0,
  tags: ['alpha', 'beta', 'gamma'].slice(i % 3),
  owner: { team: 'delta', note: i % 2 ? null : 'multi\nline\ntext' },
}));

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor'.split(' ');
const sentence = (n, seed) => Array.from({ length: n }, (_, i) => {
  const w = WORDS[(seed * 31 + i * 7) % WORDS.length];
  return i % 11 === 3 ? `**${w}**` : i % 13 === 5 ? `[${w}](https://e.com/${w})` : i % 17 === 1 ? `\`${w}()\`` : w;
}).join(' ');
const MARKDOWN = Array.from({ length: 150 }, (_, i) => [`## ${sentence(4, i)}`, '', sentence(40, i + 1), '', `- ${sentence(8, i + 2)}`, `- ${sentence(8, i + 3)}`, '', '| a | b |', '| - | - |', `| ${sentence(2, i)} | ${sentence(2, i + 5)} |`, '', `> ${sentence(10, i + 4)}`, ''].join('\n')).join('\n');

module.exports = {
  acorn: {
    library: 'acorn/dist/acorn.js',
    rounds: [4, 8],
    wallRounds: 16,
    sampleEvery: 64000,
    work(acorn) {
      let n = 0;
      for (const s of ACORN_SOURCES) {
        n += acorn.parse(s.code, { ecmaVersion: 'latest', sourceType: s.sourceType, locations: true }).body.length;
        for (const token of acorn.tokenizer(s.code, { ecmaVersion: 'latest', sourceType: s.sourceType })) n += token.end > 0;
      }
      return n;
    },
  },
  'markdown-it': {
    library: 'markdown-it/dist/markdown-it.cjs.js',
    rounds: [10, 20],
    wallRounds: 80,
    sampleEvery: 6400,
    work: (MarkdownIt) => MarkdownIt({ linkify: true, typographer: true }).render(MARKDOWN).length,
  },
  'js-yaml': {
    library: 'js-yaml/dist/js-yaml.js',
    // A short round: the mean of twelve.
    rounds: [9, 21],
    wallRounds: 300,
    sampleEvery: 5600,
    work: (yaml) => yaml.load(yaml.dump(RECORDS)).length,
  },
};
