// The runnable examples of a README: fenced blocks opened with ```ts run or ```js run.
// Shared by readme-examples.mjs (every README in the repository) and release-rehearsal.mjs (the READMEs
// of installed packages).
import { builtinModules } from 'node:module';

/**
 * The runnable blocks of a Markdown text, in order. A fence may name the services its example needs:
 * ```ts run needs=redis (comma-separated; known: redis, bwrap); readme-examples.mjs skips it, with one line, when one is missing.
 * @param {string} text Markdown.
 * @returns {{ lang: 'ts' | 'js', code: string, line: number, needs: string[] }[]} `line` is the 1-based line of the opening fence.
 */
export function runnableBlocks(text) {
  const blocks = [];
  const pattern = /^```(ts|js) run([^\n]*)\n([\s\S]*?)^```\s*$/gm;
  for (const match of text.matchAll(pattern)) {
    const needs = /(?:^|\s)needs=([\w,-]+)/.exec(match[2])?.[1].split(',').filter(Boolean) ?? [];
    blocks.push({ lang: match[1], code: match[3], line: text.slice(0, match.index).split('\n').length, needs });
  }
  return blocks;
}

/**
 * The bare package names a block imports (`@scope/name` or `name`; `node:` built-ins left out).
 * @param {string} code
 * @returns {string[]}
 */
export function importedPackages(code) {
  const names = new Set();
  for (const match of code.matchAll(/^\s*import\s[^'"]*?['"]([^'"]+)['"]/gm)) {
    const specifier = match[1];
    if (/^(\.|\/|node:)/.test(specifier) || builtinModules.includes(specifier.split('/')[0])) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return [...names];
}
