/**
 * The browser a trace came from, for `meta.browser` where the page sent none: its name and major
 * version, from the request's User-Agent header (`Chrome 142`, `Firefox 140`, `Safari 18`). Brands
 * built on Chromium that say so come first; anything else is not guessed.
 */
const BROWSERS: [RegExp, string][] = [
  [/\b(?:Edg|EdgA|EdgiOS)\/(\d+)/, 'Edge'],
  [/\b(?:OPR|Opera)\/(\d+)/, 'Opera'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[^ ]*(?: Mobile\/\S+)? Safari\//, 'Safari'],
];

export function browserOf(userAgent: string | undefined): string | undefined {
  if (!userAgent) return undefined;
  for (const [pattern, name] of BROWSERS) {
    const match = pattern.exec(userAgent);
    if (match) return `${name} ${match[1]}`;
  }
  return undefined;
}
