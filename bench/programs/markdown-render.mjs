/**
 * markdown-it (loaded as an ES module): renders a generated document of headings, paragraphs with
 * inline markup, lists, tables, code blocks and quotes.
 * Phases: generate (this file), parse to tokens (markdown-it), render tokens to HTML (markdown-it),
 * full render with linkify and typographer (markdown-it), text statistics of the HTML (this file).
 */
import MarkdownIt from 'markdown-it';
import common from './_common.js';

const { random, timed, phase } = common;
const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua profiler sample stack frame trace check loop'.split(' ');

/** A deterministic markdown document of about `sections` sections. */
function generate(sections, seed) {
  const next = random(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const sentence = (n) => {
    const words = [];
    for (let i = 0; i < n; i++) {
      let w = pick(WORDS);
      const r = next();
      if (r < 0.05) w = `**${w}**`;
      else if (r < 0.1) w = `_${w}_`;
      else if (r < 0.13) w = `\`${w}()\``;
      else if (r < 0.15) w = `[${w}](https://example.com/${w}?q=${i})`;
      else if (r < 0.16) w = `https://www.example.org/${w}`;
      words.push(w);
    }
    return words.join(' ') + (next() < 0.5 ? '.' : ' -- "quoted"...');
  };
  const out = [];
  for (let s = 0; s < sections; s++) {
    out.push(`${'#'.repeat(1 + (s % 3))} ${sentence(4)}`, '');
    for (let p = 0; p < 3; p++) out.push(sentence(20 + Math.floor(next() * 30)), '');
    const kind = s % 4;
    if (kind === 0) {
      for (let i = 0; i < 6; i++) out.push(`${i % 2 ? '  ' : ''}- ${sentence(8)}`);
    } else if (kind === 1) {
      out.push('| name | value | note |', '| --- | ---: | :---: |');
      for (let i = 0; i < 8; i++) out.push(`| ${pick(WORDS)} | ${Math.floor(next() * 1000)} | ${sentence(3)} |`);
    } else if (kind === 2) {
      out.push('```js');
      for (let i = 0; i < 8; i++) out.push(`const ${pick(WORDS)}${i} = ${pick(WORDS)}(${i}, '${pick(WORDS)}');`);
      out.push('```');
    } else {
      for (let i = 0; i < 4; i++) out.push(`> ${sentence(12)}`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** Counts words of the HTML's text and the most frequent ones (plain string work). */
function textStats(html) {
  const text = html.replace(/<[^>]+>/g, ' ').replace(/&[a-z]+;|&#\d+;/g, ' ');
  const freq = new Map();
  let words = 0;
  let longest = '';
  for (const w of text.split(/\s+/)) {
    if (!w) continue;
    words++;
    const lower = w.toLowerCase();
    freq.set(lower, (freq.get(lower) || 0) + 1);
    if (lower.length > longest.length) longest = lower;
  }
  const top = [...freq].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
  return words + top.length + longest.length;
}

const ROUNDS = 4;

function parsePhase(md, docs) {
  const all = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const doc of docs) all.push(md.parse(doc, {}));
  }
  return all;
}

function renderPhase(md, tokenLists) {
  let length = 0;
  for (const tokens of tokenLists) length += md.renderer.render(tokens, md.options, {}).length;
  return length;
}

function generateAll() {
  const docs = [];
  for (let i = 0; i < 4; i++) docs.push(generate(400, 17 + i));
  return docs;
}

function richRenderPhase(md, docs) {
  const htmls = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const doc of docs) htmls.push(md.render(doc));
  }
  return htmls;
}

function statsPhase(htmls) {
  let check = 0;
  for (const html of htmls) check += textStats(html);
  return check;
}

function work() {
  const docs = phase(generateAll);
  const plain = new MarkdownIt();
  const rich = new MarkdownIt({ linkify: true, typographer: true });
  let check = 0;
  const tokenLists = phase(parsePhase, plain, docs);
  check += tokenLists.length;
  check += phase(renderPhase, plain, tokenLists);
  check += phase(statsPhase, phase(richRenderPhase, rich, docs));
  check += docs.length;
  return check;
}

if (!process.argv.includes('--load-only')) timed(work);
