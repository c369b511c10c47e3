// Checks that a README points only at what is in the repository: every relative Markdown link resolves to a
// file or folder (and its #anchor to a heading of the target Markdown file), and every file name ending in
// .md that the text mentions exists in the repository, unless it is a kind of file the README describes
// (a SKILL.md the user writes). Used by readme-examples.mjs, so `pnpm test` keeps the READMEs' links true.
import fs from 'node:fs';
import path from 'node:path';

/** File names a README mentions as a kind of file the user writes, not as a file of this repository. */
const FILE_KINDS = new Set(['SKILL.md', 'AGENTS.md', 'CLAUDE.md', 'CHANGELOG.md']);

/**
 * GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` removed, spaces as `-`.
 * @param {string} heading
 */
export function headingAnchor(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** @param {string} markdown */
function anchorsOf(markdown) {
  const anchors = new Set();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```\s*$/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) anchors.add(headingAnchor(match[1]));
  return anchors;
}

/**
 * The problems of one README's links, each naming the link and what is wrong; empty when every link holds.
 * @param {string} readme absolute path of the README
 * @param {string} root the repository root
 * @param {Set<string>} trackedNames the base names of the repository's .md files
 * @returns {string[]}
 */
export function brokenLinks(readme, root, trackedNames) {
  const text = fs.readFileSync(readme, 'utf8');
  const dir = path.dirname(readme);
  const prose = text.replace(/^```[\s\S]*?^```\s*$/gm, '');
  const problems = [];
  for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [file, anchor] = target.split('#');
    const resolved = file === '' ? readme : path.resolve(dir, decodeURIComponent(file));
    if (!fs.existsSync(resolved)) {
      problems.push(`link (${target}): ${path.relative(root, resolved)} is not in the repository`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor))
      problems.push(`link (${target}): ${path.relative(root, resolved)} has no heading #${anchor}`);
  }
  for (const match of prose.matchAll(/(?<![\w./-])([\w-]+\.md)\b(?!\]?\()/g)) {
    const name = match[1];
    if (!trackedNames.has(name) && !FILE_KINDS.has(name))
      problems.push(`${name} is mentioned but no such file is in the repository: link to what is`);
  }
  return problems;
}
